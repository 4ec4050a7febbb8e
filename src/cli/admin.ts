/**
 * `cardgate accounts …`, `cardgate keys …`, `cardgate trust …` and `cardgate admin-token …`: the configuration comes from
 * --config / --data-dir (and env) like serve's; the store is the data dir's file
 * store, which refuses while a server holds the lock, or the configured database.
 */
import { parseArgs } from 'node:util';
import { commandConfig } from './cli-config.ts';
import { createLogger } from '../lib/log.ts';
import { openStore } from '../store/open.ts';
import { runAccounts } from './accounts.ts';
import type { CliIO } from './io.ts';
import { contextFlags } from './offline-store.ts';
import { runKeys } from './keys.ts';
import { runTrust } from './trust.ts';
import { runAdminToken } from './admin-token.ts';

const commands = { accounts: runAccounts, keys: runKeys, trust: runTrust, 'admin-token': runAdminToken };

export const offlineAdminCommand =
  (name: keyof typeof commands) =>
  async (args: string[], io: CliIO): Promise<number> => {
    // Only the context flags are read here; the subcommand parses (and checks) the full line.
    const { values } = parseArgs({ args, options: contextFlags, strict: false, allowPositionals: true });
    const config = commandConfig(name, io, {
      flags: { 'data-dir': typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined },
      configPath: typeof values.config === 'string' ? values.config : undefined,
    });
    if (typeof config === 'number') return config;
    // What the store repairs at open (a quarantined record, a torn tail) is told on stderr; stdout keeps the command's output.
    const log = { ...createLogger((line) => io.stderr(`${line}\n`)), info: () => {} };
    return commands[name](args, io, { openStore: () => openStore(config, log), config, now: Date.now });
  };
