/**
 * What `cardgate accounts` and `cardgate keys` share: opening the data dir's store
 * (refused while a server holds it), turning service errors into messages and exit
 * codes, and printing small tables.
 */
import type { Config } from '../config.ts';
import { isApiError } from '../errors/api-error.ts';
import { cliAuditContext, type AuditContext } from '../features/audit/audit.ts';
import { silentLogger } from '../lib/log.ts';
import type { Store } from '../store/contract/store.ts';
import { USAGE, type CliIO } from './io.ts';

export type AdminCliIO = Pick<CliIO, 'stdout' | 'stderr'>;

export interface AdminCliContext {
  /** Opens the data dir's store; rejects with an error carrying the owner's `pid` when a server holds it. */
  openStore: () => Promise<Store>;
  config: Config;
  now: () => number;
}

/** What an offline change is made with: the use cases' deps on the opened store, and the CLI's audit actor (the OS user). */
export interface OfflineChange {
  deps: { store: Store; clock: { now: () => number }; config: Config; log: typeof silentLogger };
  by: AuditContext;
}

/** Flags cardgate itself reads to build the context; accepted here so they may appear anywhere on the line. */
export const contextFlags = { config: { type: 'string' }, 'data-dir': { type: 'string' } } as const;

const lockOwnerPid = (e: unknown): number | undefined => {
  const pid = (e as { pid?: unknown } | null)?.pid;
  return typeof pid === 'number' ? pid : undefined;
};

/**
 * Runs `action` on the opened store and closes it after. Bad input from the service
 * (INVALID_REQUEST) is a usage error (exit 2); unknown ids and a held data dir exit 1.
 */
export const withStore = async (
  command: string,
  io: AdminCliIO,
  ctx: AdminCliContext,
  action: (store: Store, change: OfflineChange) => Promise<void>,
  /** What to do instead while a server holds the data dir. */
  whileHeld = 'use the admin API /admin/api or stop the server',
): Promise<number> => {
  let store: Store;
  try {
    store = await ctx.openStore();
  } catch (e) {
    const pid = lockOwnerPid(e);
    io.stderr(
      pid !== undefined
        ? `cardgate ${command}: data dir is in use by a running cardgate server (pid ${pid}); ${whileHeld}\n`
        : `cardgate ${command}: cannot open the store: ${(e as Error).message}\n`,
    );
    return 1;
  }
  try {
    await action(store, { deps: { store, clock: { now: ctx.now }, config: ctx.config, log: silentLogger }, by: cliAuditContext() });
    await store.commit();
    return 0;
  } catch (e) {
    if (!isApiError(e)) throw e;
    io.stderr(`cardgate ${command}: ${e.message}\n`);
    return e.code === 'INVALID_REQUEST' ? USAGE : 1;
  } finally {
    await store.close();
  }
};

/** Left-aligned columns separated by two spaces. */
export const table = (header: string[], rows: string[][]): string => {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
};

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
