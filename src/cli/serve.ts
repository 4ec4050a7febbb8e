/**
 * `cardgate serve`: load the configuration, take the data dir, listen, and on
 * SIGTERM/SIGINT shut down gracefully: /readyz turns 503, no new connections,
 * in-flight requests and job deliveries finish (bounded), the store is
 * flushed, the lock released, exit 0.
 */
import { createApp, type App } from '../app.ts';
import { systemClock } from '../lib/clock.ts';
import { ConfigError, configFlags, loadConfig, resolveUrls, type Config } from '../config.ts';
import { Lifecycle } from '../lib/lifecycle.ts';
import { createLogger, type Logger } from '../lib/log.ts';
import { ensureAdminToken } from '../features/accounts/admin-token.ts';
import { cardFetchUse } from '../features/validation/card-by-url.ts';
import { callbackUse } from '../features/webhooks/deliver.ts';
import { parseAllowedHosts } from '../lib/address-policy.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/types.ts';
import { version } from '../lib/version.ts';
import { createValidator } from '../features/validation/validation-pool.ts';
import { readCommandLine } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

export const serveHelp = `Usage: cardgate serve [options]

Runs the HTTP service (the default subcommand).

Options:
  --config PATH        JSON configuration file (default: ./cardgate.json when present)
  --host HOST          interface to listen on (default 127.0.0.1)
  --port N             port (default 8080; 0 = any free port)
  --data-dir DIR       data directory (default ./data)
  --public-url URL     {base_url} used in status links
  --reports-url URL    {reports_url} used in report links
  -h, --help           show this help

Every setting can also come from CARDGATE_* environment variables; see the README.
`;

/** Opens the store or explains why not (a lock held by another process names its pid; a database is named without its password). */
const openStoreOrExplain = async (config: Config, io: CliIO, log: Logger): Promise<Store | undefined> => {
  try {
    return await openStore(config, log);
  } catch (e) {
    io.stderr(`cardgate: ${(e as Error).message}\n`);
    return undefined;
  }
};

export const runServe = async (args: string[], io: CliIO): Promise<number> => {
  const options = Object.fromEntries(Object.keys(configFlags).map((name) => [name, { type: 'string' as const }]));
  const line = readCommandLine('serve', serveHelp, io, args, { ...options, config: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const { config: configPath, ...flags } = line.values as Record<string, string | undefined>;
  let config: Config;
  try {
    config = loadConfig({ flags, configPath });
    // Checked here so a bad entry stops start-up (exit 2), not the first request.
    parseAllowedHosts(config.webhooks.allowedHosts, callbackUse);
    parseAllowedHosts(config.cardFetch.allowedHosts, cardFetchUse);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`cardgate: ${e.message}\n`);
      return USAGE;
    }
    throw e;
  }

  // Whatever this process creates is for its user only (the store also sets its modes itself).
  process.umask(0o077);
  const log = createLogger();
  const store = await openStoreOrExplain(config, io, log);
  if (!store) return 1;
  const admin = await ensureAdminToken(store, config);
  if (admin.source === 'generated') {
    io.stdout(`admin token (shown once, only its hash is stored; keep it for /dashboard and /admin/api): ${admin.token}\n`);
  }

  // Loaded lazily: @hono/node-server pulls in node:http and undici (~24 ms) that the other subcommands never need.
  const { createNodeServer } = await import('../api/node-server.ts');
  const lifecycle = new Lifecycle();
  let app: App | undefined;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const server = createNodeServer(async (request, env) => {
    inFlight++;
    try {
      return await app!.fetch(request, env);
    } finally {
      if (--inFlight === 0) idle?.();
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (e) {
    io.stderr(`cardgate: cannot listen on ${config.host}:${config.port}: ${(e as Error).message}\n`);
    await store.close();
    return 1;
  }
  // The app is built once the port is known (port 0 = any): its URLs name it. No request is
  // read before this continuation runs, since 'listening' is emitted ahead of any connection.
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const urls = resolveUrls(config, port);
  const validator = createValidator(config, log);
  app = createApp({ config, store, clock: systemClock, log, urls, lifecycle, validator });
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  log.info('listening', { version, url: `http://${shownHost}:${port}`, public_url: urls.publicUrl, data_dir: config.dataDir, pid: process.pid });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) {
        log.warn('second signal: exiting at once', { signal });
        process.exit(1);
      }
      stopping = true;
      log.info('shutting down', { signal, in_flight: inFlight });
      const deadline = Date.now() + config.shutdown.graceMs;
      lifecycle.draining = true;
      server.close();
      server.closeIdleConnections();
      const requestsDone = inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => (idle = r));
      const remaining = () => Math.max(0, deadline - Date.now());
      await Promise.race([requestsDone, new Promise((r) => setTimeout(r, remaining()).unref())]);
      server.closeAllConnections();
      // Jobs first: one still validating at the deadline is interrupted and left for the next start;
      // closing the workers under it would fail it instead.
      await lifecycle.drain(remaining());
      await validator.close();
      try {
        await store.close();
      } catch (e) {
        log.error('store flush failed at shutdown', { error: (e as Error).message });
        resolve(1);
        return;
      }
      log.info('stopped', { signal });
      resolve(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  });
};
