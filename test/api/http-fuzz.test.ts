/**
 * Fuzz over every endpoint of the real server (seeded, bounded in count and time): hostile bodies
 * (deep nesting, huge strings and arrays, broken JSON and UTF-8, odd roots), odd methods, paths,
 * headers and credentials. Nothing may answer 5xx, every error body must be in a documented shape,
 * the server must stay up, its memory must come back near where it started, and after SIGTERM
 * (exit 0) it must start again on the same data with every report it said it recorded.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nonEmpty } from '../support/checks.ts';
import { startServer } from '../support/server.ts';
import { prepareDataDir, sampleCard } from '../support/seed.ts';

const SEED = 20261123;
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 700);
const CONCURRENCY = 8;
/** A stop for a run gone slow, not a cut: the test fails when it ends before every request went out. */
const TIME_BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 60_000);
/**
 * Idle time after which RSS must be back near its baseline, and stay there: a worker with an
 * outgrown heap collects its garbage after a second without work (measured: RSS back ~1.5 s after
 * the last answer, also with two busy loops on the 2 cores). V8's own idle collection takes 10-30 s
 * or more, and on Node 24 a replaced worker's pages stay 8 s in V8's page pool, so this does not
 * pass by waiting for either.
 */
const RSS_SETTLE_MS = 5_000;
const ADMIN = 'test-admin-token-0123456789';

/** mulberry32: deterministic, so a failure reproduces from the seed. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const random = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const int = (max: number) => Math.floor(random() * max);

const deep = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);
const hugeString = () => 'x'.repeat(200_000 + int(700_000));

/** A card-ish value, sometimes hostile. */
const cardValue = (): string => {
  const card = sampleCard();
  switch (int(9)) {
    case 0: return JSON.stringify(card);
    case 1: return JSON.stringify({ ...card, description: hugeString() });
    case 2: return JSON.stringify({ ...card, skills: Array.from({ length: 20_000 + int(60_000) }, () => ({ id: 'a' })) });
    case 3: return `{"name":"deep","protocolVersion":"0.3.0","extra":${deep(500 + int(9_000), '[', ']')}}`;
    case 4: return `{"name":"deep","protocolVersion":"0.3.0","extra":${deep(500 + int(9_000), '{"a":', '}')}}`;
    case 5: return JSON.stringify({ ...card, protocolVersion: pick(['0.2.9', '9.9', '', 1, null, '1.0']), supportedInterfaces: pick([[], [{}], 'x', [{ url: 'http://0.0.0.0', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]]) });
    case 6: return pick(['[]', '"card"', '123', 'null', 'true']);
    case 7: return JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])));
    default: return `{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"name":"${'\\u0000'.repeat(50)}"}`;
  }
};

/** A well-formed request for `endpoint` around a (possibly hostile) card. */
const wellFormed = (endpoint: string, card: string): string => {
  if (endpoint.includes('batch')) return `{"cards":[${Array.from({ length: 1 + int(3) }, (_, i) => `{"id":"c${i}","agent_card":${i === 0 ? card : cardValue()}}`).join(',')}]}`;
  if (endpoint.includes('github')) return `{"agent_card":${card},"repository":"${pick(['o/r', 'evil/r', 'O/R'])}","sha":"${pick(['a', 'A', 'b'])!.repeat(40)}"}`;
  if (endpoint.includes('webhook')) return `{"agent_card":${card},"metadata":${pick(['{"ci":"x"}', '{}'])}}`;
  if (endpoint.includes('admin')) return `{"name":"fuzz ${int(1e6)}","plan":"${pick(['free', 'pro', 'team'])}"}`;
  return `{"agent_card":${card},"options":{"include_score":true,"include_suggestions":true}}`;
};

