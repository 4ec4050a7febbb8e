/**
 * `json`: an array with one entry per input: `file`, then the API's result (valid, errors and
 * warnings with line and column, infos when there is some, score, suggestions, truncated when the cap left findings out,
 * version, version_source, compatibility when checked, signatures when verified, live when probed; `baseline`: the
 * findings a baseline held, left out of errors and warnings). An input that yielded no card is
 * `{file, valid: false, errors: [one error of rule input.unreadable], warnings: [], score: 0}`.
 */
import { UNREADABLE_RULE, type CheckedInput } from './input.ts';

const entryOf = (input: CheckedInput): Record<string, unknown> => {
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
    ...(result.signatures ? { signatures: result.signatures } : {}),
    ...(result.live ? { live: result.live } : {}),
    ...(input.baseline ? { baseline: input.baseline } : {}),
  };
};

export const formatJson = (inputs: readonly CheckedInput[]): string => `${JSON.stringify(inputs.map(entryOf), null, 2)}\n`;
