/**
 * A data directory of the first embedded layout (test/store/fixtures/layout-v1: written by the
 * release before the database, through its HTTP API) is upgraded in place at open: everything it
 * held is there after, as its own export said, and a crash at any step of the upgrade (each disk
 * change and database commit, as the crash-points test takes them) is resumed by the next open
 * with nothing lost.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { memoryLogger } from '../../src/lib/log.ts';
import { observeDiskChanges } from '../../src/store/file/durable-file.ts';
import { openFileStore, type FileStore } from '../../src/store/file/file-store.ts';
import { Recovery } from '../../src/store/file/recovery.ts';
import { importSegments, oldSegments, removeSegments } from '../../src/store/file/upgrade.ts';
import { copyWhileWritten, tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-upgrade-');
const fixture = new URL('./fixtures/layout-v1/', import.meta.url).pathname;

/** A copy of the fixture's data dir (git keeps no modes: the store tightens them). */
const copyOfFixture = (): string => {
  const dir = path.join(tempDir(), 'data');
  fs.cpSync(path.join(fixture, 'data'), dir, { recursive: true });
  return dir;
};

type Rows = Record<string, string[]>;

/** The rows of an export, by table, each as canonical JSON (keys sorted), sorted: the order of rows is no part of what is kept. */
const byTable = (lines: Iterable<{ table: string; text: string }>): Rows => {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(canonical) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)])) : value;
  const rows: Rows = {};
  for (const { table, text } of lines) (rows[table] ??= []).push(table === 'reports' ? text : JSON.stringify(canonical(JSON.parse(text))));
  for (const list of Object.values(rows)) list.sort();
  return rows;
};

const expected = (): Rows => {
  const lines = fs
    .readFileSync(path.join(fixture, 'export.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1) // the header
    .map((line) => JSON.parse(line) as { table: string; row?: Record<string, unknown>; line?: string });
  // An agent's default branch: the branch of its first entry that named one (none: none set).
  const firstBranch = new Map<unknown, unknown>();
  for (const { table, row } of lines) if (table === 'agent_reports' && row!.branch !== null && !firstBranch.has(row!.agent_id)) firstBranch.set(row!.agent_id, row!.branch);
  return byTable(
    lines.map(({ table, row, line: report }) => {
      // An agent of the first layout reads as one no monitor has checked since, a monitor as one that does not probe or name its agent (fields added later).
      const later = table === 'agents' ? { last_checked_at: null, unchanged_runs: 0, default_branch: firstBranch.get(row!.id) ?? null } : table === 'monitors' ? { live: false, agent: null } : {};
      const kept = { ...later, ...row };
      return { table, text: table === 'reports' ? report! : JSON.stringify(kept) };
    }),
  );
};

const exported = async (store: FileStore): Promise<Rows> => {
  const lines: Array<{ table: string; text: string }> = [];
  for await (const row of store.exportRows()) lines.push({ table: row.table, text: row.table === 'reports' ? row.line : JSON.stringify(row.row) });
  return byTable(lines);
};

test('a data dir of the first layout is upgraded at open: every row and report is there, the segments are gone, the log says so', async () => {
  const dir = copyOfFixture();
  const log = memoryLogger();
  const store = await openFileStore({ dataDir: dir, log });
  try {
    assert.deepEqual(await exported(store), expected());
    const snapshot = JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(snapshot.format, 2);
    assert.deepEqual(['agents', 'agent_reports', 'jobs', 'audit'].filter((t) => t in snapshot), []);
    // What the service reads: a report by its GitHub alias, an agent's history, a job's status.
    // Both runs posted the same commit of the same repository: the later report holds its sha.
    const aliased = (await exported(store)).reports!.map((line) => JSON.parse(line) as { id: string; alias?: string; created_at: string }).filter((r) => r.alias);
    const holder = aliased.sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0]!;
    assert.equal(aliased.length, 2);
    assert.equal((await store.getReport(holder.alias!))?.id, holder.id);
    const page = await store.pageAgents({ sort: 'name', descending: false, limit: 50 });
    const billing = page.items.find((a) => a.name === 'acme/billing-agent')!;
    assert.equal((await store.listAgentReports(billing.id, { limit: 10 })).length, billing.counts.reports);
  } finally {
    await store.close();
  }
  assert.equal(fs.existsSync(path.join(dir, 'reports')), false);
  const upgraded = log.lines.find((l) => l.msg === 'store upgraded to the present layout');
  assert.equal(upgraded?.reports, expected().reports!.length);
  assert.equal(typeof upgraded?.ms, 'number');
  // Opened again: nothing more to upgrade.
  const log2 = memoryLogger();
  const again = await openFileStore({ dataDir: dir, log: log2 });
  assert.deepEqual(await exported(again), expected());
  await again.close();
  assert.equal(log2.lines.some((l) => String(l.msg).startsWith('store upgrade')), false);
});

test('an upgrade killed at any of its steps is resumed by the next open, losing nothing', async (t) => {
  const dir = copyOfFixture();
  const crashes: Array<{ dir: string; file: string }> = [];
  observeDiskChanges((file) => {
    const copy = path.join(tempDir(), 'data');
    copyWhileWritten(dir, copy, (src) => path.basename(src) !== 'cardgate.lock');
    crashes.push({ dir: copy, file: path.relative(dir, file) });
  });
  try {
    const store = await openFileStore({ dataDir: dir });
    await store.close();
  } finally {
    observeDiskChanges();
  }
  t.diagnostic(`${crashes.length} crash points: ${[...new Set(crashes.map((c) => c.file))].join(', ')}`);
  // The database's commits, the new snapshot (its journal rotation, its write) and the segments' deletion.
  for (const file of ['cardgate.db', 'store.journal', 'reports']) assert.ok(crashes.some((c) => c.file === file), `a crash point before a change of ${file}`);
  for (const crash of crashes) {
    const resumed = await openFileStore({ dataDir: crash.dir });
    try {
      assert.deepEqual(await exported(resumed), expected(), `resumed after a crash before a change of ${crash.file}`);
    } finally {
      await resumed.close();
    }
    assert.equal(fs.existsSync(path.join(crash.dir, 'reports')), false);
  }
});

/** A data dir holding the first layout's segment directory with these files (name: text), written in this order. */
const segmentsDir = (files: Record<string, string>): { dir: string; reports: string } => {
  const dir = tempDir();
  const reports = path.join(dir, 'reports');
  fs.mkdirSync(reports);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(reports, name), text);
  return { dir, reports };
};

