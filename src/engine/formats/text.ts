/**
 * `text`: one line per problem, `file:line:col  severity  message  rule`, which terminals and
 * editors turn into links (as eslint's output), then the ruleset that judged the run when the
 * caller names it, and one summary line for the run. Colour (ANSI)
 * only when asked: the severity, and the rule dimmed.
 */
import { rulesetLine, type FormatOptions } from './options.ts';
import { cappedOf, plural, problemsOf, summaryOf, totalsOf, type CheckedInput, type Problem } from './input.ts';

const ansi = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const paint = { error: ansi('31'), warning: ansi('33'), dim: ansi('2'), bold: ansi('1') };
const plain = (text: string) => text;

/** `file:line:col`, or just `file` when the problem has no position. */
export const where = (name: string, p: Pick<Problem, 'line' | 'column'>): string =>
  p.line === undefined ? name : `${name}:${p.line}:${p.column ?? 1}`;

/** Control characters would let a card rewrite the terminal (a message quotes card text JSON-escaped, a file name is as given). */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const formatText = (inputs: readonly CheckedInput[], options: Pick<FormatOptions, 'color' | 'ruleset'> = {}): string => {
  const c = options.color ? paint : { error: plain, warning: plain, dim: plain, bold: plain };
  const lines: string[] = [];
  for (const input of inputs) {
    const name = printable(input.name);
    for (const p of problemsOf(input)) {
      const severity = p.severity === 'error' ? c.error('error  ') : p.severity === 'warning' ? c.warning('warning') : 'info   ';
      lines.push(`${where(name, p)}  ${severity}  ${printable(p.message)}  ${c.dim(p.rule)}`);
    }
    for (const s of input.result?.signatures ?? []) {
      if (s.verified) lines.push(`${name}  info     signature by kid ${printable(JSON.stringify(s.kid))} (${s.alg}) verified over the ${s.form} canonical form  ${c.dim(s.rule)}`);
    }
    // Live checks that passed or were skipped (the others are findings above).
    for (const check of input.result?.live ?? []) {
      if (check.status === 'pass' || check.status === 'skip') lines.push(`${name}  ${check.status === 'pass' ? 'pass   ' : 'skip   '}  ${printable(check.path ? `${check.path}: ${check.message}` : check.message)}  ${c.dim(check.id)}`);
    }
    const leftOut = cappedOf(input);
    if (leftOut > 0) lines.push(`${name}  ${plural(leftOut, 'more finding')} left out (findings cap)`);
  }
  const t = totalsOf(inputs);
  lines.push(...(lines.length > 0 ? [''] : []), ...(options.ruleset ? [rulesetLine(options.ruleset)] : []), c.bold(summaryOf(t)));
  return `${lines.join('\n')}\n`;
};
