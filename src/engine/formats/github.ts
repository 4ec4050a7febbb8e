/**
 * `github`: GitHub Actions workflow commands, one `::error`, `::warning` or `::notice` (information) per problem, which the
 * runner turns into annotations on the file and line; then a plain summary line for the log.
 */
import { messageWithField, plural, problemsOf, totalsOf, type CheckedInput } from './input.ts';

/** A command's message: `%`, CR and LF would end or corrupt the command, so they are percent-encoded. */
export const commandData = (text: string): string => text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/** A command property's value: also `:` and `,`, which separate the properties. */
export const commandProperty = (text: string): string => commandData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

export const formatGithub = (inputs: readonly CheckedInput[]): string => {
  const lines = inputs.flatMap((input) =>
    problemsOf(input).map((p) => {
      const properties = [`file=${commandProperty(input.name)}`];
      if (p.line !== undefined) properties.push(`line=${p.line}`, `col=${p.column ?? 1}`);
      properties.push(`title=${commandProperty(p.rule)}`);
      // Workflow commands call information a notice.
      return `::${p.severity === 'info' ? 'notice' : p.severity} ${properties.join(',')}::${commandData(messageWithField(p))}`;
    }),
  );
  const t = totalsOf(inputs);
  const unchecked = t.unchecked === 0 ? '' : `, ${plural(t.unchecked, 'input')} could not be checked`;
  lines.push(`cardgate: ${plural(t.cards, 'card')} checked, ${t.invalid} invalid${unchecked}; ${plural(t.errors, 'error')}, ${plural(t.warnings, 'warning')}`);
  return `${lines.join('\n')}\n`;
};
