/** `cardgate export` / `cardgate import`, run as processes: a data dir into PostgreSQL and back. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../src/store/file/file-store.ts';
import type { JobRecord } from '../../src/store/contract/jobs.ts';
import { databaseFactory } from '../support/postgres.ts';
import { newestReports } from '../support/reports.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { iso, report } from '../store/fixtures/records.ts';

const newDir = tempDirFactory('cardgate-transfer-');
const newDatabase = databaseFactory();

const NOW = Date.now();
const noDatabase = { CARDGATE_DATABASE_URL: '' };

/** A data dir holding a row of every kind: accounts, keys, a daily counter with usage, jobs, meta, trusted keys, reports (one verbatim, aliased ones). */
const seedDataDir = async (dataDir: string): Promise<void> => {
  const s = await openFileStore({ dataDir });
  await s.createAccount({ id: 'acct_1', name: 'Acme', plan: 'team', created_at: iso(NOW - 2000) });
  await s.createAccount({ id: 'acct_2', name: 'Zed', plan: 'free', created_at: iso(NOW - 1000) });
  await s.createKey({ id: 'key_1', account_id: 'acct_1', name: 'ci', hash: 'a'.repeat(64), hint: 'cardgate_ab…yz', created_at: iso(NOW), last_used_at: null, allowed_ips: ['10.0.0.0/8'] });
  await s.consume([{ key: 'day:acct_1', amount: 3, limit: 10, reset_at: NOW + 86_400_000 }], NOW, { usage: { account_id: 'acct_1', day: iso(NOW).slice(0, 10) } });
  await s.setMeta('admin_token_hash', 'f'.repeat(64));
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
  const trusted = { jwk, jku: null, thumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', added_at: iso(NOW), revoked_at: null };
  await s.addTrustKey({ ...trusted, id: 'tk_1', kid: 'global-1', account_id: null });
  await s.addTrustKey({ ...trusted, id: 'tk_2', kid: 'acme-1', account_id: 'acct_1', jku: 'https://acme.example/jwks.json' });
  await s.revokeTrustKey('tk_2', iso(NOW + 5));
  const job = (id: string, created: number): JobRecord => ({
    id,
    status: 'queued',
    created_at: iso(created),
    updated_at: iso(created),
    request: { agent_card: null, body: `{"agent_card":{"name":"${id}"}}`, callback_url: 'https://example.com/hook' },
  });
  await s.enqueueJob(job('val_1', NOW), 100);
  await s.putJob({ ...job('val_2', NOW + 1), status: 'completed', result: { valid: true }, attempts: 1 });
  const { card: _card, result: _result, ...fields } = report('rpt_verbatim', { created_at: iso(NOW) });
  // The verdict names the card as POST /v1/validate's does (a store keeps the listing's columns as put, and an import derives them from the line).
  await s.putReport({ ...fields, requestJson: '{ "agent_card" : {"name":"x","n":1.50} }', resultJson: '{"valid":true,"score":1e2}', verdict: { valid: true, score: 100, agent_name: 'x' } });
  await s.putReport(report('gh_1', { kind: 'github', created_at: iso(NOW + 1), alias: 'c'.repeat(40), alias_scope: 'octo/agent' }));
  await s.putReport(report('gh_2', { kind: 'github', created_at: iso(NOW + 2), alias: 'c'.repeat(40), alias_scope: 'octo/agent' }));
  await s.putReport(report('rpt_plain', { created_at: iso(NOW + 3), result: { valid: false, score: 3 } }));
  await s.close();
};

/**
 * An export's rows: the tables' as values sorted by table and key (engines list them, and order
 * a record's members, each their own way), the reports' as the lines themselves, in order.
 */
const rowsOf = (file: string) => {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  assert.equal(JSON.parse(lines[0]!).format, 'cardgate-export');
  const rows = lines.slice(1);
  const keyOf = ({ table, row }: { table: string; row: Record<string, string> }) => `${table} ${row.id ?? row.key ?? `${row.account_id}|${row.day}`}`;
  const parsed = rows.filter((l) => !l.startsWith('{"table":"reports"')).map((l) => JSON.parse(l));
  // Each import adds its own audit record (kept apart: the data moved is compared without them).
  const tables = parsed.filter((r) => r.table !== 'audit').sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const audit = parsed.filter((r) => r.table === 'audit').map((r) => r.row);
  return { tables, audit, reports: rows.filter((l) => l.startsWith('{"table":"reports"')) };
};

test('a data dir exported into PostgreSQL and back reads the same, report lines byte for byte; importing twice changes nothing', async () => {
  const db = await newDatabase();
  const inDb = { CARDGATE_DATABASE_URL: db.url };
  const dir = newDir();
  const [source, target] = [path.join(dir, 'source'), path.join(dir, 'target')];
  await seedDataDir(source);
  const dumps = ['from-file', 'from-db', 'back'].map((name) => path.join(dir, `${name}.jsonl`));

  const run = async (args: string[], env: Record<string, string>) => {
    const r = await runCli(args, { env });
    assert.equal(r.code, 0, `cardgate ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const exported = await run(['export', '--data-dir', source, '--output', dumps[0]!], noDatabase);
  assert.match(exported.stderr, /exported accounts 2, keys 1, counters 1, usage 1, jobs 2, meta 1, trust_keys 2, reports 4/);
  assert.equal(fs.statSync(dumps[0]!).mode & 0o777, 0o600);
  assert.match((await run(['import', dumps[0]!], inDb)).stderr, /imported accounts 2, keys 1, counters 1, usage 1, jobs 2, meta 1, trust_keys 2, reports 4/);

  const again = await runCli(['import', dumps[0]!], { env: inDb });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /the store is not empty; --force imports into it all the same/);
  await run(['import', '--force', dumps[0]!], inDb);
  await run(['export', '--output', dumps[1]!], inDb);
  await run(['import', '--data-dir', target, dumps[1]!], noDatabase);
  // Through stdout this time.
  const back = await run(['export', '--data-dir', target], noDatabase);
  fs.writeFileSync(dumps[2]!, back.stdout);

  const [fromFile, fromDb, backInFile] = dumps.map(rowsOf);
  assert.deepEqual(fromDb!.tables, fromFile!.tables);
  assert.deepEqual(fromDb!.reports, fromFile!.reports);
  assert.deepEqual(backInFile!.tables, fromFile!.tables);
  assert.deepEqual(backInFile!.reports, fromFile!.reports);
  assert.equal(fromFile!.reports.length, 4);
  // The database holds the two imports into it (the first, then the forced one), each by the CLI's OS user; the target those and its own.
  assert.deepEqual(fromFile!.audit, []);
  assert.deepEqual(fromDb!.audit.map((r) => [r.action, r.actor.kind, r.after.forced]), [['store.import', 'cli', false], ['store.import', 'cli', true]]);
  assert.equal(backInFile!.audit.length, 3);
  assert.ok(fromDb!.audit.every((r) => typeof r.actor.os_user === 'string' && r.actor.os_user.length > 0 && r.ip === null));

  // The last store serves what the first held.
  const [a, b] = [await openFileStore({ dataDir: source }), await openFileStore({ dataDir: target })];
  try {
    for (const id of ['rpt_verbatim', 'gh_1', 'gh_2', 'rpt_plain', 'c'.repeat(40)]) assert.deepEqual(await b.getReport(id), await a.getReport(id), id);
    assert.equal((await b.getReport('c'.repeat(40)))?.id, 'gh_2');
    assert.deepEqual(await newestReports(b), await newestReports(a));
    assert.deepEqual(await b.getKeyByHash('a'.repeat(64)), await a.getKeyByHash('a'.repeat(64)));
    assert.deepEqual(await b.getCounter('day:acct_1', NOW), { count: 3, reset_at: NOW + 86_400_000 });
    assert.deepEqual(await b.listUsage(), await a.listUsage());
    assert.deepEqual(await b.countJobs(), { queued: 1, processing: 0 });
    assert.deepEqual(await b.getJob('val_2'), await a.getJob('val_2'));
    assert.equal(await b.getMeta('admin_token_hash'), 'f'.repeat(64));
    assert.deepEqual(await b.listTrustKeys(), await a.listTrustKeys());
    assert.equal((await b.getTrustKey('tk_2'))?.revoked_at, iso(NOW + 5));
  } finally {
    await a.close();
    await b.close();
  }
});

test('a bad line stops the import, naming it; into PostgreSQL nothing of it is kept', async () => {
  const db = await newDatabase();
  const dir = newDir();
  const source = path.join(dir, 'source');
  await seedDataDir(source);
  const dump = path.join(dir, 'dump.jsonl');
  assert.equal((await runCli(['export', '--data-dir', source, '--output', dump], { env: noDatabase })).code, 0);
  const lines = fs.readFileSync(dump, 'utf8').split('\n');
  lines.splice(5, 0, '{"table":"keys","row":{"id":"key_x"}}');
  fs.writeFileSync(dump, lines.join('\n'));
  const failed = await runCli(['import', dump], { env: { CARDGATE_DATABASE_URL: db.url } });
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /cardgate import: line 6: not a valid keys row/);
  const empty = path.join(dir, 'empty.jsonl');
  assert.equal((await runCli(['export', '--output', empty], { env: { CARDGATE_DATABASE_URL: db.url } })).code, 0);
  assert.equal(fs.readFileSync(empty, 'utf8').trim().split('\n').length, 1, 'only the header: nothing was kept');

  for (const [content, message] of [
    ['', /the input is empty: not a cardgate export/],
    ['{"table":"accounts"}\n', /line 1: not a cardgate export/],
    ['{"format":"cardgate-export","format_version":9}\n', /line 1: export format version 9 is not 1/],
  ] as const) {
    fs.writeFileSync(dump, content);
    const r = await runCli(['import', '--data-dir', path.join(dir, 'fresh'), dump], { env: noDatabase });
    assert.equal(r.code, 1);
    assert.match(r.stderr, message);
  }
  const missing = await runCli(['import', path.join(dir, 'missing.jsonl')], { env: noDatabase });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read .*missing\.jsonl/);
  assert.equal((await runCli(['import'], { env: noDatabase })).code, 2);
});
