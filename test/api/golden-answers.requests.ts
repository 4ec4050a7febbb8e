/**
 * The golden requests: a fixed list sent in order to one fresh server (see golden-answers.test.ts).
 * `{{name}}` in a path, header or JSON string is a value saved from an earlier answer (`save`) or
 * given by the test (`receiver`: the loopback host serving a card and taking callbacks).
 */
import { invalidCard, warnedCard } from '../engine/formats/cards.ts';
import { minimalCard } from '../support/cards.ts';

export interface GoldenRequest {
  name: string;
  method?: string;
  path: string;
  /** Authorization: the admin token, a key of an account made through the API, or a key that does not exist. */
  auth?: 'admin' | 'pro' | 'free' | 'unknown' | 'malformed';
  /** `content-type: ''` sends none; JSON and text bodies are application/json unless given. */
  headers?: Record<string, string>;
  json?: unknown;
  body?: string;
  /** The body is this many bytes of JSON (for the size limits). */
  bodyBytes?: number;
  /** Saved for later requests: name -> dotted path into the JSON answer. */
  save?: Record<string, string>;
  /** Sent again (bounded) until the JSON answer holds these values at these dotted paths. */
  until?: Record<string, unknown>;
  /** Headers whose value depends on the time of day (a quota's Retry-After): masked. */
  clockHeaders?: string[];
}

/** The runner waits for a fresh minute before these: the webhook limit counts in clock-aligned minutes. */
export const WEBHOOK_BLOCK = 'webhooks';

export const goldenCard = minimalCard('Golden Agent', 'An agent card of the golden answers.');

const singleText = (card: string, options: object = {}) => `{"options": ${JSON.stringify(options)},\n  "agent_card": ${card}}`;
const batchText = (options: object = {}) =>
  `{"options": ${JSON.stringify(options)}, "cards": [\n{"id": "cards/warned.json", "agent_card": ${warnedCard}},\n{"id": "cards/invalid.json", "agent_card": ${invalidCard}}]}`;

const publicJwk = { kty: 'EC', crv: 'P-256', x: 'GPLXAwTtkKP0Q5656Zn_T6xcm9tFTOg9USNYGhYz3Bg', y: 'LaMQBxLRJ1Or_nF-plRAbmaHsq0VXhqcwTFL1_vN5lA' };
const commitSha = '0123456789abcdef0123456789abcdef01234567';
/** What an MCP client accepts (the Streamable HTTP transport answers 406 to less). */
const mcpAccept = { accept: 'application/json, text/event-stream' };
const formats = ['sarif', 'junit', 'github', 'gitlab', 'markdown', 'text', 'json'];

const service: GoldenRequest[] = [
  { name: 'liveness', path: '/healthz' },
  { name: 'readiness', path: '/readyz' },
  { name: 'landing page', path: '/' },
  { name: 'landing as JSON', path: '/', headers: { accept: 'application/json' } },
  { name: 'rules page', path: '/rules' },
  { name: 'rules page of one version', path: '/rules?version=0.3.0' },
  { name: 'rules page of an unknown version', path: '/rules?version=9.9' },
  { name: 'rule page', path: '/rules/url.https' },
  { name: 'site icon', path: '/favicon.ico' },
  { name: 'unknown rule, API client', path: '/rules/no.such.rule' },
  { name: 'unknown rule, browser', path: '/rules/no.such.rule', headers: { accept: 'text/html' } },
  { name: 'rule catalogue', path: '/v1/rules' },
  { name: 'OpenAPI document', path: '/openapi.json' },
  { name: 'docs page', path: '/docs' },
  { name: 'docs renderer', path: '/docs/assets/api-reference-1.72.1.js', headers: { 'accept-encoding': 'identity' } },
  { name: 'docs renderer, gzip', path: '/docs/assets/api-reference-1.72.1.js', headers: { 'accept-encoding': 'gzip' } },
  { name: 'docs start script', path: '/docs/assets/start.js' },
  { name: 'dashboard', path: '/dashboard' },
  { name: 'dashboard with a slash', path: '/dashboard/' },
  { name: 'dashboard styles', path: '/dashboard/app.css' },
  { name: 'dashboard script', path: '/dashboard/app.js' },
  { name: 'sign-in, OIDC not configured', path: '/auth/login' },
  { name: 'sign-in callback, OIDC not configured', path: '/auth/callback?code=abc&state=def' },
  { name: 'session, OIDC not configured', path: '/auth/session' },
  { name: 'sign-out, OIDC not configured', method: 'POST', path: '/auth/logout' },
  { name: 'sign out everywhere, OIDC not configured', method: 'POST', path: '/auth/logout-everywhere' },
  { name: 'unknown path, API client', path: '/no/such/path' },
  { name: 'unknown path, browser', path: '/no/such/path', headers: { accept: 'text/html' } },
  { name: 'unknown /v1 path', path: '/v1/nothing' },
  { name: 'method not allowed', method: 'DELETE', path: '/healthz' },
  { name: 'method not allowed on /v1', method: 'PUT', path: '/v1/validate' },
  { name: 'method not allowed on the landing page', method: 'POST', path: '/', json: {} },
  { name: 'method not allowed on a report', method: 'DELETE', path: '/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA' },
  { name: 'method not allowed on a status', method: 'POST', path: '/v1/status/val_missing', json: {} },
  { name: 'method not allowed on the dashboard', method: 'POST', path: '/dashboard/app.js' },
  { name: 'HEAD of a GET route', method: 'HEAD', path: '/readyz' },
  { name: 'metrics without the admin token', path: '/metrics' },
  { name: 'metrics with a wrong token', path: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } },
];

