/**
 * The behaviour baseline: a fixed list of requests (golden-answers.requests.ts) covering every
 * route of the service, successes and errors, sent in order to the real server on a fresh data
 * dir. Each answer (status, headers, body, masked as golden-answers.masks.ts says) must equal
 * test/api/fixtures/golden-answers.json, and /openapi.json must equal
 * test/api/fixtures/golden-answers.openapi.json, byte for byte. `UPDATE_GOLDEN=1` rewrites both.
 * The server runs in this process on a clock of its own, at fixed dates (RUN_DATES): what the
 * answers show depends on no day the suite runs on, and a date written in the code (an example in
 * a page) is never taken for a time of the run.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/lib/clock.ts';
import { startInProcess } from '../support/server.ts';
import { Masker, type RecordedAnswer } from './golden-answers.masks.ts';
import { goldenCard, goldenRequests, WEBHOOK_BLOCK, type GoldenRequest } from './golden-answers.requests.ts';

const answersFile = new URL('./fixtures/golden-answers.json', import.meta.url);
const openApiFile = new URL('./fixtures/golden-answers.openapi.json', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';
const ADMIN_TOKEN = 'golden-admin-token-0123456789';
const MAX_POLLS = 200;

/** Limits low enough that the quota errors cost a request or two; bodies small enough that the size errors are cheap. */
const config = {
  adminToken: ADMIN_TOKEN,
  publicUrl: 'http://cardgate.test',
  reportsUrl: 'http://reports.cardgate.test',
  limits: { daily: { anonymous: 3, free: 1 } },
  http: { maxBodyBytes: 65_536, maxBatchBodyBytes: 131_072 },
  validation: { workers: 1 },
  webhooks: { allowedHosts: ['loopback'], signingSecret: 'whsec_Z29sZGVuLWFuc3dlcnMtc2lnbmluZy1zZWNyZXQ=', pollIntervalMs: 100 },
  cardFetch: { allowedHosts: ['loopback'] },
  // A monitor runs when created; the runner's poll never comes within a run (a resumed monitor is due
  // at the next poll: under load, a poll between its resume and its deletion charged one validation more).
  monitors: { pollIntervalMs: 3_600_000 },
};

interface Receiver {
  url: string;
  callbacks: Array<{ headers: Record<string, string | string[] | undefined>; body: string }>;
  server: Server;
}

/** The loopback host the service fetches a card from (GET /agent.json) and posts the callback to (POST /callback). */
const startReceiver = async (): Promise<Receiver> => {
  const callbacks: Receiver['callbacks'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/agent.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(goldenCard));
      if (req.method === 'POST' && req.url === '/callback') {
        callbacks.push({ headers: req.headers, body });
        return void res.writeHead(204).end();
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, callbacks, server };
};

type Vars = Record<string, string>;

const fill = (text: string, vars: Vars): string =>
  text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (vars[name] === undefined) throw new Error(`no value saved as ${name}`);
    return vars[name]!;
  });

const fillJson = (value: unknown, vars: Vars): unknown => {
  if (typeof value === 'string') return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => fillJson(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v, vars)]));
  return value;
};

const at = (value: unknown, dotted: string): unknown => dotted.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);

const authorization = (auth: GoldenRequest['auth'], vars: Vars): string | undefined =>
  auth === undefined
    ? undefined
    : {
        admin: `Bearer ${ADMIN_TOKEN}`,
        pro: `Bearer ${vars.proKey}`,
        free: `Bearer ${vars.freeKey}`,
        unknown: `Bearer cardgate_${'A'.repeat(43)}`,
        malformed: 'Bearer not-a-key',
      }[auth];

/** The request as fetch sends it: bodies as bytes, so that no content type is added unless the request names one. */
const requestInit = (req: GoldenRequest, vars: Vars): RequestInit => {
  const text =
    req.bodyBytes !== undefined
      ? `{"agent_card":{"name":"${'x'.repeat(req.bodyBytes - 26)}"}}`
      : req.json !== undefined
        ? JSON.stringify(fillJson(req.json, vars))
        : req.body;
  const headers: Record<string, string> = {};
  if (text !== undefined) headers['content-type'] = 'application/json';
  const auth = authorization(req.auth, vars);
  if (auth) headers.authorization = auth;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === '') delete headers[name];
    else headers[name] = fill(value, vars);
  }
  return { method: req.method ?? 'GET', headers, redirect: 'manual', ...(text === undefined ? {} : { body: Buffer.from(text) }) };
};

