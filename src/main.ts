/**
 * Entry point: dispatches subcommands. A subcommand is required: `cardgate` alone starts nothing
 * (a service started by a typo, or by a bare `cardgate` in a CI image, would hold a port).
 * Exit codes: 0 success, 1 failure (or invalid card for `validate`), 2 usage error.
 */
import v8 from 'node:v8';
import { readCommandLine, usageError } from './cli/args.ts';
import { processIO, USAGE, type CliIO } from './cli/io.ts';
import { version, versionLine } from './lib/version.ts';

const help = `cardgate ${version}: A2A agent-card validation service

Usage: cardgate <subcommand> [options]    (cardgate serve runs the service)

Subcommands:
  serve               run the HTTP service
  validate INPUT...   validate agent cards (files, directories, globs, URLs, -) offline
  probe URL|FILE      validate a card and probe the agent behind it (read-only unless --send-message)
  diff OLD NEW        compare two cards: breaking, compatible and cosmetic changes, findings new and fixed
  mcp                 serve cardgate's MCP tools over stdio (for coding assistants)
  rules               list the rules with their effective severity (--ruleset FILE)
  ruleset check FILE  check a ruleset file, problems at line:column
  sign CARD           add a JWS signature to an agent card (--key PRIVATE.jwk)
  keygen              make a signing key pair (NAME.private.jwk, NAME.jwks)
  accounts ...        manage accounts in the data dir (when no server holds it)
  keys ...            manage API keys in the data dir (when no server holds it)
  trust ...           manage the keys signed agent cards are verified with
  admin-token rotate  replace the generated admin token (its file and stored hash)
  healthcheck [URL]   exit 0 when the service at URL answers /healthz (default http://127.0.0.1:8080)
  migrate             apply the database schema migrations (PostgreSQL store only)
  export              write everything the store keeps as JSON lines
  import FILE|-       read what export wrote into the store
  version             print the version and the Node.js runtime (-V, --version: the version alone)

Run 'cardgate <subcommand> --help' for the options of each.
`;

const versionHelp = `Usage: cardgate version

Prints the version (as -V and --version do).
`;

type Subcommand = (args: string[], io: CliIO) => Promise<number>;

const subcommands: Record<string, () => Promise<Subcommand>> = {
  serve: async () => (await import('./cli/serve.ts')).runServe,
  validate: async () => (await import('./cli/validate.ts')).runValidate,
  probe: async () => (await import('./cli/probe.ts')).runProbeCommand,
  diff: async () => (await import('./cli/diff.ts')).runDiff,
  mcp: async () => (await import('./cli/mcp.ts')).runMcp,
  rules: async () => (await import('./cli/rules.ts')).runRules,
  ruleset: async () => (await import('./cli/ruleset.ts')).runRuleset,
  sign: async () => (await import('./cli/sign.ts')).runSign,
  keygen: async () => (await import('./cli/sign.ts')).runKeygen,
  accounts: async () => (await import('./cli/admin.ts')).offlineAdminCommand('accounts'),
  keys: async () => (await import('./cli/admin.ts')).offlineAdminCommand('keys'),
  trust: async () => (await import('./cli/admin.ts')).offlineAdminCommand('trust'),
  'admin-token': async () => (await import('./cli/admin.ts')).offlineAdminCommand('admin-token'),
  healthcheck: async () => (await import('./cli/healthcheck.ts')).runHealthcheck,
  migrate: async () => (await import('./cli/migrate.ts')).runMigrate,
  export: async () => (await import('./cli/transfer.ts')).runExport,
  import: async () => (await import('./cli/transfer.ts')).runImport,
  version: async () => async (args, io) => {
    const line = readCommandLine('version', versionHelp, io, args, {}, { allowPositionals: false });
    if ('exit' in line) return line.exit;
    io.stdout(`${versionLine()}\n`);
    return 0;
  },
};

/** What a usage error of the line itself shows: the form and the subcommands' names. */
const usage = (problem: string, io: CliIO): number => {
  io.stderr(usageError('cardgate', problem, `Usage: cardgate <subcommand> [options]\nSubcommands: ${Object.keys(subcommands).join(', ')}`));
  return USAGE;
};

// Not exported: the start-up snapshot is taken of this bundle run as a script, which has no `module`.
const main = async (argv: string[], io: CliIO = processIO): Promise<number> => {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(help);
    return 0;
  }
  // Scripts parse `--version`: the bare version, as before.
  if (first === '--version' || first === '-V') {
    io.stdout(`${version}\n`);
    return 0;
  }
  if (first === undefined) return usage('a subcommand is required', io);
  if (first.startsWith('-')) return usage(`a subcommand is required; to run the service: cardgate serve ${argv.join(' ')}`, io);
  const load = Object.hasOwn(subcommands, first) ? subcommands[first] : undefined;
  if (!load) return usage(`unknown subcommand '${first}'`, io);
  return (await load())(rest, io);
};

/**
 * Exits explicitly (a finished `serve` must not linger on a stray timer or socket), but only once
 * stdout and stderr have taken everything written: into a pipe, writes are asynchronous and an
 * immediate exit cuts the output at the pipe's buffer (64 KiB).
 */
const exitWhenFlushed = (code: number): void => {
  process.exitCode = code;
  let open = 2;
  const flushed = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
};

const run = (): void => {
  main(process.argv.slice(2)).then(exitWhenFlushed, (e) => {
    process.stderr.write(`cardgate: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    exitWhenFlushed(1);
  });
};

// Building the single executable's start-up snapshot (build/build.mjs): the modules of `validate` and
// `serve` are loaded and set up now, once; the binary runs `run` with its own command line.
if (v8.startupSnapshot?.isBuildingSnapshot()) {
  v8.startupSnapshot.setDeserializeMainFunction(run);
  void Promise.all([subcommands.validate!(), subcommands.serve!(), import('./cli/warm-up.ts')]).then(([, , { warmUp }]) => warmUp());
} else run();
