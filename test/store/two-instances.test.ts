/**
 * Black-box: two (or three) real `cardgate serve` processes on one PostgreSQL database behave as
 * one service. Limits admit exactly their number over both, whatever instance each request
 * reaches; a report, a key, a plan and the admin token are the same on every instance at once; a
 * webhook job held by an instance that dies (SIGKILL) is delivered by the other once its lease
 * ends, and one handed back at SIGTERM is delivered at once, exactly once either way. New agents of
 * one account made through both never pass agents.maxPerAccount.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import postgres from 'postgres';
import { after, before, describe, test } from 'node:test';
import { validCard } from '../features/webhooks/fixtures.ts';
import { DAY_MS } from '../../src/lib/clock.ts';
import { databaseFactory } from '../support/postgres.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { awaitWindowRoom, MINUTE_MS } from '../support/windows.ts';

const newDatabase = databaseFactory();
const ADMIN = { authorization: 'Bearer test-admin-token-0123456789' };

const running: RunningServer[] = [];
after(async () => {
  for (const s of running) await s.stop();
});

/** Starts instances at once on one database, each with `env` and its own service name (which callbacks carry in their User-Agent). */
const startInstances = async (count: number, env: Record<string, string>): Promise<RunningServer[]> => {
  const names = ['a', 'b', 'c'].slice(0, count);
  const started = await Promise.all(
    names.map((name) => startServer({ env: { CARDGATE_SERVICE_NAME: `cardgate-${name}`, CARDGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', ...env } })),
  );
  running.push(...started);
  return started;
};

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

const call = async (server: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
};

/** An account on `plan` made through `server`, and a key for it. */
const newAccountKey = async (server: RunningServer, plan: string) => {
  const account = await call(server, 'POST', '/admin/api/accounts', { name: `acct ${plan}`, plan }, ADMIN);
  assert.equal(account.status, 201, account.text);
  const key = await call(server, 'POST', `/admin/api/accounts/${account.json().account.id}/keys`, { name: 'ci' }, ADMIN);
  assert.equal(key.status, 201, key.text);
  return { accountId: account.json().account.id as string, keyId: key.json().key.id as string, auth: { authorization: `Bearer ${key.json().secret}` } };
};

describe('two instances, one database: limits, reports, keys and plans', () => {
  let a: RunningServer;
  let b: RunningServer;
  before(async () => {
    const db = await newDatabase();
    [a, b] = (await startInstances(2, { CARDGATE_DATABASE_URL: db.url })) as [RunningServer, RunningServer];
  });

  test('200 concurrent free-key validations split across both admit exactly 10, and both then show the same remaining', async () => {
    await awaitWindowRoom(DAY_MS, 30_000); // the daily window is the UTC day
    const { auth } = await newAccountKey(a, 'free');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i % 2 ? b : a, 'POST', '/v1/validate', { agent_card: validCard }, auth)));
    const admitted = answers.filter((r) => r.status === 200);
    assert.equal(admitted.length, 10);
    assert.ok(answers.every((r) => r.status === 200 || r.status === 403), `statuses ${[...new Set(answers.map((r) => r.status))]}`);
    // One counter for both: the admitted saw every count from 1 to 10 exactly once.
    assert.deepEqual(admitted.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const server of [a, b]) {
      const next = await call(server, 'POST', '/v1/validate', { agent_card: validCard }, auth);
      assert.equal(next.status, 403);
      assert.equal(next.headers.get('x-ratelimit-limit'), '10');
      assert.equal(next.headers.get('x-ratelimit-remaining'), '0');
    }
  });

  test('150 webhook calls from one IP split across both admit exactly the per-IP minute limit (100) in each window they fell in', async () => {
    await awaitWindowRoom(MINUTE_MS, 15_000); // mostly one window; the count below holds across two as well
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => call(i % 2 ? b : a, 'POST', '/v1/webhook', { agent_card: validCard })));
    assert.ok(answers.every((r) => r.status === 200 || r.status === 403), `statuses ${[...new Set(answers.map((r) => r.status))]}`);
    // Every answer names the window it was counted in (X-RateLimit-Reset): each admits min(its requests, 100).
    const windows = new Map<string | null, Answer[]>();
    for (const r of answers) windows.set(r.headers.get('x-ratelimit-reset'), [...(windows.get(r.headers.get('x-ratelimit-reset')) ?? []), r]);
    for (const [reset, inWindow] of windows) {
      assert.equal(inWindow.filter((r) => r.status === 200).length, Math.min(inWindow.length, 100), `window ending ${reset}: ${inWindow.length} requests`);
    }
    if (windows.size === 1) assert.equal(answers.filter((r) => r.status === 200).length, 100);
  });

  test('a report made on A reads on B, as JSON and as the HTML page', async () => {
    const made = await call(a, 'POST', '/v1/validate', { agent_card: validCard });
    assert.equal(made.status, 200, made.text);
    const id = made.json().report_id as string;
    const onA = await call(a, 'GET', `/reports/${id}`);
    const onB = await call(b, 'GET', `/reports/${id}`);
    assert.equal(onB.status, 200);
    assert.deepEqual(onB.json(), onA.json());
    assert.deepEqual(onB.json().card, validCard);
    const page = await call(b, 'GET', `/reports/${id}`, undefined, { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(page.text.includes(validCard.name), 'the page shows the card');
  });

  test('a key, a plan, an account changed on A are in force on B at its next request', async () => {
    const { accountId, keyId, auth } = await newAccountKey(a, 'free');
    assert.equal((await call(b, 'POST', '/v1/validate', { agent_card: validCard }, auth)).headers.get('x-ratelimit-limit'), '10');
    assert.equal((await call(a, 'PATCH', `/admin/api/accounts/${accountId}`, { plan: 'pro' }, ADMIN)).status, 200);
    assert.equal((await call(b, 'POST', '/v1/validate', { agent_card: validCard }, auth)).headers.get('x-ratelimit-limit'), '-1', 'pro on B at once');
    assert.equal((await call(a, 'DELETE', `/admin/api/keys/${keyId}`, undefined, ADMIN)).status, 200);
    const refused = await call(b, 'POST', '/v1/validate', { agent_card: validCard }, auth);
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.json().error.code, 'UNAUTHORIZED');
  });
});

