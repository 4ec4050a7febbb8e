/**
 * The GitHub Action (action.yml): validates the cards named by `files` offline with the engine,
 * or with a cardgate server (`server-url`), and reports the way a runner expects: annotations
 * (workflow commands with line and column), the step summary, the step's outputs, and the exit
 * code by `fail-on` / `max-warnings` (0 passes the step). Inputs come as INPUT_<NAME> variables.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import { ConfigError, loadConfig } from '../config.ts';
import { formatResults, isOutputFormat, outputFormats, type CheckedInput } from '../engine/formats/index.ts';
import { commandData } from '../engine/formats/github.ts';
import { isValid, plural, totalsOf } from '../engine/formats/input.ts';
import { isSupportedVersion, supportedVersions } from '../engine/index.ts';
import { version } from '../lib/version.ts';
import { cardInputs, defaultCardPatterns, patternsProblem } from '../cli/card-inputs.ts';
import { checkInputs, checkOffline, exitCodeOf, failOnValues, parseMaxWarnings, runLimits, type FailOn, type RunLimits } from '../cli/card-run.ts';
import { checkWithServer } from './server-check.ts';

export interface ActionIO {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
}

/** An input as the runner passes it: `INPUT_` and the name upper-cased (hyphens kept), trimmed; empty = not given. */
const input = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** Step outputs in the multi-line form, which no value can break out of. */
const outputLines = (outputs: Record<string, string>): string =>
  Object.entries(outputs)
    .map(([name, value]) => {
      const delimiter = `cardgate_${randomUUID()}`;
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join('');

/** The lowest score of the cards (an invalid card or an input that failed scores 0): a gate is as good as its worst card. */
const lowestScore = (checked: readonly CheckedInput[]): string =>
  checked.length === 0 ? '' : String(Math.min(...checked.map((c) => (c.result?.valid ? c.result.score : 0))));

export const runAction = async ({ env, cwd, stdout }: ActionIO): Promise<number> => {
  const fail = (message: string): number => {
    stdout(`::error title=cardgate::${commandData(message)}\n`);
    return 2;
  };
  const format = input(env, 'format') ?? 'text';
  if (!isOutputFormat(format)) return fail(`format must be one of ${outputFormats.join(', ')}, not "${format}"`);
  const failOn = input(env, 'fail-on') ?? 'error';
  if (!(failOnValues as readonly string[]).includes(failOn)) return fail(`fail-on must be one of ${failOnValues.join(', ')}, not "${failOn}"`);
  const maxWarningsText = input(env, 'max-warnings');
  const parsedMaxWarnings = parseMaxWarnings(maxWarningsText);
  if (parsedMaxWarnings === undefined) return fail(`max-warnings must be a whole number, or -1 for no limit, not "${maxWarningsText}"`);
  const maxWarnings = parsedMaxWarnings.limit;
  const protocolVersion = input(env, 'protocol-version');
  if (protocolVersion !== undefined && !isSupportedVersion(protocolVersion)) {
    return fail(`unsupported protocol-version "${protocolVersion}"; supported: ${supportedVersions.join(', ')}`);
  }
  let limits: RunLimits;
  try {
    limits = runLimits(loadConfig({ env, cwd }));
  } catch (e) {
    if (e instanceof ConfigError) return fail(e.message);
    throw e;
  }
  const serverUrl = input(env, 'server-url');
  const check = serverUrl === undefined ? checkOffline(limits, { protocolVersion }) : checkWithServer(serverUrl, input(env, 'api-key'), limits, protocolVersion);

  const operands = (input(env, 'files') ?? '.').split(/\s+/).filter(Boolean);
  if (operands.includes('-')) return fail('files cannot name standard input (-): a step has none');
  const patterns = input(env, 'patterns')?.split(/\s+/) ?? defaultCardPatterns;
  const badPatterns = patternsProblem(patterns);
  if (badPatterns !== undefined) return fail(`patterns: ${badPatterns}`);
  const checked = await checkInputs(await cardInputs(operands, cwd, patterns), limits, check, async () => undefined);
  const exitCode = exitCodeOf(checked, { failOn: failOn as FailOn, ...(maxWarnings === undefined ? {} : { maxWarnings }) });

  if (format !== 'github') stdout(formatResults(format, checked, { toolVersion: version }));
  stdout(formatResults('github', checked, { toolVersion: version }));
  const sarifFile = input(env, 'sarif-file');
  if (sarifFile !== undefined) await writeFile(sarifFile, formatResults('sarif', checked, { toolVersion: version }));
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, formatResults('markdown', checked, { toolVersion: version }));
  const { errors, warnings, cards, unchecked } = totalsOf(checked);
  const outputs = {
    valid: String(checked.length > 0 && checked.every(isValid)),
    errors: String(errors),
    warnings: String(warnings),
    score: lowestScore(checked),
    'sarif-file': sarifFile ?? '',
  };
  if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, outputLines(outputs));
  if (exitCode !== 0) {
    const why = exitCode === 2 ? `${plural(unchecked, 'input')} could not be checked` : `the cards fail (fail-on: ${failOn}${maxWarnings === undefined ? '' : `, max-warnings: ${maxWarnings}`})`;
    stdout(`::error title=cardgate::${commandData(`${plural(cards, 'card')} checked: ${why}; ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`)}\n`);
  }
  return exitCode;
};
