/**
 * `cardgate validate [FILE|DIR|GLOB|URL|-]...`: offline validation of many cards with the same
 * engine and limits as the API, reported in a format for people or for CI tools.
 * Exit 0: every input checked, none failing; 1: a card fails (by --fail-on / --max-warnings);
 * 2: a usage error, a bad configuration, or an input that could not be checked.
 */
import { writeFile } from 'node:fs/promises';
import { formatResults, isOutputFormat, outputFormats } from '../engine/formats/index.ts';
import { isSupportedVersion, supportedVersions } from '../engine/index.ts';
import { version } from '../lib/version.ts';
import { readTrustFiles } from '../features/trust/trust-files.ts';
import { readCommandLine } from './args.ts';
import { cardInputs, defaultCardPatterns, patternsProblem } from './card-inputs.ts';
import { checkInputs, checkOffline, errorsOnly, failOnValues, parseMaxWarnings, runLimits, verdictOf, type FailOn } from './card-run.ts';
import { USAGE, type CliIO } from './io.ts';
import { commandConfig } from './cli-config.ts';
import { rulesetForRun } from './ruleset.ts';
import { applyBaseline, readBaseline, writeBaseline } from './baseline.ts';
import type { CheckedInput } from '../engine/formats/index.ts';

const help = `Usage: cardgate validate [options] FILE|DIR|GLOB|URL|- ...

Validate A2A agent cards (JSON) offline, with the engine and limits of the service.
  FILE   a card file                      DIR   searched for agent-card.json, agent_card.json,
  GLOB   quoted: 'cards/**/*.json'              agent.json, *.agent-card.json (or --pattern;
                                                not node_modules, .git)
  URL    https://agent.example fetches /.well-known/agent-card.json (else agent.json);
         any other URL is fetched as given
  -      standard input

Options:
  -f, --format F        ${outputFormats.join('|')} (default text)
  -o, --output FILE     write the report to FILE instead of standard output
  --fail-on L           error (default): exit 1 when a card has errors; warning: errors or
                        warnings; never: findings never fail the run
  --max-warnings N      exit 1 when the cards have more than N warnings in all (-1: no limit)
  -q, --quiet           report errors only (the exit code still counts warnings)
  --pattern GLOB        what a DIR is searched for, instead of the names above (repeatable);
                        without a slash a file name at any depth: --pattern '*.card.json'
  --protocol-version V  validate against V instead of the version each card declares
                        (${supportedVersions.join(', ')})
  --trust FILE.jwks     verify the cards' signatures with the keys of this JWKS (repeatable;
                        with signatures.trustFiles): verified, invalid, unknown-key findings
  --require-signature   a card without a signature that verifies with a trusted key fails
                        (also signatures.requireSignature)
  --ruleset FILE        the team's ruleset (docs/rulesets.md); default: the nearest
                        .cardgate.yaml/.yml/.json up to the repository root; a bad one exits 2
  --baseline FILE       a previous --format json output: findings it holds (same rule, file
                        and path) are reported under "baseline" and fail nothing
  --update-baseline     write the current findings to the --baseline FILE first
  --config PATH         settings file (default ./cardgate.json when present; CARDGATE_* env too):
                        http.maxBodyBytes and http.maxJsonDepth bound each card,
                        cardFetch.timeoutMs each URL, signatures.allowedAlgorithms
  -h, --help            show this help

Colour: in a terminal, unless NO_COLOR is set; FORCE_COLOR=1 forces it.
Exit codes: 0 every card passes; 1 a card fails (--fail-on, --max-warnings);
2 usage error, or an input that could not be checked (not found, unreadable, too big,
too deep, not JSON, not fetched), reported with the others. A run that fails says why
in one line on standard error.
`;

/** The inputs with the baseline's findings moved apart (written first with --update-baseline); an exit code when the baseline fails. */
async function withBaseline(inputs: CheckedInput[], file: string | undefined, update: boolean, io: CliIO): Promise<CheckedInput[] | number> {
  if (file === undefined) return inputs;
  const written = update ? await writeBaseline(file, inputs) : undefined;
  const baseline = written === undefined ? await readBaseline(file) : { problem: written };
  if ('problem' in baseline) {
    io.stderr(`cardgate validate: ${baseline.problem}\n`);
    return USAGE;
  }
  return applyBaseline(inputs, baseline.keys);
}

/** Whether to colour standard output: FORCE_COLOR wins (0 = never), then NO_COLOR, then whether it is a terminal. */
export const colorWanted = (env: NodeJS.ProcessEnv, isTTY: boolean): boolean => {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY;
};