const accounts: GoldenRequest[] = [
  { name: 'accounts without a token', path: '/admin/api/accounts' },
  { name: 'accounts with a wrong token', path: '/admin/api/accounts', headers: { authorization: 'Bearer wrong-token-0123456789' } },
  { name: 'no accounts yet', path: '/admin/api/accounts', auth: 'admin' },
  { name: 'create a pro account', method: 'POST', path: '/admin/api/accounts', auth: 'admin', json: { name: 'golden pro', plan: 'pro' }, save: { proAccount: 'account.id' } },
  { name: 'create a free account', method: 'POST', path: '/admin/api/accounts', auth: 'admin', json: { name: 'golden free', plan: 'free' }, save: { freeAccount: 'account.id' } },
  { name: 'create an account: not JSON', method: 'POST', path: '/admin/api/accounts', auth: 'admin', body: '{"name":' },
  { name: 'create an account: text/plain', method: 'POST', path: '/admin/api/accounts', auth: 'admin', body: '{"name":"x"}', headers: { 'content-type': 'text/plain' } },
  { name: 'create an account: latin1', method: 'POST', path: '/admin/api/accounts', auth: 'admin', body: '{"name":"x"}', headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: 'create an account: no content type', method: 'POST', path: '/admin/api/accounts', auth: 'admin', body: '{"name":"x"}', headers: { 'content-type': '' } },
  { name: 'create an account: unknown plan', method: 'POST', path: '/admin/api/accounts', auth: 'admin', json: { name: 'x', plan: 'gold' } },
  { name: 'create an account: an array', method: 'POST', path: '/admin/api/accounts', auth: 'admin', json: [] },
  { name: 'key for the pro account', method: 'POST', path: '/admin/api/accounts/{{proAccount}}/keys', auth: 'admin', json: { name: 'ci' }, save: { proKey: 'secret' } },
  { name: 'key for the free account', method: 'POST', path: '/admin/api/accounts/{{freeAccount}}/keys', auth: 'admin', json: { name: 'ci' }, save: { freeKey: 'secret' } },
  { name: 'key: bad allowed_ips', method: 'POST', path: '/admin/api/accounts/{{freeAccount}}/keys', auth: 'admin', json: { name: 'x', allowed_ips: ['not-an-ip'] } },
  { name: 'key for an unknown account', method: 'POST', path: '/admin/api/accounts/acct_missing/keys', auth: 'admin', json: { name: 'x' } },
  { name: 'one account', path: '/admin/api/accounts/{{proAccount}}', auth: 'admin' },
  { name: 'unknown account', path: '/admin/api/accounts/acct_missing', auth: 'admin' },
  { name: 'rename an account', method: 'PATCH', path: '/admin/api/accounts/{{freeAccount}}', auth: 'admin', json: { name: 'golden free, renamed' } },
  { name: 'change a plan: unknown plan', method: 'PATCH', path: '/admin/api/accounts/{{freeAccount}}', auth: 'admin', json: { plan: 'gold' } },
  { name: 'change an unknown account', method: 'PATCH', path: '/admin/api/accounts/acct_missing', auth: 'admin', json: { name: 'x' } },
  { name: 'keys of an account', path: '/admin/api/accounts/{{proAccount}}/keys', auth: 'admin' },
  { name: 'keys of an unknown account', path: '/admin/api/accounts/acct_missing/keys', auth: 'admin' },
  { name: 'accounts, first page', path: '/admin/api/accounts?limit=1', auth: 'admin', save: { accountCursor: 'next_cursor' } },
  { name: 'accounts, next page', path: '/admin/api/accounts?limit=1&cursor={{accountCursor}}', auth: 'admin' },
  { name: 'accounts found by name', path: '/admin/api/accounts?q=golden%20free', auth: 'admin' },
  { name: 'accounts by name, descending', path: '/admin/api/accounts?sort=-name', auth: 'admin' },
  { name: 'accounts: unknown sort', path: '/admin/api/accounts?sort=colour', auth: 'admin' },
  { name: 'accounts: limit out of range', path: '/admin/api/accounts?limit=0', auth: 'admin' },
  { name: 'accounts: a forged cursor', path: '/admin/api/accounts?cursor=bm90LWEtY3Vyc29y', auth: 'admin' },
  { name: 'create a short-lived account', method: 'POST', path: '/admin/api/accounts', auth: 'admin', json: { name: 'short-lived', plan: 'team' }, save: { goneAccount: 'account.id' } },
  { name: 'key for it', method: 'POST', path: '/admin/api/accounts/{{goneAccount}}/keys', auth: 'admin', json: { name: 'gone' }, save: { goneKeyId: 'key.id' } },
  { name: 'rotate the key', method: 'POST', path: '/admin/api/keys/{{goneKeyId}}/rotate', auth: 'admin' },
  { name: 'rotate the key: expiry not in the future', method: 'POST', path: '/admin/api/keys/{{goneKeyId}}/rotate', auth: 'admin', json: { expires_at: '2020-01-01T00:00:00Z' } },
  { name: 'rotate an unknown key', method: 'POST', path: '/admin/api/keys/key_missing/rotate', auth: 'admin' },
  { name: 'delete the key', method: 'DELETE', path: '/admin/api/keys/{{goneKeyId}}', auth: 'admin' },
  { name: 'delete the key again', method: 'DELETE', path: '/admin/api/keys/{{goneKeyId}}', auth: 'admin' },
  { name: 'delete the account', method: 'DELETE', path: '/admin/api/accounts/{{goneAccount}}', auth: 'admin' },
  { name: 'delete the account again', method: 'DELETE', path: '/admin/api/accounts/{{goneAccount}}', auth: 'admin' },
];

