/**
 * The GitHub Action (action.yml): validates the cards named by `files` offline with the engine,
 * or with a cardgate server (`server-url`), probes a deployed preview (`probe-url`, read-only,
 * docs/probes.md), and reports the way a runner expects: annotations
 * (workflow commands with line and column), the step summary, the step's outputs, and the exit
 * code by `fail-on` / `max-warnings` (0 passes the step). Inputs come as INPUT_<NAME> variables.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { formatResults, isOutputFormat, outputFormats, type CheckedInput } from '../engine/formats/index.ts';
import { commandData, commandProperty } from '../engine/formats/github.ts';
import { isValid, plural, totalsOf } from '../engine/formats/input.ts';
import { isSupportedVersion, supportedVersions } from '../engine/index.ts';
import { readTextFile, type ReadBound } from '../lib/read-file.ts';
import { version } from '../lib/version.ts';
import { agentNameProblem } from '../features/agents/naming.ts';
import { cardInputs, defaultCardPatterns, patternsProblem } from '../cli/card-inputs.ts';
import { checkInputs, checkOffline, exitCodeOf, failOnValues, parseMaxWarnings, runLimits, type FailOn, type RunLimits } from '../cli/card-run.ts';
import { checkWithServer, type ServerGate, type ServerReport } from './server-check.ts';
import { gateLogLines, gateOutputs, gateSummary, ungatedText } from './gate-report.ts';
import { probeChecked, probeRefusal } from '../cli/probe-run.ts';

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

/**
 * The lowest score of the cards checked (an invalid card scores 0): a gate is as good as its worst
 * card. An input that could not be checked (a directory with no card by the names searched) has no
 * score, so it is no 0 here: it fails the step by itself (exit 2, `valid` false). Empty when no card was checked.
 */
const lowestScore = (checked: readonly CheckedInput[]): string => {
  const scores = checked.flatMap((c) => (c.result ? [c.result.valid ? c.result.score : 0] : []));
  return scores.length === 0 ? '' : String(Math.min(...scores));
};

/**
 * The pull-request gate (`baseline`, with server-url and api-key): each card is the agent
 * `<repository>/<file>` of the key's account (or the one `agent` names, for a single card),
 * recorded under `branch` (default: the pull request's head, or the pushed branch), teaching a
 * new agent the repository's default branch (the badge's), and compared
 * with `baseline` (e.g. `branch:main`). Why it cannot be used, or undefined when no server key is
 * given (keyless calls join no agent).
 */
const serverGate = (env: NodeJS.ProcessEnv, failOn: string, defaultBranch: string | undefined): ServerGate | string | undefined => {
  const baseline = input(env, 'baseline');
  const agent = input(env, 'agent');
  const baselineMissing = input(env, 'baseline-missing') ?? 'skip';
  if (baselineMissing !== 'skip' && baselineMissing !== 'fail') return `baseline-missing must be skip or fail, not "${baselineMissing}"`;
  if (input(env, 'server-url') === undefined || input(env, 'api-key') === undefined) {
    if (baseline !== undefined) return 'baseline needs server-url and api-key: a baseline is an earlier report of the key\'s account';
    return agent === undefined ? undefined : 'agent needs server-url and api-key: an agent is a history of the key\'s account';
  }
  const repository = env.GITHUB_REPOSITORY?.trim();
  const branch = input(env, 'branch') ?? (env.GITHUB_HEAD_REF?.trim() || env.GITHUB_REF_NAME?.trim() || undefined);
  return {
    agentOf: (name) => agent ?? (repository ? `${repository}/${name}` : name),
    ...(branch === undefined ? {} : { branch }),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    ...(baseline === undefined ? {} : { baseline, ...(failOn === 'never' ? {} : { failOn }), skipMissingBaseline: baselineMissing === 'skip' }),
    outcomes: new Map(),
    notices: new Map(),
    ungated: new Map(),
  };
};

/** The most of an event payload read: GitHub caps a webhook's payload at 25 MB. */
const EVENT_PAYLOAD_BOUND: ReadBound = { maxBytes: 25 * 1024 * 1024, what: 'an event payload (GITHUB_EVENT_PATH)' };

/** `name` when the server would take it as a branch (bounded, printable), else undefined: a name it would refuse is not sent. */
const branchName = (name: unknown): string | undefined => (typeof name === 'string' && agentNameProblem(name.trim()) === undefined ? name.trim() : undefined);

