/**
 * The least role each admin API route needs, read off the routes as registered: each is
 * described with its role (routes/admin-route.ts, `admin({ role, ... })`), which its OpenAPI
 * operation carries as `x-cardgate-role`. `viewer` reads; `editor` changes accounts and their
 * plans, keys, rulesets, monitors, agents and trusted keys and reads the audit log; `admin` does
 * everything, the exports and the sessions included. A path no route described with a role
 * answers (an unknown path, a route without one) needs `admin`.
 */
import { SESSION_ROLES, type SessionRole } from '../config/roles.ts';
import type { ApiRoutes } from './openapi.ts';

/** The OpenAPI extension of an operation that holds its least role. */
export const ROLE_EXTENSION = 'x-cardgate-role';

/** The least role a request needs, by its method and path. */
export type LeastRole = (method: string, path: string) => SessionRole;

const isRole = (value: unknown): value is SessionRole => (SESSION_ROLES as readonly unknown[]).includes(value);

/** The least role of each route `routes` registered (of those described with one); `admin` for any other method and path. HEAD is GET's. */
export const routeRoles = (routes: ApiRoutes): LeastRole => {
  const compiled = routes.openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [];
    const { method, path, [ROLE_EXTENSION]: role } = definition.route;
    if (!isRole(role)) return [];
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return [{ method: method.toUpperCase(), pattern, role }];
  });
  return (method, path) => {
    const asked = method === 'HEAD' ? 'GET' : method;
    return compiled.find((r) => r.method === asked && r.pattern.test(path))?.role ?? 'admin';
  };
};
