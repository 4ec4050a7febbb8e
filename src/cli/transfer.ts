/**
 * `cardgate export` and `cardgate import`: everything a store keeps, as a stream of JSON lines
 * (see store/transfer.ts), out of the store `serve` would use and into another. With
 * CARDGATE_DATABASE_URL unset the store is the data dir's; set, the database: so a data dir moves
 * into PostgreSQL with `cardgate export --data-dir DIR | CARDGATE_DATABASE_URL=… cardgate import -`,
 * and back the other way.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Readable, type Writable } from 'node:stream';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createLogger, silentLogger } from '../lib/log.ts';
import { systemClock } from '../lib/clock.ts';
import { cliAuditContext, recordAudit } from '../features/audit/audit.ts';
import { adminTokenFile } from '../features/accounts/admin-token.ts';
import { version } from '../lib/version.ts';
import { openStore } from '../store/open.ts';
import { ImportReader, exportHeader, exportText, type TransferRow } from '../store/transfer.ts';
import type { Store } from '../store/contract/store.ts';
import type { StoreTransfer } from '../store/transfer.ts';
import { readTextFile, type ReadBound } from '../lib/read-file.ts';
import { readCommandLine } from './args.ts';
import { boundedLines, importLineBound, importSource, type ImportSource } from './import-source.ts';
import { USAGE, type CliIO } from './io.ts';
import { commandConfig } from './cli-config.ts';

const storeNote = `The store is the one 'cardgate serve' would use with the same configuration: the
PostgreSQL database of store.databaseUrl (CARDGATE_DATABASE_URL) when set, else the data dir
(only while no server holds it).`;

export const exportHelp = `Usage: cardgate export [--config PATH] [--data-dir DIR] [--url URL] [--output FILE]

Writes everything the store keeps (accounts, API keys, daily quota counters, usage, jobs, meta
and reports) as JSON lines, to stdout or FILE (created 0600: it holds key hashes and cards).
${storeNote}
With --url, from a running server instead (GET /admin/api/export, one snapshot while it goes on
serving), with the admin token of adminToken (CARDGATE_ADMIN_TOKEN), else of the data dir's
admin-token file.

Options:
  --config PATH      JSON configuration file (default: ./cardgate.json when present)
  --data-dir DIR     data directory (default ./data)
  --url URL          the running server to export from, e.g. http://127.0.0.1:8080
  -o, --output FILE  write to FILE instead of stdout
  -h, --help         show this help
`;

export const importHelp = `Usage: cardgate import [--config PATH] [--data-dir DIR] [--force] FILE|-

Reads what 'cardgate export' wrote (FILE, or - for stdin) into the store. A store that already
holds anything is refused unless --force: then each row replaces the row of its key and the
others stay. Importing the same export again changes nothing. Into PostgreSQL the import is one
transaction: a bad line keeps nothing.
${storeNote}

Options:
  --config PATH     JSON configuration file (default: ./cardgate.json when present)
  --data-dir DIR    data directory (default ./data)
  --force           import into a store that is not empty
  -h, --help        show this help

Exit codes: 0 imported, 1 refused or failed (the message names the line), 2 usage error.
`;

const contextOptions = { config: { type: 'string' }, 'data-dir': { type: 'string' } } as const;

type TransferStore = Store & StoreTransfer;

/** The configuration of the command line, or says why there is none (returning the exit code). */
const transferConfig = (command: string, io: CliIO, values: { config?: string; 'data-dir'?: string }): Config | number =>
  commandConfig(command, io, { flags: { 'data-dir': values['data-dir'] }, configPath: values.config });

/** Opens the configuration's store, or says why not (returning the exit code). */
const openTransferStore = async (command: string, io: CliIO, config: Config): Promise<TransferStore | number> => {
  // What the store says at open goes to stderr: stdout may be the export itself.
  const log = { ...createLogger((line) => io.stderr(`${line}\n`)), info: () => {} };
  try {
    return await openStore(config, log);
  } catch (e) {
    io.stderr(`cardgate ${command}: ${(e as Error).message}\n`);
    return 1;
  }
};

/** How many rows of each table went, e.g. `accounts 2, keys 3, reports 10`. */
const tally = (): { add: (row: TransferRow) => void; toString: () => string } => {
  const counts = new Map<string, number>();
  return {
    add: (row) => void counts.set(row.table, (counts.get(row.table) ?? 0) + 1),
    toString: () => [...counts].map(([table, n]) => `${table} ${n}`).join(', ') || 'nothing',
  };
};

/** Writes, waiting whenever the sink asks to (an export may be far larger than memory). */
const write = async (sink: Writable, text: string): Promise<void> => {
  if (!sink.write(text)) await once(sink, 'drain');
};

/** Where the export goes: stdout, or a new file only its owner can read. */
const exportSink = (output: string | undefined): Writable => (output === undefined ? process.stdout : createWriteStream(output, { mode: 0o600 }));

/** Ends a file sink once everything is written to disk (stdout is left open). */
const endSink = (sink: Writable): Promise<void> =>
  sink === process.stdout ? Promise.resolve() : new Promise<void>((resolve, reject) => sink.end((e?: Error | null) => (e ? reject(e) : resolve())));

/** The admin token for --url: the configured one, else the one the data dir's server generated. */
const adminTokenOf = (config: Config): string | undefined => {
  if (config.adminToken !== undefined) return config.adminToken;
  // Bounded as every file the CLI reads: a token is 64 characters.
  const read = readTextFile(adminTokenFile(config), { maxBytes: 4096, what: 'an admin token file' });
  return 'text' in read ? read.text.trim() || undefined : undefined;
};

