/**
 * `cardgate mcp`: cardgate's MCP server over stdio, for coding assistants on a developer's machine
 * (docs/mcp.md). The tools run the engine in process with the limits of `cardgate validate`
 * (http.maxBodyBytes and http.maxJsonDepth per card); they read files under the --root directories
 * only (default: the working directory), each a regular file within the card's size; and they fetch
 * and probe URLs within cardFetch.allowedHosts (public addresses by default): an assistant may be
 * asked by what it reads to fetch anything, so this door is no more open than the service's.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from '../config.ts';
import type { CheckedInput } from '../engine/formats/index.ts';
import type { CompiledRulesetData } from '../engine/ruleset/compile.ts';
import { fetchCard } from '../features/card-fetch/fetch-card.ts';
import { probeOutputOf, validateOutputOf } from '../features/mcp/results.ts';
import type { ProbeOutput, ValidateOutput } from '../features/mcp/schemas.ts';
import { mcpServer, oneSource, ToolError, type CardSource, type McpDoor, type ValidateAsk } from '../features/mcp/server.ts';
import { builtinServerRuleset } from '../features/rulesets/server-rulesets.ts';
import { cardFetchUse } from '../features/validation/card-by-url.ts';
import { answerBudget, withinBudget } from '../features/validation/card-result.ts';
import { createAddressPolicy } from '../lib/address-policy.ts';
import { readTextFile } from '../lib/read-file.ts';
import { version } from '../lib/version.ts';
import { readCommandLine } from './args.ts';
import { checkOffline, runLimits, type RunLimits } from './card-run.ts';
import { diffInputs } from './diff.ts';
import type { CliIO } from './io.ts';
import { commandConfig } from './cli-config.ts';
import { probeChecked, probeRefusal } from './probe-run.ts';
import { loadRulesetFile, rulesetForRun } from './ruleset.ts';

const help = `Usage: cardgate mcp [--root DIR]... [--config PATH]

Serve cardgate's MCP tools over standard input and output (docs/mcp.md): validate_card,
diff_cards, probe_agent, explain_rule and list_rules, for a coding assistant to start.

Options:
  --root DIR     a directory whose files the tools may read (repeatable; default: the working
                 directory); a path elsewhere is a tool error
  --config PATH  settings file (default ./cardgate.json when present; CARDGATE_* env too):
                 http.maxBodyBytes and http.maxJsonDepth bound each card, cardFetch.allowedHosts
                 the URLs fetched and probed (public addresses by default), cardFetch.timeoutMs
  -h, --help     show this help

Runs until its standard input ends; exit 0. Exit 2: a usage error or a bad configuration.
`;

/** The largest message read from standard input: past it the SDK's transport closes, so it is well above two cards of any size the tools take. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

interface Local {
  config: Config;
  limits: RunLimits;
  /** The --root directories, their real paths. */
  roots: string[];
  cwd: string;
}

