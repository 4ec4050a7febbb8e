/** Accounts and keys made through the admin API of a running server (test/support/server.ts's admin token). */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startServer, type RunningServer } from './server.ts';

const ADMIN = 'test-admin-token-0123456789';

export const accountWithKey = async (url: string, name: string, plan = 'pro'): Promise<{ id: string; key: string }> => {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` };
  const account = await fetch(`${url}/admin/api/accounts`, { method: 'POST', headers, body: JSON.stringify({ name, plan }) });
  assert.equal(account.status, 201);
  const { account: made } = (await account.json()) as { account: { id: string } };
  const key = await fetch(`${url}/admin/api/accounts/${made.id}/keys`, { method: 'POST', headers, body: JSON.stringify({ name: 'ci' }) });
  assert.equal(key.status, 201);
  return { id: made.id, key: ((await key.json()) as { secret: string }).secret };
};

export interface TwoAccounts {
  server: RunningServer;
  one: { id: string; key: string };
  two: { id: string; key: string };
}

/** In a describe: the real server (keyed pro calls unlimited, bodies up to 4 MiB; `env` adds to its environment) with two pro accounts and a key each, stopped after the suite. */
export const serverWithTwoAccounts = (env: Record<string, string> = {}): TwoAccounts => {
  const state = {} as TwoAccounts;
  before(async () => {
    state.server = await startServer({ env: { CARDGATE_LIMIT_PRO: '-1', CARDGATE_LIMIT_ANONYMOUS: '100000', CARDGATE_MAX_BODY_BYTES: String(4 * 1024 * 1024), ...env } });
    state.one = await accountWithKey(state.server.url, 'one');
    state.two = await accountWithKey(state.server.url, 'two');
  });
  after(async () => {
    await state.server.stop();
  });
  return state;
};