/** Sends one request (again, bounded, until its `until` holds); returns its masked record and its JSON, if any. */
const send = async (base: string, req: GoldenRequest, vars: Vars, masker: Masker, clock: Clock): Promise<{ answer: RecordedAnswer; json: unknown }> => {
  for (let poll = 1; ; poll++) {
    const res = await fetch(base + fill(req.path, vars), requestInit(req, vars));
    const bytes = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? '';
    let json: unknown;
    if (/\bjson\b/.test(contentType) && bytes.length > 0) json = JSON.parse(bytes.toString('utf8'));
    const pending = req.until !== undefined && Object.entries(req.until).some(([path, value]) => at(json, path) !== value);
    if (pending && poll < MAX_POLLS) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    masker.until(clock.now());
    const answer = {
      name: req.name,
      request: `${req.method ?? 'GET'} ${req.path}`,
      status: res.status,
      headers: masker.headers(res.headers, req.clockHeaders),
      body: masker.body(bytes, contentType),
    };
    return { answer, json };
  }
};

/**
 * The webhook limit counts per clock minute, and its headers show the count: the webhook requests
 * (about a second's worth) must fall in one minute, so in the last 5 s of one they wait for the next.
 */
const startOfAMinute = async (clock: Clock): Promise<void> => {
  const intoMinute = clock.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
};

const runAll = async (base: string, vars: Vars, masker: Masker, clock: Clock): Promise<RecordedAnswer[]> => {
  const answers: RecordedAnswer[] = [];
  for (const req of goldenRequests) {
    if (req.name === WEBHOOK_BLOCK) await startOfAMinute(clock);
    const { answer, json } = await send(base, req, vars, masker, clock);
    answers.push(answer);
    for (const [name, path] of Object.entries(req.save ?? {})) {
      const value = at(json, path);
      assert.equal(typeof value, 'string', `${req.name}: nothing to save at ${path}: ${JSON.stringify(answer.body)}`);
      vars[name] = value as string;
    }
  }
  return answers;
};

/** The OpenAPI document's operations that no golden request reaches (by method and path). */
const uncovered = (document: { paths: Record<string, Record<string, unknown>> }, vars: Vars): string[] => {
  const sent = goldenRequests.map((r) => ({ method: (r.method ?? 'GET').toLowerCase(), path: fill(r.path, vars).split('?')[0]! }));
  return Object.entries(document.paths).flatMap(([template, operations]) => {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
    return Object.keys(operations)
      .filter((method) => !sent.some((s) => s.method === method && pattern.test(s.path)))
      .map((method) => `${method.toUpperCase()} ${template}`);
  });
};

/** JSON text indented by two spaces as JSON.stringify does, its keys in the order they come (JSON.parse would move integer-like keys first). */
const indentJson = (text: string): string => {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = /"(?:[^"\\]|\\.)*"/y;
      end.lastIndex = i;
      const literal = end.exec(text)![0];
      out += literal;
      i += literal.length - 1;
    } else if ((ch === '{' || ch === '[') && text[i + 1] === (ch === '{' ? '}' : ']')) {
      out += ch + text[++i];
    } else if (ch === '{' || ch === '[') {
      depth++;
      out += ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else if (!/\s/.test(ch)) out += ch;
  }
  return out;
};

/** The callback as the receiver got it, recorded after the answers. */
const callbackRecord = ({ headers, body }: Receiver['callbacks'][number], masker: Masker): RecordedAnswer => ({
  name: 'the callback of the webhook with a callback_url, as received',
  request: 'POST {{receiver}}/callback (from the service)',
  status: null,
  headers: masker.headers(new Headers(Object.entries(headers).map(([name, value]) => [name, String(value)]))),
  body: masker.body(Buffer.from(body), String(headers['content-type'])),
});

const compareOrWrite = (file: URL, actual: string): void => {
  if (update) return writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, 'utf8'));
};