test('40 concurrent keyed validations of distinct agents split across both make exactly agents.maxPerAccount (5) agents; the others answer with agent_notice', async () => {
  const db = await newDatabase();
  const [a, b] = (await startInstances(2, { CARDGATE_DATABASE_URL: db.url, CARDGATE_AGENTS_MAX_PER_ACCOUNT: '5', CARDGATE_LIMIT_PRO: '-1' })) as [RunningServer, RunningServer];
  const { accountId, auth } = await newAccountKey(a, 'pro');
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, 'POST', '/v1/validate', { agent_card: validCard, options: { agent: `crawled/${i}` } }, auth)),
  );
  for (const answer of answers) assert.equal(answer.status, 200, answer.text);
  const joined = answers.filter((answer) => answer.json().agent !== undefined);
  assert.equal(joined.length, 5, 'exactly the bound joined an agent');
  assert.ok(answers.every((answer) => answer.json().agent !== undefined || answer.json().agent_notice?.code === 'agent_limit_reached'), 'every other says why');
  const listed = await call(b, 'GET', `/admin/api/agents?account_id=${accountId}&limit=100`, undefined, ADMIN);
  assert.equal(listed.json().agents.length, 5, 'the database holds the bound, no more');
});

test('instances starting at once on an empty database agree on one admin token; a new one stored is in force on all at once', async () => {
  const db = await newDatabase();
  // No configured token (an empty variable is unset): each instance finds none and generates one.
  const instances = await startInstances(3, { CARDGATE_DATABASE_URL: db.url, CARDGATE_ADMIN_TOKEN: '' });
  // Each keeps a token it generated in its own data dir; the others found it stored, or lost the race to store theirs.
  const kept = instances.map((s) => join(s.dataDir, 'admin-token')).filter((file) => existsSync(file));
  assert.equal(kept.length, 1, `exactly one instance keeps a token:\n${instances.map((s) => s.stdout().split('\n').slice(0, 3).join('\n')).join('\n')}`);
  const tokens = kept.map((file) => readFileSync(file, 'utf8').trim());
  for (const s of instances) {
    assert.ok(!s.stdout().includes(tokens[0]!), 'never in the log stream');
    assert.equal((await call(s, 'GET', '/admin/api/accounts', undefined, { authorization: `Bearer ${tokens[0]}` })).status, 200);
    assert.equal((await call(s, 'GET', '/admin/api/accounts', undefined, { authorization: `Bearer ${tokens[0]}x` })).status, 401);
  }

  // Rotated with the CLI while they run (the hash is replaced where it is stored): every instance takes the new token at its next request.
  const rotation = await runCli(['admin-token', 'rotate', '--data-dir', instances[0]!.dataDir], { env: { CARDGATE_DATABASE_URL: db.url, CARDGATE_ADMIN_TOKEN: '' } });
  assert.equal(rotation.code, 0, rotation.stderr);
  const rotated = rotation.stdout.trim();
  assert.equal(readFileSync(join(instances[0]!.dataDir, 'admin-token'), 'utf8').trim(), rotated);
  for (const s of instances) {
    assert.equal((await call(s, 'GET', '/admin/api/accounts', undefined, { authorization: `Bearer ${rotated}` })).status, 200);
    assert.equal((await call(s, 'GET', '/admin/api/accounts', undefined, { authorization: `Bearer ${tokens[0]}` })).status, 401);
  }
  const audit = await call(instances[1]!, 'GET', '/admin/api/audit?action=admin_token.rotate', undefined, { authorization: `Bearer ${rotated}` });
  assert.equal(audit.json().entries[0].actor.kind, 'cli');

  // Configured (CARDGATE_ADMIN_TOKEN): the CLI refuses, saying where the token comes from.
  const refused = await runCli(['admin-token', 'rotate', '--data-dir', instances[0]!.dataDir], { env: { CARDGATE_DATABASE_URL: db.url, CARDGATE_ADMIN_TOKEN: 'configured-admin-token-0123456789' } });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /comes from adminToken \/ CARDGATE_ADMIN_TOKEN/);
});

