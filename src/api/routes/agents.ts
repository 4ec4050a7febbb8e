/**
 * An agent's history: GET /agents/<id> (HTML for browsers, JSON when Accept prefers it; one
 * branch with ?branch=), read with the admin token, a key of the agent's account or a dashboard
 * session (anything else is the 404 of an unknown agent); GET /agents/<id>/badge.svg?token=… (the
 * latest verdict of its default branch, or of ?branch=, under the agent's badge token); and the
 * admin routes GET /admin/api/agents, PATCH and DELETE /admin/api/agents/<id> (mounted by the
 * admin routes, behind the admin token).
 */
import { createRoute } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { agentHistoryOperations, agentUrl, defaultBranchSchema } from '../../features/agents/history-operations.ts';
import { printableName } from '../../features/agents/naming.ts';
import { HISTORY_PAGE } from '../../features/agents/history.ts';
import { sessionOperations } from '../../features/auth/sessions.ts';
import { AGENT_SORT_FIELDS, AGENT_VERDICTS } from '../../store/contract/agents.ts';
import { renderAgentPage } from '../../pages/agent.ts';
import { renderBadge, verdictMessage } from '../../pages/badge.ts';
import { pageHeaders, renderNotFoundPage } from '../../pages/layout.ts';
import { clientIpResolver } from '../client-ip.ts';
import { firstValue, intQuery, pageAnswer, pageQuery, storePageQuery } from '../list-query.ts';
import { presentedKey, sessionCookieName } from '../../features/auth/credentials.ts';
import { adminBody } from '../body.ts';
import { apiRoutes, type ApiRoutes, errors, requestBody, response, security } from '../openapi.ts';
import { admin, bodyRefused } from './admin-route.ts';
import { deleted, nestedError } from '../schemas.ts';
import { badgeHeaders, prefersJson, wantsErrorPage } from './reports.ts';

const timestamp = z.string().meta({ format: 'date-time' });
const int = z.int();

const historyEntry = z
  .object({
    agent_id: z.string(),
    report_id: z.string(),
    created_at: timestamp,
    valid: z.boolean(),
    score: int,
    errors: int,
    warnings: int,
    branch: z.string().nullable().meta({ description: 'The branch it was recorded under (`options.branch`, a webhook metadata\'s `branch`); null when none was named (a monitor\'s run): such a report counts as the default branch\'s.' }),
  })
  .meta({ id: 'AgentReportEntry' });

const agentSchema = z
  .object({
    id: z.string(),
    account_id: z.string(),
    name: z.string(),
    first_seen: timestamp,
    last_seen: timestamp,
    latest_report_id: z.string().nullable(),
    latest: historyEntry.nullable().meta({ description: 'The latest report\'s verdict and counts (null before the first).' }),
    counts: z.object({ reports: int, valid: int, invalid: int }).meta({ description: 'Reports recorded in the agent\'s history (retention does not lower them).' }),
    last_checked_at: timestamp.nullable().meta({ description: 'When the card was last judged: a report recorded, or a monitor\'s run that found it unchanged and stored no report (null before the first).' }),
    unchanged_runs: int.meta({ description: 'A monitor\'s runs since the latest report that found the card and its findings unchanged (see monitors.recordEveryRun).' }),
    default_branch: z.string().meta({ description: 'The branch its badge shows and its reports naming no branch count as: set by `PATCH /admin/api/agents/{id}`, else the first branch a report of it named, else `main`.' }),
  })
  .meta({ id: 'Agent' });

const timelineEntry = z
  .object({
    id: z.string().meta({ description: 'The report id.' }),
    created_at: timestamp,
    valid: z.boolean(),
    score: int,
    errors: int,
    warnings: int,
    branch: z.string().nullable(),
    url: z.string().meta({ description: 'The report page (gone once the report is past `reports.retentionDays`).' }),
    previous_id: z.string().nullable().meta({ description: 'The report before this one on its branch (a report naming no branch is on the default branch; null for the first there).' }),
    diff_url: z.string().nullable().meta({ description: 'The diff from the previous report to this one, `/reports/{previous_id}/diff/{id}` (`?agent={agent id}` added when one of them is a batch report).' }),
  })
  .meta({ id: 'AgentHistoryEntry' });

