/**
 * An account's ruleset under the admin API (behind its admin token): set it (PUT, the ruleset's
 * text as JSON or YAML), read it, delete it; and a preview of a draft on a sample card, which the
 * dashboard's editor shows as the administrator types.
 */
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { RULESET_LIMITS, rulesetSchema } from '../../engine/ruleset/index.ts';
import { rulesetOperations, rulesetPreviewSchema } from '../../features/rulesets/operations.ts';
import { rulesetAnswer, rulesetOrNoneAnswer, rulesetProblem, rulesetRef } from '../admin-answers.ts';
import { adminBody, readBodyText } from '../body.ts';
import { apiRoutes, type ApiRoutes, errors, jsonText, requestBody, response } from '../openapi.ts';
import { deleted, flatError } from '../schemas.ts';
import { admin, notFound } from './admin-route.ts';

const rulesetRefusal = flatError.extend({ problems: z.array(rulesetProblem).optional().meta({ description: 'Each problem of the ruleset at its line:column (at most 50).' }) }).meta({ id: 'RulesetRefusal' });

const preview = z.object({ ruleset: rulesetRef, result: z.record(z.string(), z.unknown()).meta({ description: 'As POST /v1/validate answers with include_score.' }) });

/** The ruleset as JSON (its schema, Ruleset, in the document's components) or as YAML text. */
const rulesetBody = requestBody(rulesetSchema);
Object.assign(rulesetBody.content, { 'application/yaml': { schema: z.string().meta({ description: 'The same ruleset as YAML.' }) } });

const accountId = z.object({ id: z.string().meta({ description: 'The account id.' }) });

const refused = errors({
  400: ['The ruleset is not usable: the message names the first problems, `problems` each one at line:column (INVALID_REQUEST).', rulesetRefusal],
  413: `The ruleset is larger than ${RULESET_LIMITS.textBytes} bytes.`,
  415: 'The Content-Type is neither JSON nor YAML (application/yaml, application/x-yaml, text/yaml), or names a charset other than UTF-8.',
});

const routes = {
  put: admin({
    role: 'editor',
    method: 'put',
    path: '/admin/api/accounts/{id}/ruleset',
    summary: 'Set the account\'s ruleset: its keys\' validations are judged by it',
    description: 'The ruleset\'s text, JSON or YAML (docs/rulesets.md). On the server `extends` takes the built-in rulesets only, and an override matched by a caller\'s `options.file` may only raise a severity.',
    request: {
      params: accountId,
      body: rulesetBody,
    },
    responses: { 200: response('Set.', rulesetAnswer), ...refused, ...notFound('account') },
  }),
  get: admin({
    role: 'viewer',
    method: 'get',
    path: '/admin/api/accounts/{id}/ruleset',
    summary: 'The account\'s ruleset, as it was sent (null when it has none)',
    request: { params: accountId },
    responses: { 200: response('The ruleset, or null.', rulesetOrNoneAnswer), ...notFound('account') },
  }),
  delete: admin({
    role: 'editor',
    method: 'delete',
    path: '/admin/api/accounts/{id}/ruleset',
    summary: 'Delete the account\'s ruleset: its keys are judged by the server\'s default again',
    request: { params: accountId },
    responses: { 200: response('Deleted.', deleted), ...errors({ 404: 'No account with this id, or it has no ruleset.' }) },
  }),
  preview: admin({
    // Changes nothing, but only the ruleset editor uses it.
    role: 'editor',
    method: 'post',
    path: '/admin/api/ruleset-preview',
    summary: 'Check a draft ruleset and judge a sample card by it (the dashboard\'s editor)',
    request: { body: requestBody(rulesetPreviewSchema) },
    responses: {
      200: response('The card\'s result under the draft.', preview),
      ...refused,
    },
  }),
};

export const accountRulesetRoutes = (deps: AppDeps): ApiRoutes => {
  const rulesets = rulesetOperations(deps);
  return apiRoutes()
    .openapi(routes.put, async (c) => {
      const text = await readBodyText(c, { maxBytes: RULESET_LIMITS.textBytes, yaml: true });
      const ruleset = await rulesets.put(c.req.valid('param').id, text, c.get('audit'));
      return c.json({ ruleset }, 200);
    })
    .openapi(routes.get, async (c) => c.json({ ruleset: await rulesets.get(c.req.valid('param').id) }, 200))
    .openapi(routes.delete, async (c) => {
      await rulesets.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    })
    .openapi(routes.preview, async (c) => {
      return jsonText(c, preview, await rulesets.preview(await adminBody(c, deps.config.http)), 200);
    });
};