test('the first layout\'s segments: only the files named seg-<n>.jsonl, by number (seg-10 after seg-9), not by name or by when they were written', () => {
  assert.deepEqual(oldSegments(tempDir()), [], 'no segment directory: the present layout');
  // Written in an order that is neither by number, nor by name, nor its reverse.
  const numbers = [7, 12, 1, 10, 3, 9, 2, 11, 5, 8, 4, 6];
  const nearMisses = ['xseg-13.jsonl', 'seg-14.jsonl.bak', 'seg-15.jsonlx', 'seg-.jsonl', 'seg-a.jsonl', 'seg-16.json', 'seg-17-jsonl', 'Seg-18.jsonl', 'seg-19.JSONL'];
  const { dir, reports } = segmentsDir(Object.fromEntries([...numbers.map((n) => `seg-${n}.jsonl`), ...nearMisses].map((name) => [name, ''])));
  assert.deepEqual(
    oldSegments(dir),
    [...numbers].sort((a, b) => a - b).map((n) => path.join(reports, `seg-${n}.jsonl`)),
  );
  // Zero-padded names, as the first layout wrote them, are ordered by number too.
  const padded = segmentsDir({ 'seg-000010.jsonl': '', 'seg-000002.jsonl': '', 'seg-9.jsonl': '' });
  assert.deepEqual(oldSegments(padded.dir), ['seg-000002.jsonl', 'seg-9.jsonl', 'seg-000010.jsonl'].map((name) => path.join(padded.reports, name)));
});

