/** `cardgate migrate`, run as a process against the test run's PostgreSQL. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../src/store/postgres/migrations.ts';
import { databaseFactory } from '../support/postgres.ts';
import { runCli } from '../support/server.ts';

const newDatabase = databaseFactory();
const latest = migrations.at(-1)!.version;

test('two processes migrating one database at once: one applies every migration, the other finds nothing to do', async () => {
  const db = await newDatabase();
  const env = { CARDGATE_DATABASE_URL: db.url };
  const runs = await Promise.all([runCli(['migrate'], { env }), runCli(['migrate'], { env })]);
  assert.deepEqual(runs.map((r) => r.code), [0, 0], runs.map((r) => r.stderr).join('\n'));
  const applied = runs.map((r) => r.stdout.match(/^applied migration \d+: .+$/gm) ?? []);
  assert.deepEqual(applied.map((lines) => lines.length).sort(), [0, migrations.length]);
  for (const r of runs) assert.match(r.stdout, new RegExp(`schema version ${latest}\\n$`));
  const again = await runCli(['migrate'], { env });
  assert.equal(again.code, 0);
  assert.match(again.stdout, new RegExp(`^postgres://cardgate@[^ ]+: up to date, schema version ${latest}\\n$`));
  assert.doesNotMatch(again.stdout, new RegExp(new URL(db.url).password));
});

test('without a database configured it is a usage error', async () => {
  const run = await runCli(['migrate'], { env: { CARDGATE_DATABASE_URL: '' } });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /no database configured: set store.databaseUrl or CARDGATE_DATABASE_URL/);
});

test('a database that cannot be reached exits 1, named without its password', async () => {
  const run = await runCli(['migrate'], { env: { CARDGATE_DATABASE_URL: 'postgres://cardgate:s3cret-pw@127.0.0.1:1/cardgate' } });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /cannot migrate the database postgres:\/\/cardgate@127\.0\.0\.1:1\/cardgate: /);
  assert.doesNotMatch(run.stderr + run.stdout, /s3cret/);
});

test('a malformed database URL is refused without echoing it', async () => {
  const run = await runCli(['migrate'], { env: { CARDGATE_DATABASE_URL: 'mysql://root:s3cret-pw@db/x' } });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /CARDGATE_DATABASE_URL \(store\.databaseUrl\): must be a postgres:\/\/ or postgresql:\/\/ URL/);
  assert.doesNotMatch(run.stderr, /s3cret/);
});