const within = (file: string, roots: readonly string[]): boolean => roots.some((root) => file === root || file.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`));

/** A path the tools may read: its real path under a root, or the tool's error. */
const readablePath = async (given: string, local: Local): Promise<string> => {
  const real = await realpath(path.resolve(local.cwd, given)).catch((e: NodeJS.ErrnoException) => {
    throw new ToolError(`path ${given}: ${e.code === 'ENOENT' ? 'no such file or directory' : `cannot read: ${e.code ?? e.message}`}`);
  });
  if (!within(real, local.roots)) throw new ToolError(`path ${given}: outside the directories cardgate mcp may read (--root: ${local.roots.join(', ')})`);
  return real;
};

/** The card a tool names, read within the card's bounds: its name and text. */
const readCard = async (source: CardSource, local: Local): Promise<{ name: string; text: string }> => {
  const { limits, config } = local;
  const bound = { maxBytes: limits.maxBytes, what: 'a card (http.maxBodyBytes)' };
  const kind = oneSource(source);
  if (kind === 'card') {
    if (Buffer.byteLength(source.card!) > limits.maxBytes) throw new ToolError(`card: larger than ${limits.maxBytes} bytes, the size limit for a card (http.maxBodyBytes)`);
    return { name: 'card', text: source.card! };
  }
  if (kind === 'path') {
    const read = readTextFile(await readablePath(source.path!, local), bound);
    if ('problem' in read) throw new ToolError(`path ${source.path}: ${read.problem}`);
    return { name: source.path!, text: read.text };
  }
  const fetched = await fetchCard(source.url!, {
    policy: createAddressPolicy(config.cardFetch.allowedHosts, { ...cardFetchUse, field: 'url' }),
    timeoutMs: limits.fetchTimeoutMs,
    maxBytes: limits.maxBytes,
    userAgent: `cardgate/${version}`,
    redirectsToOtherHosts: false,
  });
  if ('problem' in fetched) throw new ToolError(fetched.problem.startsWith('url ') ? fetched.problem : `url ${source.url}: ${fetched.problem}`);
  return { name: fetched.source.url, text: fetched.text };
};

/** The ruleset asked for: a built-in by name, or a ruleset file under a root; by default the nearest ruleset file, as cardgate validate finds it. */
const rulesetOf = async (asked: string | undefined, local: Local): Promise<CompiledRulesetData | undefined> => {
  const builtin = asked === undefined ? undefined : builtinServerRuleset(asked);
  if (builtin) return builtin.data;
  const loaded = asked === undefined ? await rulesetForRun(undefined, local.cwd) : await loadRulesetFile(await readablePath(asked, local));
  if ('problem' in loaded) throw new ToolError(`ruleset: ${loaded.problem}`);
  return loaded.ruleset;
};

/** The card read and checked offline; a card that could not be is the tool's error. */
const checked = async (source: CardSource, ask: ValidateAsk, local: Local): Promise<CheckedInput & { text: string }> => {
  const { name, text } = await readCard(source, local);
  const input = await checkOffline(local.limits, { protocolVersion: ask.version, ruleset: await rulesetOf(ask.ruleset, local) })(name, text);
  if (input.failure || !input.result) throw new ToolError(`${name}: ${input.failure?.message ?? 'no card'}`);
  return { ...input, text };
};

/** A result as a tool answers it, its findings cut to the answer's bound (as the service's answers are). */
const bounded = <T>(input: CheckedInput & { text: string }, build: (result: Record<string, unknown>) => T): T =>
  withinBudget([input.result!], ([shown]) => build(shown as unknown as Record<string, unknown>), (answer) => Buffer.byteLength(JSON.stringify(answer)), answerBudget(Buffer.byteLength(input.text)));

const localDoor = (local: Local): McpDoor => ({
  validate: async (source, ask): Promise<ValidateOutput> => {
    const input = await checked(source, ask, local);
    return bounded(input, (result) => validateOutputOf(input.name, result));
  },
  diff: async (before, after, ask) => {
    oneSource(before, 'before');
    oneSource(after, 'after');
    const [a, b] = [await checked(before, ask, local), await checked(after, ask, local)];
    const diff = diffInputs(a, b);
    if ('problem' in diff) throw new ToolError(diff.problem);
    const side = (input: CheckedInput) => ({ source: input.name, valid: input.result!.valid, score: input.result!.score });
    return { before: side(a), after: side(b), ...diff };
  },
  probe: async (url): Promise<ProbeOutput> => {
    const refused = probeRefusal(local.config, url);
    if (refused) throw new ToolError(refused);
    const input = await probeChecked({ config: local.config, ask: { sendMessage: false, headers: {} } }, { url });
    if (input.failure || !input.result || input.text === undefined) throw new ToolError(`${input.name}: ${input.failure?.message ?? 'no card'}`);
    return bounded({ ...input, text: input.text }, (result) => probeOutputOf(input.name, result, result.live));
  },
});

export async function runMcp(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('mcp', help, io, args, { root: { type: 'string', multiple: true }, config: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const { values } = line;
  const config = commandConfig('mcp', io, { env: io.env ?? process.env, ...(values.config === undefined ? {} : { configPath: values.config }) });
  if (typeof config === 'number') return config;
  const cwd = process.cwd();
  const roots: string[] = [];
  for (const root of values.root ?? ['.']) {
    const real = await realpath(path.resolve(cwd, root)).catch(() => undefined);
    if (real === undefined) return line.usage(`--root ${root}: no such directory`);
    roots.push(real);
  }
  const { door, settled } = tracked(localDoor({ config, limits: runLimits(config), roots, cwd }));
  const server = mcpServer(door);
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await ended;
  // A client may end its input right after its last call: that call is answered first.
  await settled();
  await server.close();
  return 0;
}

/** The door with its calls counted, and a wait for those under way (and the turn that sends their answers). */
const tracked = (door: McpDoor): { door: McpDoor; settled: () => Promise<void> } => {
  const pending = new Set<Promise<unknown>>();
  const track = <A extends unknown[], R>(run: (...args: A) => Promise<R>) => (...args: A): Promise<R> => {
    const promise = run(...args);
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => undefined);
    return promise;
  };
  return {
    door: { ...door, validate: track(door.validate), diff: track(door.diff), probe: track(door.probe) },
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
};
