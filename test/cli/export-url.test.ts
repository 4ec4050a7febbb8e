/**
 * A backup without downtime: GET /admin/api/export and `cardgate export --url` against a running
 * server, on the file engine and on PostgreSQL, while validations go on; the export is the one
 * `cardgate export` writes, holds key hashes and never a key, and imports into a fresh store.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { databaseFactory } from '../support/postgres.ts';
import { minimalCard } from '../support/cards.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const ADMIN = 'test-admin-token-0123456789'; // what startServer sets as CARDGATE_ADMIN_TOKEN
const newDir = tempDirFactory('cardgate-export-url-');
const newDatabase = databaseFactory();

const validate = (server: RunningServer, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ agent_card: minimalCard('Export Agent') }),
  }).then(async (res) => {
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  });

/** An account with a team key, used once, and a keyless validation: a row of most tables. */
const seed = async (server: RunningServer): Promise<string> => {
  const admin = (p: string, body: unknown) =>
    fetch(`${server.url}/admin/api${p}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
  const { account } = await admin('/accounts', { name: 'Backup Co', plan: 'team' });
  const { secret } = await admin(`/accounts/${account.id}/keys`, { name: 'ci' });
  await validate(server, { authorization: `Bearer ${secret}` });
  await validate(server);
  return secret as string;
};

/** The lines of an export: its header and its rows. */
const exportOf = (text: string) => {
  const lines = text.split('\n').filter(Boolean);
  assert.ok(lines.length > 1, text.slice(0, 500));
  return { header: JSON.parse(lines[0]!), rows: lines.slice(1).map((l) => JSON.parse(l) as { table: string; row?: any; line?: string }) };
};

for (const engine of ['file', 'postgres'] as const) {
  describe(`export from a running server (${engine} engine)`, () => {
    test('GET /admin/api/export needs the admin token; `export --url` writes the same lines as `export`, keys as hashes; it imports', async () => {
      const env: Record<string, string> = engine === 'postgres' ? { CARDGATE_DATABASE_URL: (await newDatabase()).url } : { CARDGATE_DATABASE_URL: '' };
      // Sidecar mode: the keyless validations below go past the anonymous limit.
      const server = await startServer({ args: ['--sidecar'], env: { ...env, CARDGATE_VALIDATION_WORKERS: '0' } });
      const dir = newDir();
      try {
        const secret = await seed(server);
        const refused = await fetch(`${server.url}/admin/api/export`);
        assert.equal(refused.status, 401);
        const wrong = await fetch(`${server.url}/admin/api/export`, { headers: { authorization: 'Bearer not-the-admin-token-0123' } });
        assert.equal(wrong.status, 401);

        const direct = await fetch(`${server.url}/admin/api/export`, { headers: { authorization: `Bearer ${ADMIN}` } });
        assert.equal(direct.status, 200);
        assert.equal(direct.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
        assert.match(direct.headers.get('content-disposition') ?? '', /^attachment; filename="cardgate-export-\d{4}-\d\d-\d\d\.jsonl"$/);
        const { header, rows } = exportOf(await direct.text());
        assert.deepEqual([header.format, header.format_version], ['cardgate-export', 1]);
        const tables = new Set(rows.map((r) => r.table));
        for (const table of ['accounts', 'keys', 'counters', 'usage', 'reports']) assert.ok(tables.has(table), `${table} in ${[...tables]}`);
        const key = rows.find((r) => r.table === 'keys')!.row;
        assert.match(key.hash, /^[0-9a-f]{64}$/);
        assert.equal(rows.filter((r) => r.table === 'reports').length, 2);

        // `export --url` while validations go on: it completes, and what it wrote imports into an empty store.
        const file = path.join(dir, 'backup.jsonl');
        const writes = Promise.all(Array.from({ length: 12 }, () => validate(server)));
        const viaUrl = await runCli(['export', '--url', server.url, '--output', file], { env: { CARDGATE_ADMIN_TOKEN: ADMIN } });
        await writes;
        assert.equal(viaUrl.code, 0, viaUrl.stderr);
        // usage: the account's row and the keyless validations' row; audit: the account's and the key's creation.
        assert.match(viaUrl.stderr, /exported accounts 1, keys 1, counters \d+, usage 2, agents 1, agent_reports 1, audit 2, reports \d+/);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        const backup = fs.readFileSync(file, 'utf8');
        assert.ok(!backup.includes(secret), 'a key never leaves as itself');
        assert.ok(!backup.includes(ADMIN), 'nor the admin token');
        const snapshot = exportOf(backup).rows;
        if (engine === 'postgres') {
          // One snapshot: the keyless quota counted exactly the keyless reports it holds (each charged with its report).
          const keyless = snapshot.filter((r) => r.table === 'reports' && JSON.parse(r.line!).account_id === null).length;
          const counted = snapshot.filter((r) => r.table === 'counters' && String(r.row.key).startsWith('daily:ip:')).reduce((n, r) => n + Number(r.row.count), 0);
          assert.equal(counted, keyless);
        }
        const imported = await runCli(['import', '--data-dir', path.join(dir, 'restored'), file], { env: { CARDGATE_DATABASE_URL: '' } });
        assert.equal(imported.code, 0, imported.stderr);
        assert.match(imported.stderr, /imported accounts 1, keys 1/);

        // With nothing going on, the server's export and the offline one of the same store hold the same rows.
        const quiet = await runCli(['export', '--url', `${server.url}/`], { env: { CARDGATE_ADMIN_TOKEN: ADMIN } });
        assert.equal(quiet.code, 0, quiet.stderr);
        assert.equal(await server.stop(), 0);
        const offline = await runCli(['export', '--data-dir', server.dataDir], { env });
        assert.equal(offline.code, 0, offline.stderr);
        // Each engine lists a table in an order of its own (kept or rebuilt at open): compared as sets of lines.
        const lines = (text: string) => exportOf(text).rows.map((r) => JSON.stringify(r)).sort();
        assert.deepEqual(lines(quiet.stdout), lines(offline.stdout));
      } finally {
        await server.stop();
      }
    });
  });
}

test('a client that goes away mid-export frees the instance for the next export (the store\'s snapshot ends)', async () => {
  // 20,000 reports (~20 MB of export): far more than the socket buffers hold, so the server is mid-stream when the client goes.
  const dir = newDir();
  const dump = path.join(dir, 'seed.jsonl');
  const now = Date.now();
  const lines = [JSON.stringify({ format: 'cardgate-export', format_version: 1, cardgate: '0.1.0', exported_at: new Date(now).toISOString() })];
  const card = JSON.stringify({ ...minimalCard('Bulk Agent'), description: 'x'.repeat(800) });
  for (let i = 0; i < 20_000; i++) {
    const line = `{"id":"rpt_${String(i).padStart(6, '0')}","kind":"single","created_at":"${new Date(now - 20_000 + i).toISOString()}","account_id":null,"version":"0.3.0","result":{"valid":true},"request":{"agent_card":${card}}}`;
    lines.push(JSON.stringify({ table: 'reports', line }));
  }
  fs.writeFileSync(dump, `${lines.join('\n')}\n`);
  const dataDir = path.join(dir, 'data');
  const seeded = await runCli(['import', '--data-dir', dataDir, dump], { env: { CARDGATE_DATABASE_URL: '' } });
  assert.equal(seeded.code, 0, seeded.stderr);
  const server = await startServer({ dataDir, env: { CARDGATE_DATABASE_URL: '' } });
  try {
    const get = (signal?: AbortSignal) => fetch(`${server.url}/admin/api/export`, { headers: { authorization: `Bearer ${ADMIN}` }, signal });
    const abort = new AbortController();
    const first = await get(abort.signal);
    assert.equal(first.status, 200);
    const reader = first.body!.getReader();
    assert.ok(!(await reader.read()).done);
    assert.equal((await get()).status, 503, 'the first export is still running');
    abort.abort();
    // The server notices the closed connection on its next write: bounded wait for the slot.
    let status = 503;
    for (let i = 0; i < 100 && status === 503; i++) {
      const next = await get();
      status = next.status;
      if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100));
      else {
        // The seeded rows, and the audit record of their import.
        const { rows } = exportOf(await next.text());
        assert.equal(rows.filter((r) => r.table !== 'audit').length, 20_000);
        assert.deepEqual(rows.filter((r) => r.table === 'audit').map((r) => r.row.action), ['store.import']);
      }
    }
    assert.equal(status, 200);
  } finally {
    await server.stop();
  }
});

test('export --url: a wrong token, an unreachable server and a bad URL are told, exit 1 or 2', async () => {
  const server = await startServer();
  try {
    const wrong = await runCli(['export', '--url', server.url], { env: { CARDGATE_ADMIN_TOKEN: 'not-the-admin-token-0123' } });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /admin\/api\/export answered HTTP 401/);
  } finally {
    await server.stop();
  }
  const gone = await runCli(['export', '--url', server.url], { env: { CARDGATE_ADMIN_TOKEN: ADMIN } });
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /the export is incomplete/);
  const bad = await runCli(['export', '--url', 'file:///etc/passwd'], { env: { CARDGATE_ADMIN_TOKEN: ADMIN } });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--url must be an absolute http\(s\) URL/);
  const none = await runCli(['export', '--url', 'http://127.0.0.1:9', '--data-dir', newDir()], { env: { CARDGATE_ADMIN_TOKEN: '' } });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no admin token/);
});
