/** The admin API's trusted-key use cases: each change durable before it returns, the list commits nothing. */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';
import { trustKeyOperations } from '../../../src/features/trust/operations.ts';
import { testDeps } from '../../support/app.ts';
import { holdCommits } from '../../support/held-commits.ts';
import type { AuditContext } from '../../../src/features/audit/audit.ts';

const by: AuditContext = { actor: { kind: 'cli', os_user: 'ops' }, ip: null };

test('trusted-key use cases: add, revoke and delete wait for their commit, the list asks for none', async () => {
  const { deps, store } = testDeps();
  const trustKeys = trustKeyOperations(deps);
  const { durableBeforeAnswer, noCommit } = holdCommits(store);
  const jwk = crypto.generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });

  const [key] = await durableBeforeAnswer('add', () => trustKeys.add({ jwk: { ...jwk, kid: 'k1' } }, by));
  assert.ok(key);
  assert.equal((await durableBeforeAnswer('revoke', () => trustKeys.revoke(key.id, {}, by))).revoked_at, new Date(deps.clock.now()).toISOString());
  assert.deepEqual((await noCommit('list', () => trustKeys.list(undefined))).map((k) => k.id), [key.id]);
  await durableBeforeAnswer('delete', () => trustKeys.delete(key.id, by));
  assert.deepEqual(await trustKeys.list(undefined), []);
  const audit = (await store.pageAudit({ limit: 10 })).items.reverse();
  assert.deepEqual(audit.map((r) => [r.action, r.target.id]), [['trust_key.add', key.id], ['trust_key.revoke', key.id], ['trust_key.delete', key.id]]);
  assert.equal(audit[1]!.after?.revoked_at, new Date(deps.clock.now()).toISOString());
});