/**
 * The repository's default branch as the runner knows it: the event payload's
 * `repository.default_branch` (a regular file within EVENT_PAYLOAD_BOUND), else on a pull request
 * its base branch (GITHUB_BASE_REF, set only then); undefined when neither is known or fit to
 * send (an unreadable payload is no reason to fail the step).
 */
const repositoryDefaultBranch = (env: NodeJS.ProcessEnv): string | undefined => {
  const eventPath = env.GITHUB_EVENT_PATH?.trim();
  const read = eventPath ? readTextFile(eventPath, EVENT_PAYLOAD_BOUND) : undefined;
  if (read !== undefined && 'text' in read) {
    try {
      const named = branchName((JSON.parse(read.text) as { repository?: { default_branch?: unknown } } | null)?.repository?.default_branch);
      if (named !== undefined) return named;
    } catch {
      // Not JSON: the base branch, when there is one, says it.
    }
  }
  return branchName(env.GITHUB_BASE_REF);
};

/** With a baseline: 2 when an input could not be checked, 1 when a card regresses (unless fail-on is never), else 0. */
const gateExitCode = (checked: readonly CheckedInput[], regressions: number, failOn: string): 0 | 1 | 2 =>
  checked.some((c) => c.result === undefined) ? 2 : regressions > 0 && failOn !== 'never' ? 1 : 0;

/** A card with no baseline to compare with is judged as without a gate: new as error, breaking (a change from a baseline) never. */
const ungatedFailOn = (failOn: string): FailOn => (failOn === 'new' ? 'error' : failOn === 'breaking' ? 'never' : (failOn as FailOn));

/**
 * The step's exit and why it fails: without a gate, by the cards' findings; with one, the gated
 * cards by their gate and the cards with no baseline yet by their findings, the worse of the two.
 */
const stepVerdict = (checked: readonly CheckedInput[], gate: ServerGate | undefined, failOn: string, maxWarnings: number | undefined): { exitCode: number; regressions?: number; failing: string } => {
  const byFindings = (cards: readonly CheckedInput[], judgedBy: FailOn) => exitCodeOf(cards, { failOn: judgedBy, ...(maxWarnings === undefined ? {} : { maxWarnings }) });
  const findingsWhy = (judgedBy: string) => `fail-on: ${judgedBy}${maxWarnings === undefined ? '' : `, max-warnings: ${maxWarnings}`}`;
  if (gate?.baseline === undefined) return { exitCode: byFindings(checked, failOn as FailOn), failing: `the cards fail (${findingsWhy(failOn)})` };
  const gated = checked.filter((c) => !gate.ungated.has(c.name));
  const ungated = checked.filter((c) => gate.ungated.has(c.name));
  const regressions = gated.filter((c) => c.result !== undefined && gate.outcomes.get(c.name)?.passed !== true).length;
  const ungatedExit = ungated.length === 0 ? 0 : byFindings(ungated, ungatedFailOn(failOn));
  const why = [
    ...(regressions > 0 ? [`${plural(regressions, 'card')} ${regressions === 1 ? 'regresses' : 'regress'} against ${gate.baseline} (fail-on: ${failOn})`] : []),
    ...(ungatedExit === 1 ? [`the ${ungated.length === 1 ? 'card' : 'cards'} with no baseline yet ${ungated.length === 1 ? 'fails' : 'fail'} (${findingsWhy(ungatedFailOn(failOn))})`] : []),
  ];
  return { exitCode: Math.max(gateExitCode(gated, regressions, failOn), ungatedExit), regressions, failing: why.join('; ') };
};