/**
 * A callback receiver with a door. Shut, it takes each connection and holds it unanswered, never
 * reading it as HTTP: the delivery never reaches the receiver, and the runner that sent it waits
 * (it holds the job); the first bytes are kept to tell which instance sent it. Opened, new
 * connections are served and recorded.
 */
const startGatedReceiver = async () => {
  const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string; at: number }> = [];
  const http = createHttpServer((req, res) => {
    const at = Date.now();
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body, at });
      res.end('ok');
    });
  });
  const held: Array<{ socket: Socket; head: string }> = [];
  let shut = true;
  const door = createNetServer((socket) => {
    if (!shut) return void http.emit('connection', socket);
    const entry = { socket, head: '' };
    held.push(entry);
    socket.on('data', (d) => (entry.head += d));
    socket.on('error', () => {}); // its sender may die
  });
  await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(door.address() as AddressInfo).port}`,
    received,
    /** The head of the first held delivery, once whole. */
    heldDelivery: async (withinMs: number): Promise<string> => {
      const deadline = Date.now() + withinMs;
      while (!held[0]?.head.includes('\r\n\r\n')) {
        assert.ok(Date.now() < deadline, 'no delivery was attempted');
        await new Promise((r) => setTimeout(r, 20));
      }
      return held[0].head;
    },
    /** New connections are served; those held stay held (unanswered) until their sender gives up on them. */
    open: () => {
      shut = false;
    },
    /** The deliveries received for `id`, waiting up to `withinMs` for the first. */
    deliveriesOf: async (id: string, withinMs: number) => {
      const of = () => received.filter((r) => JSON.parse(r.body).validation_id === id);
      const deadline = Date.now() + withinMs;
      while (of().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return of();
    },
    close: () => {
      for (const { socket } of held) socket.destroy();
      http.closeAllConnections();
      return new Promise<void>((resolve) => door.close(() => resolve()));
    },
  };
};

/** Submits a job to `accepting` and waits until one instance holds it, delivering at the shut door; returns the job's id and that instance. */
const jobHeldAtTheDoor = async (instances: RunningServer[], accepting: RunningServer, door: Awaited<ReturnType<typeof startGatedReceiver>>) => {
  const accepted = await call(accepting, 'POST', '/v1/webhook', { agent_card: validCard, callback_url: `${door.url}/hook` });
  assert.equal(accepted.status, 202, accepted.text);
  const id = accepted.json().validation_id as string;
  const head = await door.heldDelivery(20_000);
  assert.match(head, new RegExp(`webhook-id: ${id}`, 'i'));
  // Usually the instance that accepted it; either may claim it, and the test follows whichever does.
  const name = /user-agent: cardgate-(\w)\//i.exec(head)![1]!;
  const holder = instances[['a', 'b'].indexOf(name)]!;
  return { id, holder, other: instances.find((s) => s !== holder)! };
};

test('a job held by an instance killed with SIGKILL is delivered by the other once its lease ends, exactly once', async () => {
  const db = await newDatabase();
  const env = { CARDGATE_DATABASE_URL: db.url, CARDGATE_WEBHOOK_JOB_LEASE_MS: '1500', CARDGATE_WEBHOOK_POLL_INTERVAL_MS: '200' };
  const instances = await startInstances(2, env);
  const door = await startGatedReceiver();
  after(() => door.close());
  const { id, holder, other } = await jobHeldAtTheDoor(instances, instances[0]!, door);
  for (const s of instances) assert.equal((await call(s, 'GET', `/v1/status/${id}`)).json().status, 'processing');

  await holder.kill9();
  // The lease as the dead holder last renewed it (every third of it; late on a loaded machine).
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const [row] = await sql<Array<{ lease_until: string }>>`select lease_until from jobs where id = ${id}`;
  const leaseEnd = row!.lease_until;
  await sql.end();
  door.open();
  const deliveries = await door.deliveriesOf(id, 20_000);
  assert.equal(deliveries.length, 1, 'delivered by the other instance');
  assert.match(String(deliveries[0]!.headers['user-agent']), new RegExp(`^cardgate-${other === instances[0] ? 'a' : 'b'}/`));
  assert.equal(JSON.parse(deliveries[0]!.body).status, 'success');
  assert.ok(deliveries[0]!.at >= Number(leaseEnd), `taken over once the lease ended, not before (${deliveries[0]!.at - Number(leaseEnd)} ms)`);
  await new Promise((r) => setTimeout(r, 2000)); // two more leases: nobody delivers it again
  assert.equal((await door.deliveriesOf(id, 0)).length, 1);

  // The status reads the same on every instance: the survivor and one started in the dead one's place.
  const [replacement] = await startInstances(1, env);
  const onOther = await call(other, 'GET', `/v1/status/${id}`);
  const onReplacement = await call(replacement!, 'GET', `/v1/status/${id}`);
  assert.equal(onOther.json().status, 'completed');
  assert.deepEqual(onReplacement.json(), onOther.json());
});

test('SIGTERM on an instance holding a job hands it back, and the other delivers it without waiting for the lease', async () => {
  const db = await newDatabase();
  // A lease far longer than the test: only the hand-back lets the other instance claim the job.
  const env = { CARDGATE_DATABASE_URL: db.url, CARDGATE_WEBHOOK_JOB_LEASE_MS: '120000', CARDGATE_WEBHOOK_POLL_INTERVAL_MS: '200', CARDGATE_SHUTDOWN_GRACE_MS: '1500' };
  const instances = await startInstances(2, env);
  const door = await startGatedReceiver();
  after(() => door.close());
  const { id, holder, other } = await jobHeldAtTheDoor(instances, instances[1]!, door);

  const stoppedAt = Date.now();
  door.open(); // new connections go through; the holder's delivery stays held until it aborts it
  assert.equal(await holder.stop(), 0);
  assert.match(holder.stdout(), /webhook callback aborted at shutdown/);
  const deliveries = await door.deliveriesOf(id, 15_000);
  assert.equal(deliveries.length, 1);
  assert.match(String(deliveries[0]!.headers['user-agent']), new RegExp(`^cardgate-${other === instances[0] ? 'a' : 'b'}/`));
  assert.ok(Date.now() - stoppedAt < 15_000, 'well before the 120 s lease');
  await new Promise((r) => setTimeout(r, 1000)); // five more polls: nobody delivers it again
  assert.equal((await door.deliveriesOf(id, 0)).length, 1);
  const status = await call(other, 'GET', `/v1/status/${id}`);
  assert.equal(status.json().status, 'completed');
});
