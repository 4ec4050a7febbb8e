/**
 * The least role each admin API route needs, in one table (the admin token acts as `admin`):
 * `viewer` reads; `editor` changes accounts and their plans, keys, rulesets, monitors, agents and
 * trusted keys and reads the audit log; `admin` does everything, the export of the store and of the audit
 * log included. A route missing here needs `admin` (test/api/roles.test.ts walks /openapi.json and
 * fails on any admin route missing here).
 */
import type { SessionRole } from '../store/contract/sessions.ts';

export const ADMIN_ROUTE_ROLES: Readonly<Record<string, SessionRole>> = {
  'GET /admin/api/accounts': 'viewer',
  'POST /admin/api/accounts': 'editor',
  'GET /admin/api/accounts/{id}': 'viewer',
  'PATCH /admin/api/accounts/{id}': 'editor',
  'DELETE /admin/api/accounts/{id}': 'editor',
  'GET /admin/api/accounts/{id}/keys': 'viewer',
  'POST /admin/api/accounts/{id}/keys': 'editor',
  'DELETE /admin/api/keys/{id}': 'editor',
  'POST /admin/api/keys/{id}/rotate': 'editor',
  'GET /admin/api/usage': 'viewer',
  'GET /admin/api/reports': 'viewer',
  'GET /admin/api/agents': 'viewer',
  'PATCH /admin/api/agents/{id}': 'editor',
  'DELETE /admin/api/agents/{id}': 'editor',
  // Every row of the store, key hashes included.
  'GET /admin/api/export': 'admin',
  'GET /admin/api/trust-keys': 'viewer',
  'POST /admin/api/trust-keys': 'editor',
  'POST /admin/api/trust-keys/{id}/revoke': 'editor',
  'DELETE /admin/api/trust-keys/{id}': 'editor',
  'PUT /admin/api/accounts/{id}/ruleset': 'editor',
  'GET /admin/api/accounts/{id}/ruleset': 'viewer',
  'DELETE /admin/api/accounts/{id}/ruleset': 'editor',
  // Changes nothing, but only the ruleset editor uses it.
  'POST /admin/api/ruleset-preview': 'editor',
  'GET /admin/api/monitors': 'viewer',
  'POST /admin/api/monitors': 'editor',
  'GET /admin/api/monitors/{id}': 'viewer',
  'PATCH /admin/api/monitors/{id}': 'editor',
  'POST /admin/api/monitors/{id}/pause': 'editor',
  'POST /admin/api/monitors/{id}/resume': 'editor',
  'DELETE /admin/api/monitors/{id}': 'editor',
  'GET /admin/api/audit': 'editor',
  'GET /admin/api/audit/export': 'admin',
  'GET /admin/api/sessions': 'admin',
  'POST /admin/api/sessions/revoke': 'admin',
};

const compiled = Object.entries(ADMIN_ROUTE_ROLES).map(([route, role]) => {
  const [method, path] = route.split(' ') as [string, string];
  const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return { method, pattern, role };
});

/** The least role `method` on `path` needs; `admin` for a route not in the table. HEAD is GET's. */
export const leastRoleFor = (method: string, path: string): SessionRole => {
  const asked = method === 'HEAD' ? 'GET' : method;
  return compiled.find((r) => r.method === asked && r.pattern.test(path))?.role ?? 'admin';
};
