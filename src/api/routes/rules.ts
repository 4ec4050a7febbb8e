import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ruleCatalogue, supportedVersions, versionSelection } from '../../engine/index.ts';
import { namedRuleset, ruleListing, rulesetNames } from '../../features/rulesets/rule-listing.ts';
import type { AppEnv } from '../env.ts';
import { identifyCaller } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, errors, rateLimitHeaders, response, security } from '../openapi.ts';
import { rules } from '../schemas.ts';

const route = createRoute({
  method: 'get',
  path: '/v1/rules',
  tags: ['validation'],
  summary: 'The supported versions, how the version is chosen, and the rule catalogue',
  description:
    'Every rule id with its severity, versions, spec section, fix hint, source and score weight. With `ruleset`, each rule at the severity that ruleset gives it (`set_by` says what set it), its custom rules, and the ruleset\'s `{id, hash}`.',
  security: security.optionalKey,
  request: {
    query: z.object({
      ruleset: z
        .string()
        .max(100)
        .optional()
        .meta({ description: `${rulesetNames.join(', ')}: a built-in ruleset, the server's default (\`rules.ruleset\`), or the calling key's account's (the key required).` }),
    }),
  },
  responses: {
    200: response('The catalogue.', rules, rateLimitHeaders),
    ...errors({ 400: 'No such ruleset name.', 401: '`ruleset=account` without a key, or a malformed, unknown or deleted key.', 404: 'The named ruleset is not set (no default ruleset; no account ruleset and no default).' }, true),
  },
});

/** GET /v1/rules: the supported protocol versions, how the version is chosen, and the rule catalogue (id, severity, versions, spec, fix), as a ruleset makes it when one is named. */
export const rulesRoutes = (deps: AppDeps): ApiRoutes => {
  const caller = identifyCaller(deps);
  // Only `ruleset=account` reads the key: the catalogue stays open to anyone, whatever header comes with the request.
  const callerWhenAsked: MiddlewareHandler<AppEnv> = (c, next) => (c.req.query('ruleset') === 'account' ? caller(c, next) : next());
  return apiRoutes().openapi({ ...route, middleware: callerWhenAsked }, async (c) => {
    const catalogue = { versions: [...supportedVersions], version_selection: versionSelection };
    const { ruleset } = c.req.valid('query');
    if (ruleset === undefined) return c.json({ ...catalogue, rules: ruleCatalogue }, 200);
    return c.json({ ...catalogue, ...ruleListing(await namedRuleset(deps, ruleset, c.get('caller')?.account?.id), ruleCatalogue) }, 200);
  });
};
