/**
 * How an admin API route is described: with the least role it needs (`role`: the admin token acts
 * as `admin`), tagged, behind the admin token or a session, with the answers every one may give.
 * The role is written into the route's OpenAPI operation (`x-cardgate-role`), from which the
 * admin API's role check is read (admin-roles.ts): a route states its role once, here.
 */
import { createRoute } from '@hono/zod-openapi';
import type { SessionRole } from '../../config/roles.ts';
import type { AppDeps } from '../../deps.ts';
import { ROLE_EXTENSION, routeRoles } from '../admin-roles.ts';
import { adminAuth, requireRole } from '../middleware/admin-auth.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, security } from '../openapi.ts';

export const admin = <R extends Parameters<typeof createRoute>[0] & { role: SessionRole }>(route: R) => {
  const { role, ...described } = route;
  return createRoute({
    // Typed as given (its answers' types kept whole): `role` itself goes into the extension.
    ...(described as unknown as R),
    [ROLE_EXTENSION]: role,
    tags: ['admin'],
    security: security.admin,
    responses: { ...route.responses, ...errors({ 401: 'No or a wrong admin token.', 403: 'Signed in with a role this route does not allow, or a change made with the session cookie without its CSRF token or from another origin.' }) },
  });
};

export const notFound = (what: string) => errors({ 404: `No ${what} with this id.` });
export const bodyRefused = errors({ 400: 'The body is not JSON, or a field is wrong (the message names it).', ...bodyErrors });

/**
 * The admin API of these groups of admin routes: every /admin/api path behind the admin auth, then
 * the least role of the route asked for, read off the groups' own descriptions (a path none of
 * them describes needs admin). Whatever order the groups come in, the checks run first.
 */
export const mountAdmin = (deps: AppDeps, groups: readonly ApiRoutes[]): ApiRoutes => {
  const routes = apiRoutes();
  for (const group of groups) routes.route('/', group);
  const app = apiRoutes();
  app.use('/admin/api/*', adminAuth(deps), requireRole(routeRoles(routes)));
  return app.route('/', routes);
};