test('a segment\'s line that is not a report (no id, no created_at date) is quarantined with its reason; the reports are put in order', async () => {
  const valid = (id: string) => JSON.stringify({ id, created_at: '2026-11-29T07:04:59.072Z' });
  const notReports = [
    JSON.stringify({ created_at: '2026-11-29T07:04:59.072Z' }),
    JSON.stringify({ id: 5, created_at: '2026-11-29T07:04:59.072Z' }),
    JSON.stringify({ id: 'rpt_x' }),
    JSON.stringify({ id: 'rpt_x', created_at: 0 }),
    JSON.stringify({ id: 'rpt_x', created_at: 'yesterday' }),
    'null',
    '5',
    '"rpt_x"',
  ];
  const first = [valid('rpt_1'), ...notReports.slice(0, 4), valid('rpt_2')];
  const second = [...notReports.slice(4), valid('rpt_3')];
  const { dir, reports } = segmentsDir({ 'seg-2.jsonl': `${second.join('\n')}\n`, 'seg-1.jsonl': `${first.join('\n')}\n` });
  const log = memoryLogger();
  const put: string[] = [];
  assert.equal(await importSegments(oldSegments(dir), new Recovery(dir, log), (line) => put.push(line)), 3);
  assert.deepEqual(put, [valid('rpt_1'), valid('rpt_2'), valid('rpt_3')]);
  const quarantined = log.lines.map(({ time: _time, quarantine_file, ...line }) => {
    assert.equal(path.dirname(String(quarantine_file)), path.join(dir, 'quarantine'));
    return line;
  });
  const reason = 'not a report (an id and a created_at date are required)';
  const entry = (file: string, lines: string[], at: number) => {
    const offset = lines.slice(0, at).reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0);
    return { level: 'warn', msg: 'store record quarantined: it cannot be loaded; the service starts without it', file: path.join(reports, file), line: at + 1, offset, bytes: Buffer.byteLength(lines[at]!), reason };
  };
  assert.deepEqual(quarantined, [...[1, 2, 3, 4].map((at) => entry('seg-1.jsonl', first, at)), ...[0, 1, 2, 3].map((at) => entry('seg-2.jsonl', second, at))]);
  // The segments are rewritten without them; the quarantine holds them.
  assert.equal(fs.readFileSync(path.join(reports, 'seg-1.jsonl'), 'utf8'), `${valid('rpt_1')}\n${valid('rpt_2')}\n`);
  assert.equal(fs.readFileSync(path.join(reports, 'seg-2.jsonl'), 'utf8'), `${valid('rpt_3')}\n`);
  const kept = fs.readdirSync(path.join(dir, 'quarantine')).flatMap((name) => fs.readFileSync(path.join(dir, 'quarantine', name), 'utf8').split('\n').filter(Boolean));
  assert.deepEqual(kept.sort(), [...notReports].sort());
});

test('the import yields to the event loop after every batch of reports, and only then', async () => {
  const lines = ['a', 'b', 'c', 'd', 'e'].map((id) => JSON.stringify({ id, created_at: '2026-11-29T07:04:59.072Z' }));
  const { dir } = segmentsDir({ 'seg-1.jsonl': `${lines.slice(0, 3).join('\n')}\n`, 'seg-2.jsonl': `${lines.slice(3).join('\n')}\n` });
  const put: string[] = [];
  const imported = importSegments(oldSegments(dir), new Recovery(dir, memoryLogger()), (line) => put.push(line), 2);
  // Until its first yield the import runs in the call: one batch.
  assert.deepEqual(put, lines.slice(0, 2));
  assert.equal(await imported, 5);
  assert.deepEqual(put, lines);
});

test('once the upgrade is durable, the segments and their directory are deleted, and the log says so', async () => {
  const { dir, reports } = segmentsDir({ 'seg-1.jsonl': '{}\n', 'seg-2.jsonl': '', 'notes.txt': 'kept by no one' });
  fs.writeFileSync(path.join(dir, 'store.json'), '{}');
  const log = memoryLogger();
  await removeSegments(dir, log);
  assert.deepEqual(fs.readdirSync(dir), ['store.json']);
  assert.deepEqual(
    log.lines.map(({ time: _time, ...line }) => line),
    [{ level: 'info', msg: 'store upgrade: the first layout\'s report segments were deleted', dir: reports }],
  );
});