const validation: GoldenRequest[] = [
  { name: 'validate, anonymous', method: 'POST', path: '/v1/validate', json: { agent_card: goldenCard }, save: { report: 'report_id' } },
  { name: 'validate by URL, anonymous', method: 'POST', path: '/v1/validate', json: { agent_url: '{{receiver}}/agent.json' } },
  { name: 'validate by URL: nothing there', method: 'POST', path: '/v1/validate', json: { agent_url: '{{receiver}}/missing.json' } },
  // A probe's answer carries its timings: the golden ones are those refused before any request.
  { name: 'probe: neither url nor agent_card', method: 'POST', path: '/v1/probe', json: { options: { send_message: true } } },
  { name: 'probe: the metadata address', method: 'POST', path: '/v1/probe', json: { url: 'http://169.254.169.254/latest/meta-data/' } },
  { name: 'probe: a reserved header', method: 'POST', path: '/v1/probe', json: { url: '{{receiver}}/agent.json', options: { headers: { Host: 'elsewhere' } } } },
  { name: 'validate, anonymous, over the quota', method: 'POST', path: '/v1/validate', json: { agent_card: goldenCard }, clockHeaders: ['retry-after'] },
  { name: 'validate with a pro key, card text', method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(warnedCard, { include_score: true, include_suggestions: true }), save: { warnedReport: 'report_id' } },
  { name: 'validate an invalid card', method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(invalidCard) },
  ...formats.map((format): GoldenRequest => ({ name: `validate, format ${format}`, method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(invalidCard, { format, file: 'cards/agent.json' }) })),
  { name: 'validate, Accept: SARIF', method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(warnedCard), headers: { accept: 'application/sarif+json' } },
  { name: 'validate: unknown format', method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(warnedCard, { format: 'pdf' }) },
  { name: 'validate: not JSON', method: 'POST', path: '/v1/validate', auth: 'pro', body: '{\n  "agent_card": {,\n}' },
  { name: 'validate: no card', method: 'POST', path: '/v1/validate', auth: 'pro', json: {} },
  { name: 'validate: text/plain', method: 'POST', path: '/v1/validate', auth: 'pro', body: '{}', headers: { 'content-type': 'text/plain' } },
  { name: 'validate: latin1', method: 'POST', path: '/v1/validate', auth: 'pro', body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: 'validate: too large', method: 'POST', path: '/v1/validate', auth: 'pro', bodyBytes: 70_000 },
  { name: 'validate: too deep', method: 'POST', path: '/v1/validate', auth: 'pro', body: `{"agent_card":${'['.repeat(100)}${']'.repeat(100)}}` },
  { name: 'validate: malformed key', method: 'POST', path: '/v1/validate', auth: 'malformed', json: { agent_card: goldenCard } },
  { name: 'validate: unknown key', method: 'POST', path: '/v1/validate', auth: 'unknown', json: { agent_card: goldenCard } },
  { name: 'validate with the free key', method: 'POST', path: '/v1/validate', auth: 'free', json: { agent_card: goldenCard } },
  { name: 'validate with the free key, over the quota', method: 'POST', path: '/v1/validate', auth: 'free', json: { agent_card: goldenCard }, clockHeaders: ['retry-after'] },
  { name: 'batch with a pro key', method: 'POST', path: '/v1/validate/batch', auth: 'pro', body: batchText(), save: { batch: 'batch_id' } },
  ...['sarif', 'junit', 'text', 'markdown'].map((format): GoldenRequest => ({ name: `batch, format ${format}`, method: 'POST', path: '/v1/validate/batch', auth: 'pro', body: batchText({ format }) })),
  { name: 'batch, anonymous', method: 'POST', path: '/v1/validate/batch', body: batchText() },
  { name: 'batch with the free key', method: 'POST', path: '/v1/validate/batch', auth: 'free', body: batchText() },
  { name: 'batch: no cards array', method: 'POST', path: '/v1/validate/batch', auth: 'pro', json: { card: [] } },
  { name: 'batch: a duplicate id', method: 'POST', path: '/v1/validate/batch', auth: 'pro', json: { cards: [{ id: 'a', agent_card: goldenCard }, { id: 'a', agent_card: goldenCard }] } },
  { name: 'batch: an entry without a card', method: 'POST', path: '/v1/validate/batch', auth: 'pro', json: { cards: [{ id: 'a' }] } },
  { name: 'batch: not JSON', method: 'POST', path: '/v1/validate/batch', auth: 'pro', body: '{"cards": [' },
  { name: 'batch: text/plain', method: 'POST', path: '/v1/validate/batch', auth: 'pro', body: '{}', headers: { 'content-type': 'text/plain' } },
  { name: 'batch: too large', method: 'POST', path: '/v1/validate/batch', auth: 'pro', bodyBytes: 140_000 },
];