const nextCursor = z.string().nullable().meta({ description: 'Pass as `cursor` for the older reports; null on the last page.' });

const defaultLatest = historyEntry.nullable().meta({ description: 'The latest report of its default branch (reports naming no branch included): what its badge shows, where `latest` is of any branch; null when that branch has none.' });

const agentHistorySchema = z
  .object({
    agent: agentSchema,
    default_latest: defaultLatest,
    badge_url: z.string().meta({ description: 'The agent\'s badge, with its token: whoever has it sees the latest verdict of its default branch (`&branch=` for another).' }),
    branch: z.string().nullable().meta({ description: 'The branch the page holds (the `branch` asked for), null for every branch.' }),
    reports: z.array(timelineEntry).meta({ description: `Newest first, at most \`limit\` (${HISTORY_PAGE.max}).` }),
    next_cursor: nextCursor,
  })
  .meta({ id: 'AgentHistory' });

const listedAgent = agentSchema.extend({ url: z.string().meta({ description: 'The agent\'s history page.' }) }).meta({ id: 'ListedAgent' });

const laneSchema = z
  .object({
    branch: z.string().meta({ description: 'The branch asked for (of the default branch: reports naming no branch too).' }),
    reports: int.meta({ description: 'Its reports in the agent\'s kept history (the newest 1000).' }),
    last_seen: timestamp.meta({ description: 'Its latest report\'s time.' }),
    latest: historyEntry.meta({ description: 'Its latest report\'s verdict and counts.' }),
  })
  .meta({ id: 'AgentLane' });

const HISTORY_SORT = '-created_at';
const AGENTS_SORT = '-last_seen';
// The id and the badge token take any length (the HTTP server bounds a request line): an over-long one is
// just unknown or wrong, the 404 the reports' routes answer too, never a 400 of its own.
const idParam = z.object({ id: z.string().meta({ description: 'The agent id (`agt_…`), as the result\'s `agent.id` gives it.' }) });
const notFoundAnswer = {
  description: 'No agent with this id that the credentials may read (unknown, another account\'s, or no or a wrong credential: all alike): a page for browsers, the JSON error otherwise.',
  content: { 'text/html': { schema: z.string() }, 'application/json': { schema: nestedError } },
};

const historyRoute = createRoute({
  method: 'get',
  path: '/agents/{id}',
  tags: ['agents'],
  summary: 'An agent\'s history: its reports newest first (branch, verdict, score, error and warning counts), a score chart, links to each report and to the diff from the one before on its branch',
  description: `HTML for browsers; JSON when the Accept header prefers application/json. Read with the admin token, an API key of the agent's account (\`Authorization: Bearer\` or \`X-API-Key\`), or a dashboard session (any role). Paged: at most ${HISTORY_PAGE.max} reports a page (the chart draws the page's); \`branch\` keeps one branch's (pass it again with \`cursor\`).`,
  security: [...security.key, ...security.admin],
  request: {
    params: idParam,
    query: z.object({
      limit: intQuery('limit', HISTORY_PAGE.default, 1, HISTORY_PAGE.max, 'At most this many reports (next_cursor tells where the older ones start).'),
      cursor: z.preprocess(firstValue, z.string().max(1000, 'cursor is not one this list gave out').optional()).meta({ description: 'The next_cursor of the previous page.' }),
      branch: z.preprocess(firstValue, printableName('branch ').optional()).meta({ description: 'Only the reports of this branch (of the default branch: those naming no branch too).' }),
    }),
  },
  responses: {
    200: {
      description: 'The history.',
      headers: { Vary: { schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: agentHistorySchema } },
    },
    ...errors({ 400: 'A bad limit or branch, or a cursor this history did not give out.' }),
    404: notFoundAnswer,
  },
});

