/**
 * The PostgreSQL migrations are history, never edited: the CHECK of the sessions' role written in
 * one must still list exactly the roles the code declares (config/roles.ts), or a role added there
 * would be refused by the database (a new migration then changes the CHECK).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SESSION_ROLES } from '../../../src/config/roles.ts';
import { migrations } from '../../../src/store/postgres/migrations.ts';

test("the sessions' role CHECK, as the migrations leave it, lists exactly SESSION_ROLES", () => {
  const checks = migrations.flatMap((m) => [...m.sql.matchAll(/\brole\b[^,]*?check \(role in \(([^)]*)\)\)/g)].map((found) => ({ version: m.version, list: found[1]! })));
  assert.ok(checks.length > 0, 'a migration writes the CHECK');
  const last = checks.at(-1)!;
  const roles = last.list.split(',').map((r) => r.trim().replace(/^'(.*)'$/, '$1'));
  assert.deepEqual(roles, [...SESSION_ROLES], `migration ${last.version}'s CHECK`);
});
