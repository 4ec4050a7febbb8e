/**
 * The live checks against real agents started in this process: each check passed and failed (or
 * warned), over the real card-fetch policy with loopback allowed explicitly; the bounds (requests,
 * hosts, time); nothing with side effects unless asked; credentials only where they belong.
 */
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, before, test } from 'node:test';
import { startAgent, startSdkAgent, startSilentServer, type AgentOptions, type RunningAgent } from '../../support/a2a-agents.ts';
import { makeCertificates } from '../../support/tls-certs.ts';
import { checksOf, probeWith, statusOf } from './harness.ts';
import { HostLimiter } from '../../../src/features/probes/limits.ts';

const certs = makeCertificates();
const probe = probeWith({}, { ca: [certs.ca] });
const agents: RunningAgent[] = [];
const agent = async (o: AgentOptions = {}) => {
  const a = await startAgent(o);
  agents.push(a);
  return a;
};
after(async () => Promise.all(agents.map((a) => a.close())));

const iface0 = 'supportedInterfaces[0].url';

test('a 1.0 JSON-RPC agent that does everything right passes every read-only check (http: only https warns)', async () => {
  const a = await agent();
  const { live, requests } = await probe({ url: a.url });
  for (const id of ['live.card.delivery', 'live.card.media-type', 'live.card.caching', 'live.card.cors']) assert.equal(statusOf(live.checks, id), 'pass', id);
  for (const id of ['live.interface.reachable', 'live.version', 'live.version.negotiation', 'live.errors.parse', 'live.errors.method', 'live.extended-card']) assert.equal(statusOf(live.checks, id, iface0), 'pass', id);
  assert.equal(statusOf(live.checks, 'live.interface.https', iface0), 'warn');
  assert.ok(requests <= 20);
  assert.equal(a.messages(), 0, 'nothing with side effects was sent');
});

test('a 1.0 HTTP+JSON agent: TaskNotFound as google.rpc.Status, VersionNotSupported as 400, errors in its form', async () => {
  const a = await agent({ bindings: ['HTTP+JSON'] });
  const { live } = await probe({ url: a.url });
  for (const id of ['live.version', 'live.version.negotiation', 'live.errors.parse', 'live.errors.method', 'live.extended-card']) assert.equal(statusOf(live.checks, id, iface0), 'pass', id);
  assert.ok(a.requests.some((r) => r.method === 'GET' && /^\/rest\/tasks\/cardgate-probe-/.test(r.path) && r.headers['a2a-version'] === '1.0'), 'GET /tasks/{id} with A2A-Version: 1.0');
});

test('an @a2a-js/sdk 0.3 agent (JSON-RPC and HTTP+JSON) speaks the 0.3 it declares on both interfaces', async () => {
  const a = await startSdkAgent();
  try {
    const { live } = await probe({ url: a.url });
    for (const path of ['url', 'additionalInterfaces[1].url']) {
      for (const id of ['live.interface.reachable', 'live.version', 'live.errors.parse', 'live.errors.method', 'live.extended-card']) assert.equal(statusOf(live.checks, id, path), 'pass', `${id} at ${path}`);
    }
    assert.equal(checksOf(live.checks, 'live.version.negotiation').length, 0, 'A2A-Version is 1.0\'s: not asked of 0.3 interfaces');
    assert.equal(statusOf(live.checks, 'live.card.caching'), 'warn', 'the SDK sends an ETag but no Cache-Control max-age');
    assert.equal(a.messages(), 0);
  } finally {
    await a.close();
  }
});

