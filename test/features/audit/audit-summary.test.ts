/** An audit summary never holds a secret and stays small whatever it is given. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditSummary, MAX_SUMMARY_CHARS } from '../../../src/features/audit/summary.ts';

test('fields named like secrets are left out at any depth; null and undefined stay null', () => {
  const summary = auditSummary({
    name: 'ci',
    secret: 's1',
    key: 'cardgate_abc',
    hash: 'ab'.repeat(32),
    client_secret: 's2',
    webhookSecret: 's3',
    adminToken: 's4',
    nested: { password: 's5', jwk: { kty: 'OKP', d: 's6' }, kept: 1 },
  });
  assert.deepEqual(summary, { name: 'ci', nested: { jwk: { kty: 'OKP' }, kept: 1 } });
  assert.equal(auditSummary(null), null);
  assert.equal(auditSummary(undefined), null);
});

test('hostile values: a 1 MB string, a 100 000-item list, 10 000 fields, deep nesting each make a summary of a few KB', () => {
  const deep: Record<string, unknown> = {};
  let node = deep;
  for (let i = 0; i < 10_000; i++) node = node.child = {};
  const cases = {
    huge: { name: 'x'.repeat(1 << 20) },
    long: { allowed_ips: Array.from({ length: 100_000 }, (_, i) => `10.0.${i}.1`) },
    wide: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, 'y'.repeat(199)])),
    deep,
    longNames: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${i}${'n'.repeat(100_000)}`, 'v'.repeat(1000)])),
  };
  for (const [what, value] of Object.entries(cases)) {
    const text = JSON.stringify(auditSummary(value));
    assert.ok(text.length <= MAX_SUMMARY_CHARS, `${what}: ${text.length} characters`);
  }
  assert.match(String(auditSummary(cases.huge)!.name), /^x{200}… \(1048576 characters\)$/);
});
