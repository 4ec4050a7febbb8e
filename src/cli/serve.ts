/**
 * `cardgate serve`: reads the arguments and the configuration, then starts the service as the tests
 * and the benchmarks do (startServer, src/server.ts), handling the signals: SIGTERM/SIGINT shut it
 * down gracefully (exit 0; 1 when the store could not be flushed), SIGHUP reads the trusted key
 * files and the default ruleset again.
 */
import { ConfigError, configFlags, loadConfig, withAbsolutePaths } from '../config.ts';
import { startServer, StartFailed } from '../server.ts';
import { readCommandLine } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

export const serveHelp = `Usage: cardgate serve [options]

Runs the HTTP service.

Options:
  --config PATH        JSON configuration file (default: ./cardgate.json when present)
  --host HOST          interface to listen on (default 127.0.0.1)
  --port N             port (default 8080; 0 = any free port)
  --data-dir DIR       data directory (default ./data)
  --public-url URL     {base_url} used in status links
  --reports-url URL    {reports_url} used in report links
  --sidecar            sidecar mode, for an instance beside one CI job: keyless callers are
                       unmetered (validations and batches); refused with limits.trustedProxies
  -h, --help           show this help

Every setting can also come from CARDGATE_* environment variables; see docs/configuration.md.
`;

export const runServe = async (args: string[], io: CliIO): Promise<number> => {
  const options = Object.fromEntries(Object.keys(configFlags).map((name) => [name, { type: 'string' as const }]));
  const line = readCommandLine('serve', serveHelp, io, args, { ...options, config: { type: 'string' }, sidecar: { type: 'boolean' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const { config: configPath, sidecar, ...flags } = line.values as Record<string, string | undefined> & { sidecar?: boolean };
  try {
    const server = await startServer(withAbsolutePaths(loadConfig({ flags, configPath, sidecar })), { output: io, signals: true });
    return await server.stopped;
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`cardgate: ${e.message}\n`);
      return USAGE;
    }
    if (e instanceof StartFailed) return 1; // said on stderr
    throw e;
  }
};