/** `export --url`: the server's export, passed through as it comes; the rows counted by their table. */
const exportFromServer = async (url: string, values: { config?: string; 'data-dir'?: string; output?: string }, io: CliIO): Promise<number> => {
  if (!/^https?:\/\/[^/]+/.test(url) || !URL.canParse(url)) return fail(io, `--url must be an absolute http(s) URL, not ${JSON.stringify(url.slice(0, 200))}`, USAGE);
  let token: string | undefined;
  try {
    token = adminTokenOf(loadConfig({ flags: { 'data-dir': values['data-dir'] }, configPath: values.config }));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return fail(io, e.message, USAGE);
  }
  if (token === undefined) return fail(io, 'no admin token: set CARDGATE_ADMIN_TOKEN (or adminToken), or give the --data-dir whose admin-token file the server wrote', USAGE);
  const endpoint = `${url.replace(/\/+$/, '')}/admin/api/export`;
  const counted = new Map<string, number>();
  try {
    const res = await fetch(endpoint, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200 || !res.body) return fail(io, `${endpoint} answered HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`, 1);
    const sink = exportSink(values.output);
    let first = true;
    for await (const text of createInterface({ input: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), crlfDelay: Infinity })) {
      if (first && !text.startsWith('{"format":"cardgate-export"')) return fail(io, `${endpoint} did not answer with a cardgate export`, 1);
      const table = first ? undefined : /^\{"table":"([a-z_]+)"/.exec(text)?.[1];
      if (table) counted.set(table, (counted.get(table) ?? 0) + 1);
      first = false;
      await write(sink, `${text}\n`);
    }
    await endSink(sink);
  } catch (e) {
    const cause = (e as Error).cause instanceof Error ? `: ${((e as Error).cause as Error).message}` : '';
    return fail(io, `${endpoint}: ${(e as Error).message}${cause} (the export is incomplete)`, 1);
  }
  io.stderr(`cardgate export: exported ${[...counted].map(([table, n]) => `${table} ${n}`).join(', ') || 'nothing'}\n`);
  return 0;
};

const fail = (io: CliIO, message: string, code: number): number => {
  io.stderr(`cardgate export: ${message}\n`);
  return code;
};

export const runExport = async (args: string[], io: CliIO): Promise<number> => {
  const line = readCommandLine('export', exportHelp, io, args, { ...contextOptions, output: { type: 'string', short: 'o' }, url: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  if (line.values.url !== undefined) return exportFromServer(line.values.url, line.values, io);
  const config = transferConfig('export', io, line.values);
  if (typeof config === 'number') return config;
  const store = await openTransferStore('export', io, config);
  if (typeof store === 'number') return store;
  const sink = exportSink(line.values.output);
  const counted = tally();
  try {
    for await (const chunk of exportText(store.exportRows(), exportHeader(version, Date.now()), counted.add)) await write(sink, chunk);
    await endSink(sink);
  } catch (e) {
    io.stderr(`cardgate export: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await store.close();
  }
  io.stderr(`cardgate export: exported ${counted}\n`);
  return 0;
};

/** The rows of one read of the source, line by line (a report line may run to megabytes: never the whole input at once). */
async function* rowsOf(source: ImportSource, bound: ReadBound, counted?: ReturnType<typeof tally>): AsyncGenerator<TransferRow> {
  const { stream, copy } = source.read();
  const reader = new ImportReader();
  for await (const text of boundedLines(stream, bound, copy)) {
    const row = reader.read(text);
    if (row === undefined) continue;
    counted?.add(row);
    yield row;
  }
  reader.end();
}

const isEmpty = async (store: TransferStore): Promise<boolean> => {
  for await (const _row of store.exportRows()) return false;
  return true;
};

/** Every line checked before the store is opened: a bad one names its line and keeps nothing, on every engine. */
const checkAll = async (source: ImportSource, bound: ReadBound): Promise<void> => {
  for await (const _row of rowsOf(source, bound));
  await source.kept();
};

export const runImport = async (args: string[], io: CliIO): Promise<number> => {
  const line = readCommandLine('import', importHelp, io, args, { ...contextOptions, force: { type: 'boolean' } });
  if ('exit' in line) return line.exit;
  if (line.positionals.length !== 1 || line.positionals[0] === '') return line.usage('give one FILE to import (or - for stdin)');
  const [from] = line.positionals as [string];
  const config = transferConfig('import', io, line.values);
  if (typeof config === 'number') return config;
  // Opened first: a missing file is told before the store is opened (and, for a data dir, created).
  const source = await importSource(from, process.stdin);
  if ('problem' in source) {
    io.stderr(`cardgate import: cannot read ${from}: ${source.problem}\n`);
    return 1;
  }
  const bound = importLineBound(config.http.maxBodyBytes);
  try {
    await checkAll(source, bound);
  } catch (e) {
    await source.close();
    io.stderr(`cardgate import: ${(e as Error).message}; nothing was imported\n`);
    return 1;
  }
  const store = await openTransferStore('import', io, config);
  if (typeof store === 'number') {
    await source.close();
    return store;
  }
  const counted = tally();
  try {
    if (!line.values.force && !(await isEmpty(store))) {
      io.stderr('cardgate import: the store is not empty; --force imports into it all the same (each row replaces the row of its key)\n');
      return 1;
    }
    await store.importRows(rowsOf(source, bound, counted));
    const after = { from: from === '-' ? 'stdin' : from, rows: String(counted), forced: line.values.force === true };
    await recordAudit({ store, clock: systemClock, config, log: silentLogger }, cliAuditContext(), { action: 'store.import', target: { type: 'store', id: null }, after });
  } catch (e) {
    io.stderr(`cardgate import: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await source.close();
    await store.close();
  }
  io.stderr(`cardgate import: imported ${counted}\n`);
  return 0;
};