const webhooks: GoldenRequest[] = [
  { name: WEBHOOK_BLOCK, method: 'POST', path: '/v1/webhook', json: { agent_card: goldenCard, metadata: { repo: 'octo-org/agent', run: 7 } } },
  { name: 'webhook: not JSON', method: 'POST', path: '/v1/webhook', body: '{"agent_card"' },
  { name: 'webhook: text/plain', method: 'POST', path: '/v1/webhook', body: '{}', headers: { 'content-type': 'text/plain' } },
  { name: 'webhook: no card', method: 'POST', path: '/v1/webhook', json: { metadata: {} } },
  { name: 'webhook: a refused callback', method: 'POST', path: '/v1/webhook', json: { agent_card: goldenCard, callback_url: 'ftp://example.com/hook' } },
  { name: 'webhook with a callback', method: 'POST', path: '/v1/webhook', json: { agent_card: goldenCard, metadata: { run: 8 }, callback_url: '{{receiver}}/callback' }, save: { job: 'validation_id' } },
  { name: 'status of the job, once its callback is delivered', path: '/v1/status/{{job}}', until: { status: 'completed', 'callback.state': 'delivered' } },
  { name: 'status of an unknown validation', path: '/v1/status/val_missing' },
  { name: 'GitHub validation', method: 'POST', path: '/v1/webhook/github', json: { agent_card: goldenCard, github: { repo: 'octo-org/agent', sha: commitSha } } },
  { name: 'GitHub: malformed sha', method: 'POST', path: '/v1/webhook/github', json: { agent_card: goldenCard, github: { repo: 'octo-org/agent', sha: 'abc' } } },
  { name: 'GitHub: no github member', method: 'POST', path: '/v1/webhook/github', json: { agent_card: goldenCard } },
  { name: 'GitHub: latin1', method: 'POST', path: '/v1/webhook/github', body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: 'report by commit sha', path: `/reports/${commitSha}`, headers: { accept: 'application/json' } },
];