/** A broken or hostile request for `endpoint`. */
const hostile = (endpoint: string, card: string): string | Uint8Array<ArrayBuffer> => {
  switch (int(8)) {
    case 0: return '';
    case 1: return card.slice(0, int(card.length)); // truncated
    case 2: return new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]); // invalid UTF-8
    case 3: return deep(1_000 + int(20_000), '[', ']');
    case 4: return card;
    default:
      if (endpoint.includes('batch')) return pick(['{"cards":[]}', `{"cards":[{"id":"a","agent_card":{}},{"id":"a","agent_card":{}}]}`, `{"cards":${deep(4_000, '[', ']')}}`, '{"cards":"x"}']);
      if (endpoint.includes('github')) return `{"agent_card":${card},"repository":${pick(['null', '{"a":[[[[1]]]]}', '7'])},"sha":${pick(['"XYZ"', '7', deep(3_000, '[', ']')])}}`;
      if (endpoint.includes('webhook')) {
        return `{"agent_card":${card},"metadata":${pick([deep(5_000, '{"m":', '}', '{}'), '"m"', `{"big":"${'m'.repeat(30_000)}"}`])}${pick(['', ',"callback_url":"http://127.0.0.1:9/x"', ',"callback_url":"http://[::ffff:0:7f00:1]/"', ',"callback_url":7'])}}`;
      }
      if (endpoint.includes('admin')) return pick([`{"name":${JSON.stringify('n'.repeat(int(3_000)))},"plan":"gold"}`, `{"allowed_ips":[${Array.from({ length: int(2_000) }, () => '"10.0.0.1/33"').join(',')}]}`, deep(4_000, '{"name":', '}')]);
      return `{"agent_card":${card},"validation_mode":${pick(['"x"', '[]'])},"options":${pick(['{"protocolVersion":"0.2.9"}', '{"protocolVersion":"1.0"}', deep(3_000, '{"o":', '}')])}}`;
  }
};

const bodyFor = (endpoint: string): string | Uint8Array<ArrayBuffer> => {
  const card = cardValue();
  return random() < 0.6 ? wellFormed(endpoint, card) : hostile(endpoint, card);
};

const endpoints = [
  ['POST', '/v1/validate'], ['POST', '/v1/validate/batch'], ['POST', '/v1/webhook'], ['POST', '/v1/webhook/github'],
  ['GET', '/v1/status/val_unknown'], ['GET', '/v1/rules'], ['GET', '/reports/rpt_unknown'], ['GET', `/reports/${'A'.repeat(40)}`],
  ['GET', '/healthz'], ['GET', '/readyz'], ['GET', '/dashboard'], ['GET', '/admin/api/accounts'], ['POST', '/admin/api/accounts'],
  ['PATCH', '/admin/api/accounts/acct_x'], ['GET', '/admin/api/reports?limit=-1'], ['GET', '/admin/api/usage?account_id=%00'],
  ['DELETE', '/admin/api/keys/key_x'], ['PUT', '/v1/validate'], ['OPTIONS', '/v1/webhook'], ['GET', '/%2e%2e/%2e%2e/etc/passwd'],
  ['GET', `/v1/${'x'.repeat(5_000)}`], ['POST', '/nowhere'], ['GET', '/reports/%ff%fe'],
] as const;

/** The documented error shapes: nested, flat, and the single-validation failure body. */
const isDocumentedError = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  const err = b.error as Record<string, unknown> | undefined;
  if (err && typeof err === 'object' && typeof err.code === 'string' && typeof err.message === 'string') return true;
  if (typeof b.error === 'string' && typeof b.code === 'string') return true;
  return b.valid === false && Array.isArray(b.errors) && b.errors.every((e) => typeof e?.path === 'string' && typeof e?.message === 'string');
};

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};

