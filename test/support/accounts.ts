/** An account and one of its keys, made through the admin API of a running server (test/support/server.ts's admin token). */
import assert from 'node:assert/strict';

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