const badgeRoute = createRoute({
  method: 'get',
  path: '/agents/{id}/badge.svg',
  tags: ['agents'],
  summary: 'The agent\'s badge: the verdict and score of the latest report of its default branch (or of the branch asked for), for a README',
  description: 'The token is the agent\'s own (in `badge_url` of `GET /agents/{id}`). The default branch\'s reports include those naming no branch (a monitor\'s runs). Cached for 5 minutes: the latest report changes.',
  request: {
    params: idParam,
    query: z.object({
      token: z.preprocess(firstValue, z.string().optional()).meta({ description: 'The agent\'s badge token.' }),
      // Any text, as the id and token: a branch no report named is a badge of no reports, never an error image.
      branch: z.preprocess(firstValue, z.string().optional()).meta({ description: 'Another branch than the agent\'s default.' }),
    }),
  },
  responses: {
    200: { description: 'The badge.', content: { 'image/svg+xml': { schema: z.string() } } },
    404: { description: 'No agent with this id, or a missing or wrong token (alike): a badge saying so.', content: { 'image/svg+xml': { schema: z.string() } } },
  },
});

/** An agent id as the store makes them: only such an id is offered a link (a longer path is not echoed back). */
const AGENT_ID = /^agt_[0-9A-Za-z_-]{1,64}$/;

/**
 * A browser sends no credential with a link it follows (a report page's agent link): the page says
 * how the history is read, and offers the dashboard's view of the agent, which reads it with the
 * admin token the dashboard holds or its session.
 */
const notFoundPage = (id: string) =>
  renderNotFoundPage(
    'Agent',
    'There is no agent with this id that these credentials may read. Its history is read with the admin token, an API key of its account, or a dashboard session; a browser following a link sends none of them.',
    AGENT_ID.test(id) ? [{ href: `/dashboard#/agents/${encodeURIComponent(id)}`, text: 'Open it in the dashboard' }] : [],
  );

export const agentRoutes = (deps: AppDeps): ApiRoutes => {
  const clientIp = clientIpResolver(deps.config);
  const oidc = deps.config.auth.oidc;
  const sessions = oidc && sessionOperations(deps);
  const sessionCookie = oidc && sessionCookieName(oidc.redirectUrl);
  const agents = agentHistoryOperations(deps);
  return apiRoutes()
    .openapi(historyRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { limit, cursor, branch } = c.req.valid('query');
      c.header('Vary', 'Accept, Authorization, X-API-Key');
      c.header('Cache-Control', 'private, no-store');
      const { after } = storePageQuery({ limit, cursor }, HISTORY_SORT, []);
      const credential = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
      // Without a credential, a person signed in reads every agent, as in the dashboard's Agents view
      // (every role reads agents); a GET changes nothing, so no CSRF token is asked for.
      const signedIn = credential === undefined && sessions && sessionCookie ? await sessions.resume(getCookie(c, sessionCookie)) : undefined;
      const reader = signedIn ? ({ admin: true } as const) : await agents.reader(credential, clientIp(c));
      let found;
      try {
        found = await agents.history(reader, id, { limit, ...(after ? { after } : {}), ...(branch === undefined ? {} : { branch }) });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 'NOT_FOUND' && wantsErrorPage(c.req.header('accept')))) throw e;
        return c.html(notFoundPage(id), 404, pageHeaders);
      }
      const { page: reports, ...shown } = found;
      const history = { ...shown, ...pageAnswer('reports', reports, HISTORY_SORT) };
      const { next_cursor } = history;
      if (prefersJson(c.req.header('accept'))) return c.json(history, 200);
      const page = agentUrl(deps.urls.reportsUrl, id);
      const ofBranch = branch === undefined ? '' : `&branch=${encodeURIComponent(branch)}`;
      const links = { page, ...(next_cursor ? { older: `${page}?limit=${limit}${ofBranch}&cursor=${next_cursor}` } : {}), ...(cursor ? { newest: `${page}?limit=${limit}${ofBranch}` } : {}) };
      return c.html(renderAgentPage(history, links, await agents.accountName(history.agent)), 200, pageHeaders);
    })
    .openapi(badgeRoute, async (c) => {
      const { token, branch } = c.req.valid('query');
      const entry = await agents.badgeEntry(c.req.valid('param').id, token, branch);
      if (entry === undefined) return c.body(renderBadge('cardgate', { text: 'agent not found', colour: 'unknown' }), 404, { ...badgeHeaders, 'Cache-Control': 'no-cache' });
      const message = entry === null ? { text: 'no reports', colour: 'unknown' as const } : verdictMessage(entry.valid, entry.score);
      // Cached briefly by image proxies (README badges): the agent's latest report moves.
      return c.body(renderBadge('cardgate', message), 200, { ...badgeHeaders, 'Cache-Control': 'public, max-age=300' });
    });
};

