/**
 * `cardgate admin-token rotate` while servers run: on one PostgreSQL, two running instances refuse
 * the old token and take the new one at their next request; on the file store, the rotation is
 * refused while a server holds the data dir, saying why, and the token in force stays so.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { databaseFactory } from '../support/postgres.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';

const newDatabase = databaseFactory();
/** No configured token: each start generates one (or reuses the stored one). */
const generated = { CARDGATE_ADMIN_TOKEN: '' };
const statusWith = async (server: RunningServer, token: string) =>
  (await fetch(`${server.url}/admin/api/accounts`, { headers: { authorization: `Bearer ${token}` } })).status;

test('on one PostgreSQL, a rotation while two instances run: both refuse the old token and take the new one at once', async () => {
  const env = { ...generated, CARDGATE_DATABASE_URL: (await newDatabase()).url };
  const first = await startServer({ env });
  const second = await startServer({ env });
  try {
    const old = readFileSync(join(first.dataDir, 'admin-token'), 'utf8').trim();
    for (const server of [first, second]) assert.equal(await statusWith(server, old), 200, 'the generated token, before');
    const rotated = await runCli(['admin-token', 'rotate', '--data-dir', first.dataDir], { env });
    assert.equal(rotated.code, 0, rotated.stderr);
    const token = rotated.stdout.trim();
    assert.notEqual(token, old);
    for (const server of [first, second]) {
      assert.equal(await statusWith(server, old), 401, 'the old token, after');
      assert.equal(await statusWith(server, token), 200, 'the new token, after');
    }
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
});

test('on the file store, a rotation while the server holds the data dir is refused, saying so; the token in force stays', async () => {
  const env = { ...generated, CARDGATE_DATABASE_URL: '' };
  const server = await startServer({ env });
  try {
    const token = readFileSync(join(server.dataDir, 'admin-token'), 'utf8').trim();
    const rotated = await runCli(['admin-token', 'rotate', '--data-dir', server.dataDir], { env });
    assert.notEqual(rotated.code, 0);
    assert.equal(rotated.stdout, '', 'no token printed');
    assert.match(rotated.stderr, /data dir is in use by a running cardgate server \(pid \d+\)/);
    // The admin API cannot rotate the token: the way is to stop the server first.
    assert.match(rotated.stderr, /stop the server, rotate, then start it/);
    assert.doesNotMatch(rotated.stderr, /admin API/);
    assert.equal(readFileSync(join(server.dataDir, 'admin-token'), 'utf8').trim(), token, 'the file is untouched');
    assert.equal(await statusWith(server, token), 200);
  } finally {
    await server.stop();
  }
});
