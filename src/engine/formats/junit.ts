/**
 * `junit`: JUnit XML as CI servers read it. One testsuite per input and one testcase per card
 * (an input holds one), with a <failure> per error; warnings go to the testcase's <system-out>.
 * An input that yielded no card is an <error> (the test could not run).
 */
import { where } from './text.ts';
import { countsOf, messageWithField, problemsOf, totalsOf, type CheckedInput, type Problem } from './input.ts';

const notInXml = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text made safe for XML 1.0: the five special characters escaped, and the characters XML 1.0
 * cannot hold at all (control characters but tab and line ends, U+FFFE, U+FFFF, lone surrogates)
 * replaced by U+FFFD. In attributes, tab and line ends are escaped too, or parsers would turn them
 * into spaces.
 */
export const xmlText = (text: string, attribute = false): string =>
  text
    .replace(notInXml, '\ufffd')
    .replace(/[&<>"'\t\n\r]/g, (c) => {
      switch (c) {
        case '&': return '&amp;';
        case '<': return '&lt;';
        case '>': return '&gt;';
        case '"': return '&quot;';
        case "'": return '&apos;';
        default: return attribute ? `&#${c.charCodeAt(0)};` : c;
      }
    });

const attr = (text: string): string => xmlText(text, true);

/** A problem as one line of text: where, the message (with the field when it does not name it) and the rule. */
const describe = (name: string, p: Problem): string => `${where(name, p)}: ${messageWithField(p)} [${p.rule}]`;

const testsuite = (input: CheckedInput): string => {
  const problems = problemsOf(input);
  const counts = countsOf(input);
  const failed = input.failure === undefined && counts.errors > 0;
  const errored = input.failure !== undefined;
  const body = problems
    .filter((p) => p.severity === 'error')
    .map((p) => {
      const element = errored ? 'error' : 'failure';
      return `      <${element} message="${attr(p.message)}" type="${attr(p.rule)}">${xmlText(describe(input.name, p))}</${element}>`;
    });
  const warnings = problems.filter((p) => p.severity === 'warning').map((p) => describe(input.name, p));
  if (warnings.length > 0) body.push(`      <system-out>${xmlText(warnings.join('\n'))}</system-out>`);
  const result = input.result;
  const caseName = result ? `agent card (A2A ${result.version} rules, score ${result.valid ? result.score : 0})` : 'agent card';
  return [
    `  <testsuite name="${attr(input.name)}" tests="1" failures="${failed ? 1 : 0}" errors="${errored ? 1 : 0}" skipped="0">`,
    `    <testcase name="${attr(caseName)}" classname="${attr(input.name)}"${body.length === 0 ? ' />' : '>'}`,
    ...(body.length === 0 ? [] : [...body, '    </testcase>']),
    '  </testsuite>',
  ].join('\n');
};

export const formatJunit = (inputs: readonly CheckedInput[]): string => {
  const t = totalsOf(inputs);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cardgate" tests="${t.inputs}" failures="${t.invalid}" errors="${t.unchecked}">`,
    ...inputs.map(testsuite),
    '</testsuites>',
    '',
  ].join('\n');
};
