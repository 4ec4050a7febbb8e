/**
 * Databases for tests on the run's PostgreSQL server (started by build/run-tests.mjs, or named by
 * the developer in CARDGATE_TEST_DATABASE_URL). Each call creates a new database with a random
 * name, so test files running in parallel never share state. Without a server the call throws,
 * saying why: a test that needs PostgreSQL fails, never skips.
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import postgres from 'postgres';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';

export interface TestDatabase {
  /** postgres://… of the new, empty database. */
  url: string;
  /** Drops the database (ending any connection still open on it). */
  drop(): Promise<void>;
}

const serverUrl = (): string => {
  const url = process.env.CARDGATE_TEST_DATABASE_URL;
  if (url) return url;
  throw new Error(
    process.env.CARDGATE_TEST_DATABASE_ERROR ??
      'no PostgreSQL server for the tests: run them with `npm test` / `node build/run-tests.mjs`, which starts one, or set CARDGATE_TEST_DATABASE_URL',
  );
};

export const createTestDatabase = async (): Promise<TestDatabase> => {
  const server = serverUrl();
  const name = `cardgate_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const sql = postgres(server, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await sql.end();
      }
    },
  };
};

/** Makes new databases for one test file and drops them after its tests (call at module level). */
export const databaseFactory = (): (() => Promise<TestDatabase>) => {
  const made: TestDatabase[] = [];
  after(async () => {
    for (const db of made) await db.drop();
  });
  return async () => {
    const db = await createTestDatabase();
    made.push(db);
    return db;
  };
};

/**
 * A PostgreSQL store on a fresh database of the run (one connection: the statistics a test reads
 * are that session's) holding account acc_1 with `count` passing agents written in one statement
 * (agt_<20 digits>, named agent-<i>): the crowd a listing's page must not walk.
 */
export const storeWithAgents = async (newDatabase: () => Promise<TestDatabase>, count: number, at: string) => {
  const store = await openPostgresStore({ url: (await newDatabase()).url, poolSize: 1, statementTimeoutMs: 60_000 });
  await store.createAccount({ id: 'acc_1', name: 'crawler', plan: 'pro', created_at: at });
  await store.sql`
    insert into agents (id, account_id, name, first_seen, last_seen, badge_token, default_valid)
    select 'agt_' || lpad(i::text, 20, '0'), 'acc_1', 'agent-' || i, ${at}, ${at}, 't' || i, true
    from generate_series(1, ${count}) i`;
  return store;
};