const reports: GoldenRequest[] = [
  { name: 'report page', path: '/reports/{{report}}' },
  { name: 'report as JSON', path: '/reports/{{report}}', headers: { accept: 'application/json' } },
  { name: 'report page with findings', path: '/reports/{{warnedReport}}' },
  { name: 'card of a report', path: '/reports/{{warnedReport}}/card.json' },
  { name: 'card of a report: an index', path: '/reports/{{report}}/card.json?index=0' },
  { name: 'badge', path: '/reports/{{report}}/badge.svg' },
  { name: 'batch report page', path: '/reports/{{batch}}' },
  { name: 'batch report as JSON', path: '/reports/{{batch}}', headers: { accept: 'application/json' } },
  { name: 'card of a batch', path: '/reports/{{batch}}/card.json?index=1' },
  { name: 'card of a batch: no index', path: '/reports/{{batch}}/card.json' },
  { name: 'card of a batch: a bad index', path: '/reports/{{batch}}/card.json?index=-1' },
  { name: 'unknown report, API client', path: '/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA' },
  { name: 'unknown report, browser', path: '/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', headers: { accept: 'text/html' } },
  { name: 'badge of an unknown report', path: '/reports/nothing/badge.svg' },
  { name: 'card of an unknown report', path: '/reports/nothing/card.json' },
  { name: 'diff of two reports as JSON', path: '/reports/{{report}}/diff/{{warnedReport}}', headers: { accept: 'application/json' } },
  { name: 'diff of two reports, page', path: '/reports/{{report}}/diff/{{warnedReport}}' },
  { name: 'diff with a batch report', path: '/reports/{{report}}/diff/{{batch}}', headers: { accept: 'application/json' } },
  { name: 'diff with an unknown report', path: '/reports/{{report}}/diff/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', headers: { accept: 'application/json' } },
];

