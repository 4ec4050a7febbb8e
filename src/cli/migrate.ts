/**
 * `cardgate migrate`: applies the PostgreSQL schema migrations this build knows to the database of
 * `store.databaseUrl` and prints what it did. `serve` applies them at start too (under the same
 * lock, so instances starting at once never both migrate); this is for doing it by hand, e.g.
 * before starting a new version on several hosts.
 */
import { commandConfig } from './cli-config.ts';
import { readCommandLine } from './args.ts';
import type { CliIO } from './io.ts';

export const migrateHelp = `Usage: cardgate migrate [--config PATH]

Applies the database schema migrations to the PostgreSQL database of store.databaseUrl
(CARDGATE_DATABASE_URL) and prints each one applied; nothing when it is up to date.

Options:
  --config PATH   JSON configuration file (default: ./cardgate.json when present)
  -h, --help      show this help

Exit codes: 0 up to date, 1 the database cannot be reached or migrated, 2 usage error
(no database configured).
`;

export const runMigrate = async (args: string[], io: CliIO): Promise<number> => {
  const line = readCommandLine('migrate', migrateHelp, io, args, { config: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const config = commandConfig('migrate', io, { configPath: line.values.config });
  if (typeof config === 'number') return config;
  const { databaseUrl, statementTimeoutMs } = config.store;
  if (databaseUrl === undefined) return line.usage('no database configured: set store.databaseUrl or CARDGATE_DATABASE_URL (the file store needs no migration)');
  const { describeDatabaseUrl, migrateDatabase } = await import('../store/postgres/postgres-store.ts');
  let outcome;
  try {
    outcome = await migrateDatabase({ url: databaseUrl, statementTimeoutMs });
  } catch (e) {
    io.stderr(`cardgate migrate: ${(e as Error).message}\n`);
    return 1;
  }
  for (const m of outcome.applied) io.stdout(`applied migration ${m.version}: ${m.name}\n`);
  const state = outcome.applied.length === 0 ? 'up to date' : 'migrated';
  io.stdout(`${describeDatabaseUrl(databaseUrl)}: ${state}, schema version ${outcome.version}\n`);
  return 0;
};
