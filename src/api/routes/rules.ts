import { createRoute } from '@hono/zod-openapi';
import { ruleCatalogue, supportedVersions, versionSelection } from '../../engine/index.ts';
import { apiRoutes, type ApiRoutes, rateLimitHeaders, response } from '../openapi.ts';
import { rules } from '../schemas.ts';

const route = createRoute({
  method: 'get',
  path: '/v1/rules',
  tags: ['validation'],
  summary: 'The supported versions, how the version is chosen, and the rule catalogue',
  description: 'Every rule id with its severity, versions, spec section, fix hint, source and score weight.',
  responses: { 200: response('The catalogue.', rules, rateLimitHeaders) },
});

/** GET /v1/rules: the supported protocol versions, how the version is chosen, and the rule catalogue (id, severity, versions, spec, fix). */
export const rulesRoutes: ApiRoutes = apiRoutes().openapi(route, (c) =>
  c.json({ versions: [...supportedVersions], version_selection: versionSelection, rules: ruleCatalogue }, 200),
);
