/** How an admin API route is described: tagged, behind the admin token, with the answers every one may give. */
import { createRoute } from '@hono/zod-openapi';
import { bodyErrors, errors, security } from '../openapi.ts';

export const admin = <R extends Parameters<typeof createRoute>[0]>(route: R) =>
  createRoute({ ...route, tags: ['admin'], security: security.admin, responses: { ...route.responses, ...errors({ 401: 'No or a wrong admin token.', 403: 'Signed in with a role this route does not allow, or a change made with the session cookie without its CSRF token or from another origin.' }) } });

export const notFound = (what: string) => errors({ 404: `No ${what} with this id.` });
export const bodyRefused = errors({ 400: 'The body is not JSON, or a field is wrong (the message names it).', ...bodyErrors });
