/**
 * `cardgate probe <url | card file>`: the card validated and the agent behind it probed live
 * (docs/probes.md): read-only unless --send-message, every request under the card-fetch policy
 * (`cardFetch.allowedHosts`) and the probe bounds (`probes.*`). Exit 0: every check passes (by
 * --fail-on); 1: a check or the card fails; 2: a usage error, or the agent could not be probed.
 */
import { writeFile } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { formatResults, isOutputFormat, outputFormats } from '../engine/formats/index.ts';
import { looksLikeUrl } from '../features/card-fetch/fetch-card.ts';
import { readHeaders, splitHeaderLine } from '../features/probes/credentials.ts';
import { parseJsonObject } from '../lib/json.ts';
import { version } from '../lib/version.ts';
import { readCommandLine } from './args.ts';
import { failOnValues, verdictOf, type FailOn } from './card-run.ts';
import { readOperand, USAGE, type CliIO } from './io.ts';
import { commandConfig } from './cli-config.ts';
import { rulesetForRun } from './ruleset.ts';
import { colorWanted } from './validate.ts';
import { probeChecked, probeRefusal } from './probe-run.ts';

const help = `Usage: cardgate probe [options] URL|FILE

Validate an agent card and probe the agent behind it (docs/probes.md).
  URL    https://agent.example probes /.well-known/agent-card.json (else agent.json)
  FILE   a card file: its interfaces are probed, and the card their origin serves is
         compared with it

Read-only: a get of a task that cannot exist, invalid JSON, an unknown method, the
extended card; the card with a conditional request and a CORS preflight.

Options:
  --send-message        also send one marked message ("cardgate probe, safe to ignore";
                        it may create a task) and, when the card declares streaming, one
                        streaming request
  --header 'Name: V'    send this header to the card's https interfaces (repeatable, e.g.
                        credentials); used for this run only, never written or printed
  -f, --format F        ${outputFormats.join('|')} (default text)
  -o, --output FILE     write the report to FILE instead of standard output
  --fail-on L           error (default): exit 1 when a check or the card has errors;
                        warning: errors or warnings; never
  --ruleset FILE        the team's ruleset (default: the nearest .cardgate.yaml/.yml/.json)
  --config PATH         settings file: cardFetch.allowedHosts (which hosts may be probed
                        beyond public addresses), probes.* (requests, time), http.maxBodyBytes
  -h, --help            show this help

Exit codes: 0 every check passes; 1 a check or the card fails (--fail-on);
2 usage error, or the agent could not be probed (no card read).
`;

const probeOptions = {
  'send-message': { type: 'boolean', default: false },
  header: { type: 'string', multiple: true },
  format: { type: 'string', short: 'f', default: 'text' },
  output: { type: 'string', short: 'o' },
  'fail-on': { type: 'string', default: 'error' },
  ruleset: { type: 'string' },
  config: { type: 'string' },
} as const;

/** The card file's text and card, or why there is none. */
const readCardFile = async (operand: string, config: Config, io: CliIO): Promise<{ text: string; card: Record<string, unknown> } | { problem: string }> => {
  const read = await readOperand(operand, { maxBytes: config.http.maxBodyBytes, what: 'a card (http.maxBodyBytes)' }, io.readStdin);
  if ('problem' in read) return read;
  const parsed = parseJsonObject(read.text.replace(/^\uFEFF/, ''), config.http.maxJsonDepth, operand);
  return 'value' in parsed ? { text: read.text, card: parsed.value } : { problem: parsed.problem };
};

export async function runProbeCommand(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('probe', help, io, args, probeOptions);
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  if (positionals.length !== 1 || positionals[0] === '') return usage('give one URL or card FILE');
  const format = values.format;
  if (!isOutputFormat(format)) return usage(`--format must be one of ${outputFormats.join(', ')}, not "${format}"`);
  const failOn = values['fail-on'];
  if (!(failOnValues as readonly string[]).includes(failOn)) return usage(`--fail-on must be one of ${failOnValues.join(', ')}, not "${failOn}"`);
  const lines = (values.header ?? []).map((h) => splitHeaderLine(h));
  if (lines.some((l) => l === undefined)) return usage("--header must be 'Name: value'");
  const headers = readHeaders(lines as Array<readonly [string, string]>);
  if ('problem' in headers) return usage(`--header: ${headers.problem}`);
  const env = io.env ?? process.env;
  const config = commandConfig('probe', io, { env, ...(values.config === undefined ? {} : { configPath: values.config }) });
  if (typeof config === 'number') return config;
  const rules = await rulesetForRun(values.ruleset, process.cwd());
  if ('problem' in rules) {
    io.stderr(`${rules.problem}\n`);
    return USAGE;
  }
  const operand = positionals[0]!;
  const given = looksLikeUrl(operand) ? undefined : await readCardFile(operand, config, io);
  if (given && 'problem' in given) {
    io.stderr(`cardgate probe: ${given.problem}\n`);
    return USAGE;
  }
  const refused = given ? undefined : probeRefusal(config, operand);
  if (refused) {
    io.stderr(`cardgate probe: ${refused}\n`);
    return USAGE;
  }
  const ask = { sendMessage: values['send-message'], headers: headers.headers };
  const checked = await probeChecked({ config, ask, ruleset: rules.ruleset }, given ? { name: operand, ...given } : { url: operand });
  const verdict = verdictOf([checked], { failOn: failOn as FailOn });
  const output = values.output;
  const rulesUrl = config.publicUrl === undefined ? {} : { rulesUrl: `${config.publicUrl}/rules` };
  const report = formatResults(format, [checked], { color: output === undefined && colorWanted(env, io.stdoutIsTTY ?? false), toolVersion: version, ...rulesUrl, ruleset: rules.named });
  if (output === undefined) io.stdout(report);
  else {
    try {
      await writeFile(output, report);
    } catch (e) {
      io.stderr(`cardgate probe: cannot write ${output}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      return USAGE;
    }
  }
  if (checked.failure) io.stderr(`cardgate probe: ${checked.failure.message}\n`);
  else if (verdict.reason !== undefined) io.stderr(`cardgate probe: ${verdict.reason.replace('the run', 'the probe')}\n`);
  return verdict.code;
}