/**
 * The dates the service runs at, each a whole run giving the same answers: a mid-year day, a leap
 * day just before a UTC midnight and the next day just after it. Far from every date written in
 * the code and the requests (checked below), so none of those is masked as a time of the run.
 */
const RUN_DATES = ['2027-06-15T12:00:00Z', '2028-02-29T23:57:00Z', '2028-03-01T00:00:01Z'].map(Date.parse);
/** How far a written date must be from a run date: the masks take ±2 days of the run for its times. */
const WRITTEN_DATE_MARGIN_MS = 30 * 86_400_000;

/** A clock that starts at `at` and runs as the system's does. */
const clockFrom = (at: number): Clock => {
  const offset = at - Date.now();
  return { now: () => Date.now() + offset };
};

interface GoldenRun {
  url: string;
  answers: RecordedAnswer[];
  vars: Vars;
  stop(): Promise<void>;
}

/** One fresh server at `at`, every golden request sent to it, and the callback it posted. */
const goldenRun = async (at: number): Promise<GoldenRun> => {
  const receiver = await startReceiver();
  const vars: Vars = { receiver: receiver.url };
  const clock = clockFrom(at);
  const server = await startInProcess(config, { clock });
  try {
    const masker = new Masker(clock.now());
    const answers = await runAll(server.url, vars, masker, clock);
    answers.push(...receiver.callbacks.map((callback) => callbackRecord(callback, masker)));
    return { url: server.url, answers, vars, stop: async () => void (await server.close(), receiver.server.close()) };
  } catch (e) {
    await server.close();
    receiver.server.close();
    throw e;
  }
};

const assertGolden = (answers: RecordedAnswer[], at: number): void => {
  assert.equal(answers.length, goldenRequests.length + 1);
  const text = `${JSON.stringify(answers, null, 2)}\n`;
  if (!update) {
    // The first answer that differs, on its own: a readable failure before the whole file's.
    const golden = JSON.parse(readFileSync(answersFile, 'utf8')) as RecordedAnswer[];
    answers.forEach((answer, i) => assert.deepEqual(answer, golden[i], `answer ${i} at ${new Date(at).toISOString()}: ${answer.name}`));
  }
  compareOrWrite(answersFile, text);
};

/** Every date (YYYY-MM-DD) written in the source and in the golden requests, with where. */
const writtenDates = (): Array<{ date: string; where: string }> => {
  const root = new URL('../..', import.meta.url).pathname;
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  const files = [...walk(join(root, 'src')), join(root, 'test/api/golden-answers.requests.ts')];
  return files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)/g)].map((m) => ({ date: m[1]!, where: file.slice(root.length) })));
};

describe('golden answers of every route', () => {
  let run: GoldenRun;

  before(async () => {
    run = await goldenRun(RUN_DATES[0]!);
  });
  after(async () => {
    await run?.stop();
  });

  it('answers every request as the golden file says', () => {
    assertGolden(run.answers, RUN_DATES[0]!);
  });

  for (const at of RUN_DATES.slice(1)) {
    it(`answers the same when the service runs at ${new Date(at).toISOString()}`, { skip: update }, async () => {
      const other = await goldenRun(at);
      try {
        assertGolden(other.answers, at);
      } finally {
        await other.stop();
      }
    });
  }

  it('runs at dates far from every date written in the code and the requests, so that no written date is masked', () => {
    const written = writtenDates();
    assert.ok(written.some((w) => w.date === '2030-01-02'), 'the scan finds the dates of the requests');
    const near = written.filter((w) => RUN_DATES.some((at) => Math.abs(Date.parse(w.date) - at) < WRITTEN_DATE_MARGIN_MS));
    assert.deepEqual(near, [], 'a date written this close to a run date would be masked as a time of the run: move the run dates');
  });

  it('reaches every operation of the OpenAPI document, and serves the document as the golden file says', async () => {
    const res = await fetch(`${run.url}/openapi.json`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const document = JSON.parse(text) as { paths: Record<string, Record<string, unknown>> };
    assert.ok(Object.keys(document.paths).length > 0);
    assert.deepEqual(uncovered(document, run.vars), []);
    // Byte for byte in the answers file; here indented, for a readable diff.
    compareOrWrite(openApiFile, `${indentJson(text)}\n`);
  });
});
