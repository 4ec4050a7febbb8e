/**
 * `markdown`: a summary for `$GITHUB_STEP_SUMMARY` or a pull-request comment: a table with a row
 * per input (verdict, score, counts), then the findings of each input that has some, with their
 * lines. Card text is escaped so that it can neither break the tables nor turn into markup.
 */
import { cappedOf, countsOf, isValid, plural, problemsOf, summaryOf, totalsOf, type CheckedInput } from './input.ts';

/** Text for a table cell: markup characters backslash-escaped, `|` included, and line ends made spaces. */
export const markdownText = (text: string): string => text.replace(/[\\`*_[\]<>|~#!&]/g, '\\$&').replace(/\r\n?|\n/g, ' ');

/** A code span that holds any text: its fence is longer than the longest run of backticks inside; `|` stays escaped for tables. */
export const markdownCode = (text: string): string => {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const body = text.replace(/\r\n?|\n/g, ' ').replaceAll('|', '\\|');
  const pad = /^`|`$/.test(body) || longest > 0 ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
};

const verdict = (input: CheckedInput): string => {
  if (input.failure) return '⚠️ not checked';
  return isValid(input) ? '✅ valid' : '❌ invalid';
};

export const formatMarkdown = (inputs: readonly CheckedInput[]): string => {
  const t = totalsOf(inputs);
  const out = [
    '## cardgate: agent card validation',
    '',
    `${summaryOf(t)}.`,
    '',
    '| Card | Verdict | Score | Errors | Warnings |',
    '| --- | --- | ---: | ---: | ---: |',
    ...inputs.map((input) => {
      const counts = countsOf(input);
      const score = input.result ? String(input.result.valid ? input.result.score : 0) : '-';
      return `| ${markdownCode(input.name)} | ${verdict(input)} | ${score} | ${counts.errors} | ${counts.warnings} |`;
    }),
  ];
  for (const input of inputs) {
    const problems = problemsOf(input);
    if (problems.length === 0) continue;
    out.push('', `### ${markdownCode(input.name)}`, '', '| Line | Severity | Field | Message | Rule |', '| ---: | --- | --- | --- | --- |');
    for (const p of problems) {
      const line = p.line === undefined ? '' : `${p.line}:${p.column ?? 1}`;
      const field = p.path === undefined ? '' : markdownCode(p.path);
      out.push(`| ${line} | ${p.severity} | ${field} | ${markdownText(p.message)} | ${markdownCode(p.rule)} |`);
    }
    const leftOut = cappedOf(input);
    if (leftOut > 0) out.push('', `…and ${plural(leftOut, 'more finding')}, left out by the findings cap.`);
  }
  return `${out.join('\n')}\n`;
};