test(`HTTP fuzz: ${REQUESTS} seeded requests over every endpoint, no 5xx, documented errors, memory back, restart clean`, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cardgate-fuzz-'));
  const key = await prepareDataDir(dataDir, { plan: 'pro' });
  const config = { limits: { daily: { anonymous: -1 }, webhookPerIpPerMinute: 100_000, webhookGlobalPerHour: 1_000_000 } };
  let server = await startServer({ dataDir, config });
  const problems: string[] = [];
  const recorded: string[] = [];
  try {
    // warm up, then take the baseline
    for (let i = 0; i < 20; i++) await (await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: sampleCard() }) })).arrayBuffer();
    const rssBefore = rssOf(server.pid);
    const deadline = Date.now() + TIME_BUDGET_MS;
    let sent = 0;
    const worker = async () => {
      while (sent < REQUESTS && Date.now() < deadline) {
        sent++;
        const [method, path] = pick(endpoints);
        const headers: Record<string, string> = {};
        if (random() < 0.9) headers['content-type'] = random() < 0.8 ? 'application/json' : pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/merge-patch+json', 'multipart/form-data']);
        const usual = path.includes('batch') ? 'key' : path.startsWith('/admin') ? 'admin' : 'none';
        const auth = random() < 0.7 ? usual : pick(['none', 'key', 'admin', 'garbage', 'basic']);
        if (auth === 'key') headers.authorization = `Bearer ${key}`;
        if (auth === 'admin') headers.authorization = `Bearer ${ADMIN}`;
        if (auth === 'garbage') headers.authorization = pick(['Bearer ', 'Bearer cardgate_', `Bearer ${'k'.repeat(4_000)}`, 'Bearer \u00ff']);
        if (auth === 'basic') headers.authorization = 'Basic Zm9vOmJhcg==';
        if (random() < 0.3) headers.accept = pick(['application/json', 'text/html', '*/*', 'application/sarif+json']);
        if (random() < 0.2) headers['x-forwarded-for'] = pick(['::ffff:0:7f00:1', '1.1.1.1, 2.2.2.2', 'garbage', '']);
        const body = method === 'GET' || method === 'OPTIONS' || method === 'DELETE' ? undefined : bodyFor(path);
        let res: Response;
        try {
          res = await fetch(`${server.url}${path}`, { method, headers, body });
        } catch (e) {
          problems.push(`${method} ${path}: no answer (${(e as Error).message})`);
          continue;
        }
        const text = await res.text();
        const where = `${method} ${path} -> ${res.status}`;
        if (res.status >= 500) problems.push(`${where}: ${text.slice(0, 200)}`);
        const type = res.headers.get('content-type') ?? '';
        if (res.status >= 400 && type.includes('json')) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            problems.push(`${where}: error body is not JSON`);
            continue;
          }
          if (!isDocumentedError(parsed)) problems.push(`${where}: undocumented error shape ${text.slice(0, 200)}`);
        } else if (res.status >= 400 && !type.includes('text/html')) {
          problems.push(`${where}: error with content-type ${JSON.stringify(type)}`);
        }
        if (res.status === 200 && type.includes('json')) {
          const parsed = JSON.parse(text) as { recorded?: boolean; report_url?: string };
          if (parsed.recorded === true && parsed.report_url) recorded.push(new URL(parsed.report_url).pathname);
        }
        // the answer stays within a small multiple of the request
        const sentBytes = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
        if (text.length > 4 * sentBytes + 256 * 1024) problems.push(`${where}: ${text.length} bytes answered to ${sentBytes} sent`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    t.diagnostic(`${sent} requests sent, ${recorded.length} recorded`);
    assert.equal(sent, REQUESTS, `the ${TIME_BUDGET_MS} ms budget ended after ${sent} of ${REQUESTS} requests (FUZZ_BUDGET_MS gives more)`);
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200, 'the server is still up');
    // Idle, the memory of the hostile requests is given back (mostly a validation worker's heap):
    // RSS must come back near the baseline within seconds, not stay high.
    const near = rssBefore * 1.3 + 48 * 2 ** 20;
    const peak = rssOf(server.pid);
    await new Promise((resolve) => setTimeout(resolve, RSS_SETTLE_MS));
    const rssAfter = rssOf(server.pid);
    t.diagnostic(`RSS ${Math.round(rssBefore / 2 ** 20)} MB before, ${Math.round(peak / 2 ** 20)} MB at the end, ${Math.round(rssAfter / 2 ** 20)} MB once idle`);
    assert.deepEqual(problems.slice(0, 30), [], `${problems.length} problems`);
    assert.ok(rssAfter <= near, `RSS back near where it started: ${rssBefore} -> ${rssAfter} after ${RSS_SETTLE_MS} ms idle`);
    assert.equal(await server.stop(), 0, `SIGTERM exits 0\n${server.stderr()}`);

    // the same data starts again and serves what was recorded
    server = await startServer({ dataDir, config });
    const lost: string[] = [];
    for (const path of nonEmpty(recorded, 'recorded reports').slice(0, 200)) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } });
      await res.arrayBuffer();
      if (res.status !== 200) lost.push(`${path}: ${res.status}`);
    }
    assert.deepEqual(lost, [], 'every recorded report is served after a restart');
  } finally {
    await server.stop();
  }
});