const adminLists: GoldenRequest[] = [
  { name: 'sessions signed in', path: '/admin/api/sessions', auth: 'admin' },
  { name: 'end a person\'s sessions', method: 'POST', path: '/admin/api/sessions/revoke', auth: 'admin', json: { subject: 'someone-who-left' } },
  { name: 'end sessions: no subject', method: 'POST', path: '/admin/api/sessions/revoke', auth: 'admin', json: {} },
  { name: 'usage', path: '/admin/api/usage', auth: 'admin' },
  { name: 'usage of anonymous callers, a day', path: '/admin/api/usage?days=1&account_id=anonymous', auth: 'admin' },
  { name: 'usage: days out of range', path: '/admin/api/usage?days=0', auth: 'admin' },
  { name: 'account with today\'s use', path: '/admin/api/accounts/{{freeAccount}}', auth: 'admin' },
  { name: 'reports, newest first', path: '/admin/api/reports', auth: 'admin' },
  { name: 'reports, first page of two', path: '/admin/api/reports?limit=2', auth: 'admin', save: { reportCursor: 'next_cursor' } },
  { name: 'reports, next page', path: '/admin/api/reports?limit=2&cursor={{reportCursor}}', auth: 'admin' },
  { name: 'reports found by agent name', path: '/admin/api/reports?q=Positions', auth: 'admin' },
  { name: 'reports by score', path: '/admin/api/reports?sort=score', auth: 'admin' },
  { name: 'reports by errors, descending, of one account', path: '/admin/api/reports?sort=-errors&account_id={{proAccount}}', auth: 'admin' },
  { name: 'reports: unknown sort', path: '/admin/api/reports?sort=size', auth: 'admin' },
  { name: 'reports: cursor of another sort', path: '/admin/api/reports?sort=score&cursor={{reportCursor}}', auth: 'admin' },
  { name: 'trusted keys, none', path: '/admin/api/trust-keys', auth: 'admin' },
  { name: 'trust a key', method: 'POST', path: '/admin/api/trust-keys', auth: 'admin', json: { jwk: publicJwk, kid: 'golden-1' }, save: { trustKey: 'keys.0.id' } },
  { name: 'trust a key for an account', method: 'POST', path: '/admin/api/trust-keys', auth: 'admin', json: { jwk: publicJwk, kid: 'golden-2', account_id: '{{proAccount}}' } },
  { name: 'trust a key: kid taken', method: 'POST', path: '/admin/api/trust-keys', auth: 'admin', json: { jwk: publicJwk, kid: 'golden-1' } },
  { name: 'trust a key: no kid', method: 'POST', path: '/admin/api/trust-keys', auth: 'admin', json: { jwk: publicJwk } },
  { name: 'trust a key: a private key', method: 'POST', path: '/admin/api/trust-keys', auth: 'admin', json: { jwk: { ...publicJwk, d: 'AAAA' }, kid: 'golden-3' } },
  { name: 'trusted keys of an account', path: '/admin/api/trust-keys?account_id={{proAccount}}', auth: 'admin' },
  { name: 'trusted keys of an unknown account', path: '/admin/api/trust-keys?account_id=acct_missing', auth: 'admin' },
  { name: 'revoke from a time', method: 'POST', path: '/admin/api/trust-keys/{{trustKey}}/revoke', auth: 'admin', json: { at: '2030-01-02T03:04:05Z' } },
  { name: 'revoke: a bad time', method: 'POST', path: '/admin/api/trust-keys/{{trustKey}}/revoke', auth: 'admin', json: { at: 'tomorrow' } },
  { name: 'revoke an unknown key', method: 'POST', path: '/admin/api/trust-keys/tk_missing/revoke', auth: 'admin', json: {} },
  { name: 'delete a trusted key', method: 'DELETE', path: '/admin/api/trust-keys/{{trustKey}}', auth: 'admin' },
  { name: 'delete it again', method: 'DELETE', path: '/admin/api/trust-keys/{{trustKey}}', auth: 'admin' },
  // An account's ruleset, set and deleted again: the answers after these are judged as before.
  { name: 'catalogue as a built-in ruleset makes it', path: '/v1/rules?ruleset=cardgate:strict' },
  { name: 'catalogue of an unknown ruleset', path: '/v1/rules?ruleset=cardgate:lax' },
  { name: 'catalogue of the account ruleset without a key', path: '/v1/rules?ruleset=account' },
  { name: 'account ruleset, none', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin' },
  { name: 'set a bad account ruleset', method: 'PUT', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin', headers: { 'content-type': 'application/yaml' }, body: 'rules:\n  url.nope: error\n' },
  { name: 'set an account ruleset', method: 'PUT', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin', headers: { 'content-type': 'application/yaml' }, body: 'rules:\n  field.unknown: off\n' },
  { name: 'account ruleset', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin' },
  { name: 'catalogue of the account ruleset', path: '/v1/rules?ruleset=account', auth: 'pro' },
  { name: 'preview a ruleset', method: 'POST', path: '/admin/api/ruleset-preview', auth: 'admin', json: { ruleset: 'rules:\n  url.https: error\n', agent_card: goldenCard } },
  { name: 'preview a bad ruleset', method: 'POST', path: '/admin/api/ruleset-preview', auth: 'admin', json: { ruleset: 'rules: [', agent_card: goldenCard } },
  { name: 'delete the account ruleset', method: 'DELETE', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin' },
  { name: 'delete the account ruleset again', method: 'DELETE', path: '/admin/api/accounts/{{proAccount}}/ruleset', auth: 'admin' },
  { name: 'set the ruleset of an unknown account', method: 'PUT', path: '/admin/api/accounts/acct_missing/ruleset', auth: 'admin', json: { rules: {} } },
  { name: 'audit log, newest first', path: '/admin/api/audit?limit=3', auth: 'admin' },
  { name: 'audit log of one action', path: '/admin/api/audit?action=ruleset.put', auth: 'admin' },
  { name: 'audit log: a cursor it did not give out', path: '/admin/api/audit?cursor=nope', auth: 'admin' },
  { name: 'audit log export of one action', path: '/admin/api/audit/export?action=account.create', auth: 'admin' },
  { name: 'export', path: '/admin/api/export', auth: 'admin' },
  { name: 'export without a token', path: '/admin/api/export' },
  { name: 'metrics', path: '/metrics', auth: 'admin' },
];

// Agents, last: their keyed validations change no answer before them.
const agents: GoldenRequest[] = [
  { name: 'keyed validation of a named agent', method: 'POST', path: '/v1/validate', auth: 'pro', json: { agent_card: goldenCard, options: { agent: 'golden/agent' } }, save: { agent: 'agent.id' } },
  { name: 'the same agent, an invalid card', method: 'POST', path: '/v1/validate', auth: 'pro', body: singleText(invalidCard, { agent: 'golden/agent' }) },
  { name: 'agent history as JSON', path: '/agents/{{agent}}', auth: 'pro', headers: { accept: 'application/json' } },
  { name: 'agent history, page', path: '/agents/{{agent}}', auth: 'admin', headers: { accept: 'text/html' } },
  { name: 'agent history, first page of one', path: '/agents/{{agent}}?limit=1', auth: 'pro', headers: { accept: 'application/json' }, save: { historyCursor: 'next_cursor' } },
  { name: 'agent history, next page', path: '/agents/{{agent}}?limit=1&cursor={{historyCursor}}', auth: 'pro', headers: { accept: 'application/json' } },
  { name: 'agent history with a key of another account', path: '/agents/{{agent}}', auth: 'free', headers: { accept: 'application/json' } },
  { name: 'agent history without credentials', path: '/agents/{{agent}}', headers: { accept: 'application/json' } },
  { name: 'agent badge with a wrong token', path: '/agents/{{agent}}/badge.svg?token=wrong' },
  { name: 'agent history of an unknown agent', path: '/agents/agt_missing', auth: 'admin', headers: { accept: 'application/json' } },
  { name: 'agent history without credentials, browser', path: '/agents/agt_missing', headers: { accept: 'text/html' } },
  { name: 'agent history: a bad limit', path: '/agents/agt_missing?limit=101', auth: 'admin', headers: { accept: 'application/json' } },
  { name: 'badge of an unknown agent', path: '/agents/agt_missing/badge.svg?token=nothing' },
  { name: 'agents, most recently seen first', path: '/admin/api/agents', auth: 'admin' },
  { name: 'agents of one account, by name', path: '/admin/api/agents?sort=name&account_id={{proAccount}}', auth: 'admin' },
  { name: 'agents: unknown sort', path: '/admin/api/agents?sort=size', auth: 'admin' },
  { name: 'agents: a cursor of the reports', path: '/admin/api/agents?cursor={{reportCursor}}', auth: 'admin' },
];

/** Last: a monitor's run stores a report and counts usage, which the answers above would show. */
const monitors: GoldenRequest[] = [
  { name: 'monitor a card', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: 3600, notify_url: '{{receiver}}/monitor-events' }, save: { monitor: 'monitor.id' } },
  { name: 'monitor: interval 0', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: 0 } },
  { name: 'monitor: interval as a string', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: '60' } },
  { name: 'monitor: notify_url to the metadata address', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: 60, notify_url: 'http://169.254.169.254/latest' } },
  { name: 'monitor: unknown account', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: 'acct_missing', url: '{{receiver}}/agent.json', interval_seconds: 60 } },
  { name: 'monitors', path: '/admin/api/monitors', auth: 'admin' },
  { name: 'monitors of an account', path: '/admin/api/monitors?account_id={{proAccount}}&limit=1', auth: 'admin' },
  { name: 'monitors of an unknown account', path: '/admin/api/monitors?account_id=acct_missing', auth: 'admin' },
  { name: 'monitors without a token', path: '/admin/api/monitors' },
  { name: 'a monitor', path: '/admin/api/monitors/{{monitor}}', auth: 'admin' },
  { name: 'pause a monitor', method: 'POST', path: '/admin/api/monitors/{{monitor}}/pause', auth: 'admin' },
  { name: 'resume a monitor', method: 'POST', path: '/admin/api/monitors/{{monitor}}/resume', auth: 'admin' },
  { name: 'change a monitor', method: 'PATCH', path: '/admin/api/monitors/{{monitor}}', auth: 'admin', json: { agent: 'golden/agent', interval_seconds: 7200, live: false } },
  { name: 'change a monitor: nothing named', method: 'PATCH', path: '/admin/api/monitors/{{monitor}}', auth: 'admin', json: {} },
  { name: 'delete a monitor', method: 'DELETE', path: '/admin/api/monitors/{{monitor}}', auth: 'admin' },
  { name: 'delete the monitor again', method: 'DELETE', path: '/admin/api/monitors/{{monitor}}', auth: 'admin' },
  { name: 'monitor: an agent name with a line break', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: 3600, agent: 'golden\nagent' } },
  { name: 'monitor a card as the agent CI names', method: 'POST', path: '/admin/api/monitors', auth: 'admin', json: { account_id: '{{proAccount}}', url: '{{receiver}}/agent.json', interval_seconds: 3600, agent: 'golden/agent' }, save: { namedMonitor: 'monitor.id' } },
  { name: 'delete the monitor of a named agent', method: 'DELETE', path: '/admin/api/monitors/{{namedMonitor}}', auth: 'admin' },
];