const validateOptions = {
  'protocol-version': { type: 'string' },
  format: { type: 'string', short: 'f', default: 'text' },
  output: { type: 'string', short: 'o' },
  'fail-on': { type: 'string', default: 'error' },
  'max-warnings': { type: 'string' },
  quiet: { type: 'boolean', short: 'q', default: false },
  trust: { type: 'string', multiple: true },
  'require-signature': { type: 'boolean', default: false },
  config: { type: 'string' },
  pattern: { type: 'string', multiple: true },
  ruleset: { type: 'string' },
  baseline: { type: 'string' },
  'update-baseline': { type: 'boolean', default: false },
} as const;

export async function runValidate(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('validate', help, io, args, validateOptions);
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  if (positionals.length === 0) return usage('missing FILE, DIR, GLOB, URL or - (standard input)');
  if (positionals.includes('')) return usage("an empty operand ('') names nothing; give a FILE, DIR, GLOB, URL or - (for the working directory: .)");
  if (values['update-baseline'] && values.baseline === undefined) return usage('--update-baseline needs --baseline FILE');
  const format = values.format;
  if (!isOutputFormat(format)) return usage(`--format must be one of ${outputFormats.join(', ')}, not "${format}"`);
  const failOn = values['fail-on'];
  if (!(failOnValues as readonly string[]).includes(failOn)) return usage(`--fail-on must be one of ${failOnValues.join(', ')}, not "${failOn}"`);
  const maxWarnings = parseMaxWarnings(values['max-warnings']);
  if (maxWarnings === undefined) return usage(`--max-warnings must be a whole number, or -1 for no limit, not "${values['max-warnings']}"`);
  const patterns = values.pattern ?? defaultCardPatterns;
  const badPatterns = patternsProblem(patterns);
  if (badPatterns !== undefined) return usage(`--pattern: ${badPatterns}`);
  const protocolVersion = values['protocol-version'];
  if (protocolVersion !== undefined && !isSupportedVersion(protocolVersion)) {
    return usage(`unsupported --protocol-version "${protocolVersion}"; supported: ${supportedVersions.join(', ')}`);
  }
  const env = io.env ?? process.env;
  const config = commandConfig('validate', io, { env, ...(values.config === undefined ? {} : { configPath: values.config }) });
  if (typeof config === 'number') return config;

  const trust = await readTrustFiles([...config.signatures.trustFiles, ...(values.trust ?? [])], new Date().toISOString());
  if ('problem' in trust) {
    io.stderr(`cardgate validate: ${trust.problem}\n`);
    return USAGE;
  }
  const requireSignature = values['require-signature'] || config.signatures.requireSignature;
  // Signatures are verified once there is something to verify them with, or to require.
  const signatures = trust.keys.length > 0 || requireSignature
    ? { keys: trust.keys, requireSignature, allowedAlgorithms: config.signatures.allowedAlgorithms }
    : undefined;

  const rules = await rulesetForRun(values.ruleset, process.cwd());
  if ('problem' in rules) {
    io.stderr(`${rules.problem}\n`);
    return USAGE;
  }
  const limits = runLimits(config);
  const inputs = await cardInputs(positionals, process.cwd(), patterns);
  const found = await checkInputs(inputs, limits, checkOffline(limits, { protocolVersion, signatures, ruleset: rules.ruleset }), io.readStdin);
  const checked = await withBaseline(found, values.baseline, values['update-baseline'], io);
  if (typeof checked === 'number') return checked;
  const verdict = verdictOf(checked, { failOn: failOn as FailOn, ...(maxWarnings.limit === undefined ? {} : { maxWarnings: maxWarnings.limit }) });

  const output = values.output;
  const color = output === undefined && colorWanted(env, io.stdoutIsTTY ?? false);
  const rulesUrl = config.publicUrl === undefined ? {} : { rulesUrl: `${config.publicUrl}/rules` };
  const report = formatResults(format, values.quiet ? checked.map(errorsOnly) : checked, { color, toolVersion: version, ...rulesUrl, ruleset: rules.named, verdict });
  if (output === undefined) io.stdout(report);
  else {
    try {
      await writeFile(output, report);
    } catch (e) {
      io.stderr(`cardgate validate: cannot write ${output}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      return USAGE;
    }
  }
  // What could not be checked is in the report; said on stderr too when the report is for a machine or a file.
  if (output !== undefined || format !== 'text') {
    for (const input of checked) if (input.failure) io.stderr(`cardgate validate: ${input.name}: ${input.failure.message}\n`);
  }
  if (verdict.reason !== undefined) io.stderr(`cardgate validate: ${verdict.reason}\n`);
  return verdict.code;
}