test('declares 1.0 but answers only 0.3 methods (and the reverse): live.version fails and names the version it speaks', async () => {
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const only03 = await agent({ declares: '1.0', speaks: ['0.3'], bindings: [binding] });
    const v10 = checksOf((await probe({ url: only03.url })).live.checks, 'live.version', iface0)[0]!;
    assert.equal(v10.status, 'fail', binding);
    assert.match(v10.message, /does not speak the declared 1\.0.*it answers 0\.3's/, binding);
    const only10 = await agent({ declares: '0.3', speaks: ['1.0'], bindings: [binding] });
    const v03 = checksOf((await probe({ url: only10.url })).live.checks, 'live.version', 'url')[0]!;
    assert.equal(v03.status, 'fail', binding);
    assert.match(v03.message, /does not speak the declared 0\.3.*it answers 1\.0's/, binding);
  }
});

test('an unsupported A2A-Version ignored fails live.version.negotiation', async () => {
  const a = await agent({ ignoresVersion: true, bindings: ['JSONRPC', 'HTTP+JSON'] });
  const { live } = await probe({ url: a.url });
  assert.equal(statusOf(live.checks, 'live.version.negotiation', iface0), 'fail');
  assert.equal(statusOf(live.checks, 'live.version.negotiation', 'supportedInterfaces[1].url'), 'fail');
});

test('errors not in the binding\'s form fail live.errors.parse and live.errors.method', async () => {
  const a = await agent({ sloppyErrors: true, bindings: ['JSONRPC', 'HTTP+JSON'] });
  const { live } = await probe({ url: a.url });
  for (const path of [iface0, 'supportedInterfaces[1].url']) {
    assert.equal(statusOf(live.checks, 'live.errors.parse', path), 'fail', path);
    assert.equal(statusOf(live.checks, 'live.errors.method', path), 'fail', path);
  }
});

test('the card: wrong content type, no caching headers, no CORS, found at no path', async () => {
  const wrongType = await agent({ cardType: 'text/html' });
  assert.equal(statusOf((await probe({ url: wrongType.url })).live.checks, 'live.card.media-type'), 'warn');
  const noCache = await agent({ caching: false, cors: false });
  const { live } = await probe({ url: noCache.url });
  assert.equal(statusOf(live.checks, 'live.card.caching'), 'warn');
  assert.match(checksOf(live.checks, 'live.card.caching')[0]!.message, /no Cache-Control with max-age, no ETag/);
  assert.equal(statusOf(live.checks, 'live.card.cors'), 'warn');
  const missing = await probe({ url: `${noCache.url}/cards/none.json` });
  assert.equal(statusOf(missing.live.checks, 'live.card.delivery'), 'fail');
  assert.match(missing.problem!, /answered HTTP 404/);
});

test('a card given is compared with the card its origin serves: live.card.matches', async () => {
  const a = await agent();
  assert.equal(statusOf((await probe({ card: a.card })).live.checks, 'live.card.matches'), 'pass');
  const changed = await probe({ card: { ...a.card, description: 'Not what is published.' } });
  const check = checksOf(changed.live.checks, 'live.card.matches')[0]!;
  assert.equal(check.status, 'warn');
  assert.match(check.message, /differs .* in description/);
});

test('a redirect of the card to 169.254.169.254 is never followed, by address or by a name resolving there', async () => {
  const direct = await agent({ cardRedirect: 'http://169.254.169.254/latest/meta-data/' });
  const service = await probe({ url: direct.url });
  assert.equal(statusOf(service.live.checks, 'live.card.delivery'), 'fail');
  assert.match(service.problem!, /another host: not followed/);
  // With redirects to other hosts followed (the CLI), the policy refuses each hop.
  const cli = probeWith({}, { redirectsToOtherHosts: true, lookup: ((host, options, callback) => (callback as (e: null, a: string, f: number) => void)(null, host === 'metadata.test' ? '169.254.169.254' : '127.0.0.1', 4)) as LookupFunction });
  const viaName = await agent({ cardRedirect: 'http://metadata.test/latest/meta-data/' });
  for (const target of [direct, viaName]) {
    const out = await cli({ url: target.url });
    assert.equal(statusOf(out.live.checks, 'live.card.delivery'), 'fail');
    assert.match(out.problem!, /169\.254\.169\.254 is link-local/);
    assert.ok(out.requests <= 2);
  }
});

test('interfaces on private addresses are not probed: refused before any connection', async () => {
  const a = await agent({ extraInterfaces: [{ url: 'https://10.1.2.3/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, { url: 'https://agent.internal.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
  let looked = 0;
  const lookup = ((host: string, options: unknown, callback: (e: null, a: string, f: number) => void) => {
    if (host === 'agent.internal.test') looked++;
    callback(null, host === 'agent.internal.test' ? '10.0.0.5' : '127.0.0.1', 4);
  }) as unknown as LookupFunction;
  const { live } = await probeWith({}, { lookup })({ url: a.url });
  for (const path of ['supportedInterfaces[1].url', 'supportedInterfaces[2].url']) {
    const reach = checksOf(live.checks, 'live.interface.reachable', path)[0]!;
    assert.equal(reach.status, 'skip', path);
    assert.match(reach.message, /not probed: .*10\.(1\.2\.3|0\.0\.5).*private/, path);
  }
  assert.ok(looked >= 1, 'the name was resolved by the pinned lookup, which refused it');
});

test('an interface whose port refuses the connection fails live.interface.reachable; later checks are not sent', async () => {
  const silent = await startSilentServer();
  const closed = silent.url;
  await silent.close();
  const out = await probe({ card: { name: 'x', supportedInterfaces: [{ url: `${closed}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] } });
  const reach = checksOf(out.live.checks, 'live.interface.reachable', iface0)[0]!;
  assert.equal(reach.status, 'fail');
  assert.match(reach.message, /connection refused/);
  assert.equal(statusOf(out.live.checks, 'live.errors.method', iface0), 'skip');
});

test('a server that never answers: the checks fail or skip within the probe\'s time', async () => {
  const silent = await startSilentServer();
  try {
    const quick = probeWith({ probes: { timeoutMs: 600, requestTimeoutMs: 200 } });
    const out = await quick({ card: { name: 'x', supportedInterfaces: [{ url: `${silent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] } });
    assert.equal(statusOf(out.live.checks, 'live.card.delivery'), 'fail');
    const reach = checksOf(out.live.checks, 'live.interface.reachable', iface0)[0]!;
    assert.ok(reach.status === 'fail' || reach.status === 'skip', reach.message);
    assert.match(reach.message, /no answer within|ran out/);
  } finally {
    await silent.close();
  }
});

test('TLS: a certificate from a trusted CA passes; expired, self-signed and expiring ones are reported', async () => {
  const good = await agent({ tls: certs.valid });
  const ok = await probe({ url: good.url });
  assert.equal(statusOf(ok.live.checks, 'live.interface.tls', iface0), 'pass');
  assert.equal(statusOf(ok.live.checks, 'live.interface.https', iface0), 'pass');
  assert.equal(statusOf(ok.live.checks, 'live.interface.certificate-expiry', iface0), 'pass');
  assert.match(String(checksOf(ok.live.checks, 'live.interface.tls')[0]!.evidence.tls_version), /TLSv1\.[23]/);
  const expiring = await agent({ tls: certs.expiring });
  assert.equal(statusOf((await probe({ url: expiring.url })).live.checks, 'live.interface.certificate-expiry', iface0), 'warn');
  for (const bad of [certs.expired, certs.selfSigned]) {
    const a = await agent({ tls: bad });
    const out = await probe({ card: a.card });
    assert.equal(statusOf(out.live.checks, 'live.interface.tls', iface0), 'fail');
    assert.equal(statusOf(out.live.checks, 'live.interface.reachable', iface0), 'pass', 'connected; only TLS failed');
    assert.equal(statusOf(out.live.checks, 'live.errors.parse', iface0), 'skip');
  }
});

test('the extended card: behind credentials (given: the card), open to anyone (fail), not declared (UnsupportedOperation)', async () => {
  const token = 'tok-9f8e7d6c5b4a';
  const guarded = await agent({ tls: certs.valid, extendedCardToken: token, bindings: ['JSONRPC', 'HTTP+JSON'] });
  const out = await probe({ url: guarded.url }, { headers: { authorization: `Bearer ${token}` } });
  for (const path of [iface0, 'supportedInterfaces[1].url']) assert.equal(statusOf(out.live.checks, 'live.extended-card', path), 'pass', path);
  assert.match(checksOf(out.live.checks, 'live.extended-card')[0]!.message, /the card with them/);
  assert.ok(!JSON.stringify(out).includes(token), 'the credential is nowhere in the outcome');
  assert.ok(guarded.requests.filter((r) => r.path === '/.well-known/agent-card.json').every((r) => r.headers.authorization === undefined), 'never sent for the card');
  const open = await agent({ extendedCardToken: token, extendedCardOpen: true });
  assert.equal(statusOf((await probe({ url: open.url })).live.checks, 'live.extended-card', iface0), 'fail');
  const plain = await agent({ extendedCardToken: token });
  const overHttp = await probe({ url: plain.url }, { headers: { authorization: `Bearer ${token}` } });
  assert.ok(plain.requests.every((r) => r.headers.authorization === undefined), 'credentials never go to a plain http interface');
  assert.match(checksOf(overHttp.live.checks, 'live.extended-card')[0]!.message, /none given/);
});

test('without send_message no request with side effects is sent; with it, one message and one stream', async () => {
  const a = await agent({ streaming: 'ok', bindings: ['JSONRPC', 'HTTP+JSON'] });
  await probe({ url: a.url });
  assert.equal(a.messages(), 0);
  const sent = await probe({ url: a.url }, { sendMessage: true });
  assert.equal(a.messages(), 2, 'one message, one stream');
  assert.equal(statusOf(sent.live.checks, 'live.send-message', iface0), 'pass');
  assert.equal(statusOf(sent.live.checks, 'live.streaming', iface0), 'pass');
  const marked = a.requests.find((r) => r.body.includes('SendMessage'))!;
  assert.match(marked.body, /"messageId":"cardgate-probe-[0-9a-f-]{36}".*cardgate probe, safe to ignore/);
  const rejects = await agent({ streaming: 'ok', rejectsMessages: true });
  const refused = await probe({ url: rejects.url }, { sendMessage: true });
  assert.equal(statusOf(refused.live.checks, 'live.send-message', iface0), 'fail');
  assert.equal(statusOf(refused.live.checks, 'live.streaming', iface0), 'fail');
});

test('an endless SSE stream is read within its bounds and reported', async () => {
  const a = await agent({ streaming: 'endless' });
  const out = await probe({ url: a.url }, { sendMessage: true });
  const stream = checksOf(out.live.checks, 'live.streaming', iface0)[0]!;
  assert.equal(stream.status, 'warn');
  assert.equal(stream.evidence.events, 20);
  assert.equal(stream.evidence.ended, false);
});

test('bounds: at most probes.maxRequestsPerTarget requests, probes.perHostPerMinute per host across probes', async () => {
  const a = await agent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
  const five = probeWith({ probes: { maxRequestsPerTarget: 5 } });
  const before = a.requests.length;
  const out = await five({ url: a.url });
  assert.equal(a.requests.length - before, 5);
  assert.equal(out.requests, 5);
  assert.ok(checksOf(out.live.checks, 'live.errors.method').every((c) => c.status === 'skip' && /probes\.maxRequestsPerTarget/.test(c.message)));
  const shared = new HostLimiter(12, { now: () => Date.now() });
  const first = await probe({ url: a.url }, {}, shared);
  const second = await probe({ url: a.url }, {}, shared);
  assert.equal(first.requests + second.requests, 12, 'the host\'s window is shared by both probes');
  assert.ok(second.live.checks.some((c) => c.status === 'skip' && /probes\.perHostPerMinute/.test(c.message)));
});

test('every request names the probe: User-Agent cardgate/<version> (+probe)', async () => {
  const a = await agent();
  await probe({ url: a.url });
  assert.ok(a.requests.length > 0 && a.requests.every((r) => /^cardgate\/\d+\.\d+\.\d+ \(\+probe\)$/.test(String(r.headers['user-agent']))));
});
