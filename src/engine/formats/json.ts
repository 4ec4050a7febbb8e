/**
 * `json`: an array with one entry per input: `file`, then the API's result (valid, errors and
 * warnings with line and column, infos when there is some, score, suggestions, truncated when the cap left findings out,
 * version, version_source, compatibility when checked, the ruleset that judged the run when the
 * caller names one, signatures when verified, live when probed; `baseline`: the
 * findings a baseline held, left out of errors and warnings). An input that yielded no card is
 * `{file, valid: false, errors: [one error of rule input.unreadable], warnings: [], score: 0}`.
 * `json-summary`: the same entries as `cards`, with `summary` beside them: the run's totals, the
 * ruleset and, when the caller knows it, the exit code and why the run fails.
 */
import type { FormatOptions } from './options.ts';
import { totalsOf, UNREADABLE_RULE, type CheckedInput } from './input.ts';

const entryOf = (input: CheckedInput, options: FormatOptions): Record<string, unknown> => {
  const { name: file, result, failure } = input;
  if (failure || !result) {
    const error = { message: failure?.message ?? 'no result', rule: UNREADABLE_RULE.id, ...(failure?.line === undefined ? {} : { line: failure.line, column: failure.column }) };
    return { file, valid: false, errors: [error], warnings: [], score: 0 };
  }
  return {
    file,
    valid: result.valid,
    errors: result.errors,
    warnings: result.warnings,
    ...(result.infos ? { infos: result.infos } : {}),
    score: result.score,
    suggestions: result.suggestions,
    ...(result.truncated ? { truncated: result.truncated } : {}),
    version: result.version,
    version_source: result.versionSource,
    ...(result.compatibility ? { compatibility: result.compatibility } : {}),
    ...(options.ruleset ? { ruleset: options.ruleset } : {}),
    ...(result.signatures ? { signatures: result.signatures } : {}),
    ...(result.live ? { live: result.live } : {}),
    ...(input.baseline ? { baseline: input.baseline } : {}),
  };
};

export const formatJson = (inputs: readonly CheckedInput[], options: FormatOptions = {}): string =>
  `${JSON.stringify(inputs.map((input) => entryOf(input, options)), null, 2)}\n`;

/** The run as a whole: what the text format's last line says, as members. */
const summaryOf = (inputs: readonly CheckedInput[], options: FormatOptions): Record<string, unknown> => {
  const t = totalsOf(inputs);
  return {
    inputs: t.inputs,
    cards: t.cards,
    valid: t.valid,
    invalid: t.invalid,
    unchecked: t.unchecked,
    errors: t.errors,
    warnings: t.warnings,
    ...(t.quieted > 0 ? { warnings_not_shown: t.quieted } : {}),
    ...(options.ruleset ? { ruleset: options.ruleset } : {}),
    ...(options.verdict ? { exit_code: options.verdict.code, ...(options.verdict.reason === undefined ? {} : { reason: options.verdict.reason }) } : {}),
  };
};

export const formatJsonSummary = (inputs: readonly CheckedInput[], options: FormatOptions = {}): string =>
  `${JSON.stringify({ cards: inputs.map((input) => entryOf(input, options)), summary: summaryOf(inputs, options) }, null, 2)}\n`;