/** Last, so that no earlier answer changes: an agent made to be deleted. */
const agentDeletion: GoldenRequest[] = [
  { name: 'keyed validation of an agent to delete', method: 'POST', path: '/v1/validate', auth: 'pro', json: { agent_card: goldenCard, options: { agent: 'golden/short-lived' } }, save: { doomedAgent: 'agent.id' } },
  { name: 'set an agent\'s default branch', method: 'PATCH', path: '/admin/api/agents/{{doomedAgent}}', auth: 'admin', json: { default_branch: 'release' } },
  { name: 'set a default branch that is no name', method: 'PATCH', path: '/admin/api/agents/{{doomedAgent}}', auth: 'admin', json: { default_branch: '' } },
  { name: 'set the default branch of an unknown agent', method: 'PATCH', path: '/admin/api/agents/agt_missing', auth: 'admin', json: { default_branch: 'main' } },
  { name: 'agent history of its default branch', path: '/agents/{{doomedAgent}}?branch=release', auth: 'pro', headers: { accept: 'application/json' } },
  { name: 'agent history: a branch filter that is no name', path: '/agents/{{doomedAgent}}?branch=%20release', auth: 'pro', headers: { accept: 'application/json' } },
  { name: 'delete an agent', method: 'DELETE', path: '/admin/api/agents/{{doomedAgent}}', auth: 'admin' },
  { name: 'delete the agent again', method: 'DELETE', path: '/admin/api/agents/{{doomedAgent}}', auth: 'admin' },
  { name: 'delete an agent without a token', method: 'DELETE', path: '/admin/api/agents/{{doomedAgent}}' },
];

/** After them: a tool call of the MCP server stores a report of its own, which no earlier answer shows. */
const mcp: GoldenRequest[] = [
  { name: 'MCP: tools/list', method: 'POST', path: '/mcp', auth: 'pro', headers: mcpAccept, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  { name: 'MCP: validate_card', method: 'POST', path: '/mcp', auth: 'pro', headers: mcpAccept, json: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'validate_card', arguments: { card: warnedCard } } } },
  { name: 'MCP: validate_card of a file', method: 'POST', path: '/mcp', auth: 'pro', headers: mcpAccept, json: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'validate_card', arguments: { path: '/dev/zero' } } } },
  { name: 'MCP: not JSON', method: 'POST', path: '/mcp', auth: 'pro', headers: mcpAccept, body: '{"jsonrpc":' },
  { name: 'MCP: GET', path: '/mcp', headers: mcpAccept },
];

export const goldenRequests: GoldenRequest[] = [...service, ...accounts, ...validation, ...webhooks, ...reports, ...adminLists, ...agents, ...monitors, ...agentDeletion, ...mcp];