const listRoute = admin({
  role: 'viewer',
  method: 'get',
  path: '/admin/api/agents',
  summary: 'The agents, a page at a time (most recently seen first unless sorted otherwise)',
  description: 'Every filter combines with the others; a query parameter this list does not take is 400.',
  request: {
    query: z.strictObject({
      ...pageQuery(AGENT_SORT_FIELDS, AGENTS_SORT, 50, 'name or id'),
      account_id: z.preprocess(firstValue, z.string().max(200).optional()).meta({ description: 'Only this account\'s.' }),
      verdict: z
        .preprocess(firstValue, z.enum(AGENT_VERDICTS, { error: 'verdict must be "pass" or "fail"' }).optional())
        .meta({ description: 'Only the agents whose badge shows this verdict: the latest report of their default branch (or naming no branch) had a valid card (`pass`) or not (`fail`). Agents with no such report match neither. With `branch`: the latest report of that branch.' }),
      branch: z
        .preprocess(firstValue, printableName('branch ').optional())
        .meta({ description: 'Only the agents with a report of this branch among the newest 1000 of their history (of an agent\'s default branch: reports naming no branch too); each then carries `lane`, and `last_seen` and `reports` sort by that branch\'s own.' }),
    }),
  },
  responses: {
    200: response('The agents.', z.object({ agents: z.array(listedAgent.extend({ account_name: z.string().nullable().meta({ description: 'The account\'s name (null once it is deleted).' }), default_latest: defaultLatest, lane: laneSchema.optional().meta({ description: 'With `branch`: that branch\'s reports in the agent\'s history.' }) }).meta({ id: 'ListedAgentWithAccount' })), next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` (with the same sort) for the next page; null on the last page.' }) })),
    ...errors({ 400: 'A query parameter is out of range or not one this list takes, or the cursor is not one this list gave out.' }),
  },
});

const changeRoute = admin({
  role: 'editor',
  method: 'patch',
  path: '/admin/api/agents/{id}',
  summary: 'Set an agent\'s default branch (the one its badge shows and its reports naming no branch count as)',
  request: { params: z.object({ id: z.string().max(200).meta({ description: 'The agent\'s id (`agt_…`).' }) }), body: requestBody(defaultBranchSchema) },
  responses: { 200: response('The agent as changed.', z.object({ agent: listedAgent })), ...bodyRefused, ...errors({ 404: 'No agent with this id.' }) },
});

const deleteRoute = admin({
  role: 'editor',
  method: 'delete',
  path: '/admin/api/agents/{id}',
  summary: 'Delete an agent and its history (its reports are left to retention; the name may join a new agent later)',
  request: { params: z.object({ id: z.string().max(200).meta({ description: 'The agent\'s id (`agt_…`).' }) }) },
  responses: { 200: response('Deleted.', deleted), ...errors({ 404: 'No agent with this id.' }) },
});

/** GET /admin/api/agents, PATCH and DELETE /admin/api/agents/{id}; mounted among the admin routes, whose middleware checks the admin token. */
export const adminAgentRoutes = (deps: AppDeps): ApiRoutes => {
  const agents = agentHistoryOperations(deps);
  return apiRoutes()
    .openapi(listRoute, async (c) => {
      const params = c.req.valid('query');
      const query = storePageQuery(params, AGENTS_SORT, ['reports'], ['reports']);
      const page = await agents.page({ ...query, ...(params.account_id ? { account_id: params.account_id } : {}), ...(params.verdict ? { verdict: params.verdict } : {}), ...(params.branch ? { branch: params.branch } : {}) });
      return c.json(pageAnswer('agents', page, query.sortParam), 200);
    })
    .openapi(changeRoute, async (c) => {
      const body = await adminBody(c, deps.config.http);
      return c.json({ agent: await agents.setDefaultBranch(c.req.valid('param').id, body, c.get('audit')) }, 200);
    })
    .openapi(deleteRoute, async (c) => {
      await agents.delete(c.req.valid('param').id, c.get('audit'));
      return c.json({ deleted: true as const }, 200);
    });
};