export const runAction = async ({ env, cwd, stdout }: ActionIO): Promise<number> => {
  const fail = (message: string): number => {
    stdout(`::error title=cardgate::${commandData(message)}\n`);
    return 2;
  };
  const format = input(env, 'format') ?? 'text';
  if (!isOutputFormat(format)) return fail(`format must be one of ${outputFormats.join(', ')}, not "${format}"`);
  const failOn = input(env, 'fail-on') ?? 'error';
  const failOnAllowed = input(env, 'baseline') === undefined ? failOnValues : [...failOnValues, 'new', 'breaking'];
  if (!(failOnAllowed as readonly string[]).includes(failOn)) return fail(`fail-on must be one of ${failOnAllowed.join(', ')}, not "${failOn}"`);
  const maxWarningsText = input(env, 'max-warnings');
  const parsedMaxWarnings = parseMaxWarnings(maxWarningsText);
  if (parsedMaxWarnings === undefined) return fail(`max-warnings must be a whole number, or -1 for no limit, not "${maxWarningsText}"`);
  const maxWarnings = parsedMaxWarnings.limit;
  const protocolVersion = input(env, 'protocol-version');
  if (protocolVersion !== undefined && !isSupportedVersion(protocolVersion)) {
    return fail(`unsupported protocol-version "${protocolVersion}"; supported: ${supportedVersions.join(', ')}`);
  }
  let config: Config;
  try {
    config = loadConfig({ env, cwd });
  } catch (e) {
    if (e instanceof ConfigError) return fail(e.message);
    throw e;
  }
  const limits: RunLimits = runLimits(config);
  const probeUrl = input(env, 'probe-url');
  const probeRefused = probeUrl === undefined ? undefined : probeRefusal(config, probeUrl);
  if (probeRefused) return fail(`probe-url: ${probeRefused}`);
  const serverUrl = input(env, 'server-url');
  const gate = serverGate(env, failOn, repositoryDefaultBranch(env));
  if (typeof gate === 'string') return fail(gate);
  const reports = new Map<string, ServerReport>();
  const check = serverUrl === undefined ? checkOffline(limits, { protocolVersion }) : checkWithServer(serverUrl, input(env, 'api-key'), limits, reports, protocolVersion, gate);

  const operands = (input(env, 'files') ?? '.').split(/\s+/).filter(Boolean);
  if (operands.includes('-')) return fail('files cannot name standard input (-): a step has none');
  const patterns = input(env, 'patterns')?.split(/\s+/) ?? defaultCardPatterns;
  const badPatterns = patternsProblem(patterns);
  if (badPatterns !== undefined) return fail(`patterns: ${badPatterns}`);
  const inputs = await cardInputs(operands, cwd, patterns);
  // One name for several cards would mix their histories (and gate each against another's report).
  if (gate && input(env, 'agent') !== undefined && inputs.length !== 1) return fail(`agent names one card's agent, and files holds ${plural(inputs.length, 'card')}: use a step per card, or leave agent empty (each card is then <repository>/<file>)`);
  const checked = await checkInputs(inputs, limits, check, async () => undefined);
  // The deployed preview, probed read-only: its card and live checks join the other inputs.
  if (probeUrl !== undefined) checked.push(await probeChecked({ config, ask: { sendMessage: false, headers: {} } }, { url: probeUrl }));
  const { exitCode, regressions, failing } = stepVerdict(checked, gate, failOn, maxWarnings);

  if (format !== 'github') stdout(formatResults(format, checked, { toolVersion: version }));
  stdout(formatResults('github', checked, { toolVersion: version }));
  const kept = { reports, gate, ungatedFailOn: ungatedFailOn(failOn) };
  for (const name of gate?.ungated.keys() ?? []) stdout(`::notice file=${commandProperty(name)},title=cardgate::${commandData(ungatedText(kept, name))}\n`);
  for (const [name, notice] of gate?.notices ?? []) stdout(`::warning file=${commandProperty(name)},title=cardgate::${commandData(`joined no agent: ${notice}`)}\n`);
  for (const [name, outcome] of gate?.outcomes ?? []) {
    const breaking = outcome.breaking_changes ?? 0;
    if (breaking > 0) stdout(`::warning file=${commandProperty(name)},title=cardgate::${commandData(`${plural(breaking, 'breaking change')} against ${outcome.report_id} (docs/compatibility.md; the report's diff lists them)`)}\n`);
  }
  const names = checked.map((c) => c.name);
  stdout(gateLogLines(kept, names));
  const sarifFile = input(env, 'sarif-file');
  if (sarifFile !== undefined) await writeFile(sarifFile, formatResults('sarif', checked, { toolVersion: version }));
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${formatResults('markdown', checked, { toolVersion: version })}${gateSummary(kept, names)}`);
  const { errors, warnings, cards, unchecked } = totalsOf(checked);
  const outputs = {
    valid: String(checked.length > 0 && checked.every(isValid)),
    errors: String(errors),
    warnings: String(warnings),
    score: lowestScore(checked),
    'sarif-file': sarifFile ?? '',
    regressions: regressions === undefined ? '' : String(regressions),
    ...gateOutputs(kept, names),
  };
  if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, outputLines(outputs));
  if (exitCode !== 0) {
    const why = exitCode === 2 ? `${plural(unchecked, 'input')} could not be checked` : failing;
    stdout(`::error title=cardgate::${commandData(`${plural(cards, 'card')} checked: ${why}; ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`)}\n`);
  }
  return exitCode;
};
