/**
 * The pure half of the live checks (src/engine/live/): the interfaces a probe reaches, what it
 * sends, how answers are judged, and how checks become findings. The probes themselves run
 * against real agents in test/features/probes/.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard } from '../../src/engine/index.ts';
import { boundedEvidence, findingLevel } from '../../src/engine/live/checks.ts';
import { declaredInterfaces } from '../../src/engine/live/interfaces.ts';
import { judgeCaching, judgeCors, judgeMediaType, type CardAnswer } from '../../src/engine/live/judge-card.ts';
import { judgeExpiry } from '../../src/engine/live/judge-connection.ts';
import { judgeStream, judgeVersion, type CapturedAnswer } from '../../src/engine/live/judge-interface.ts';
import { getTask, sendMessage } from '../../src/engine/live/requests.ts';
import { clean10 } from './fixtures.ts';

const rpc = (error: number | null): CapturedAnswer => ({ status: 200, contentType: 'application/json', body: JSON.stringify(error === null ? { jsonrpc: '2.0', id: 1, result: {} } : { jsonrpc: '2.0', id: 1, error: { code: error, message: 'x' } }), timeMs: 1 });
const v10 = { path: 'supportedInterfaces[0].url', url: 'https://a.example/a2a', binding: 'JSONRPC' as const, declaredBinding: 'JSONRPC', version: '1.0' };

test('interfaces: 0.x url and additionalInterfaces at the card\'s version, 1.0 supportedInterfaces, each once', () => {
  const card = { protocolVersion: '0.3.0', url: 'https://a.example/rpc', additionalInterfaces: [{ url: 'https://a.example/rpc', transport: 'JSONRPC' }, { url: 'https://a.example/rest', transport: 'HTTP+JSON' }, { url: 'a.example:443', transport: 'GRPC' }] };
  assert.deepEqual(declaredInterfaces(card).map((i) => [i.path, i.binding, i.version]), [['url', 'JSONRPC', '0.3'], ['additionalInterfaces[1].url', 'HTTP+JSON', '0.3'], ['additionalInterfaces[2].url', 'GRPC', '0.3']]);
  const both = { url: 'https://a.example/rpc', supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't1' }] };
  assert.deepEqual(declaredInterfaces(both).map((i) => [i.path, i.version, i.tenant]), [['supportedInterfaces[0].url', '1.0', 't1'], ['url', '0.3', undefined]]);
});

test('requests: 1.0 GetTask with A2A-Version, 0.3 tasks/get without; HTTP+JSON routes per version and tenant', () => {
  const get10 = getTask(v10, 'cardgate-probe-x');
  assert.equal(get10.headers['a2a-version'], '1.0');
  assert.equal(JSON.parse(get10.body!).method, 'GetTask');
  const get03 = getTask({ ...v10, version: '0.3' }, 'cardgate-probe-x');
  assert.equal(get03.headers['a2a-version'], undefined);
  assert.equal(JSON.parse(get03.body!).method, 'tasks/get');
  assert.equal(getTask({ ...v10, binding: 'HTTP+JSON', url: 'https://a.example/api/', tenant: 'acme' }, 'id1').url, 'https://a.example/api/acme/tasks/id1');
  assert.equal(getTask({ ...v10, binding: 'HTTP+JSON', version: '0.3' }, 'id1').url, 'https://a.example/a2a/v1/tasks/id1');
  assert.match(sendMessage({ ...v10, version: '0.3' }, 'cardgate-probe-m', false).body!, /"method":"message\/send".*"kind":"text","text":"cardgate probe, safe to ignore"/);
});

test('the declared version: TaskNotFound passes, method not found fails and names the version spoken, anything else warns', () => {
  assert.equal(judgeVersion(v10, rpc(-32001)).status, 'pass');
  const failed = judgeVersion(v10, rpc(-32601), { version: '0.3', answer: rpc(-32001) });
  assert.equal(failed.status, 'fail');
  assert.match(failed.message, /it answers 0\.3's tasks\/get instead/);
  assert.equal(judgeVersion(v10, rpc(-32602)).status, 'warn');
  assert.equal(judgeVersion(v10, { ...rpc(null), status: 401 }).status, 'skip');
  assert.equal(judgeVersion(v10, { status: 404, contentType: 'text/html', body: '<h1>no</h1>', timeMs: 1 }).status, 'fail');
});

test('the card\'s headers: media type, caching, CORS', () => {
  const answer = (headers: Record<string, string>): CardAnswer => ({ url: 'https://a.example/.well-known/agent-card.json', status: 200, headers, bytes: 10, timeMs: 1, redirects: [], legacyPath: false, isJsonObject: true });
  assert.equal(judgeMediaType(answer({ 'content-type': 'application/a2a+json; charset=utf-8' })).status, 'pass');
  assert.equal(judgeMediaType(answer({ 'content-type': 'text/plain' })).status, 'warn');
  assert.equal(judgeCaching(answer({ 'cache-control': 'public, max-age=60', etag: '"1"' }), 304).status, 'pass');
  assert.equal(judgeCaching(answer({ 'cache-control': 'no-store', etag: '"1"' }), 200).message, 'no Cache-Control with max-age, the conditional request answered 200, not 304 (1.0 §8.6: clients cache the card by them)');
  assert.equal(judgeCors(answer({ 'access-control-allow-origin': '*' }), { status: 204, headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET' } }).status, 'pass');
  assert.equal(judgeCors(answer({}), null).status, 'warn');
});

test('the certificate\'s days and a stream\'s framing', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(judgeExpiry({ url: 'https://a.example', outcome: 'answered', validTo: '2026-01-10T00:00:00.000Z' }, now).status, 'warn');
  assert.equal(judgeExpiry({ url: 'https://a.example', outcome: 'answered', validTo: '2026-06-10T00:00:00.000Z' }, now).status, 'pass');
  const stream = { status: 200, contentType: 'text/event-stream', events: ['{"jsonrpc":"2.0","id":1,"result":{}}'], strayLines: 0, bytes: 40, firstEventMs: 3, ended: true };
  assert.equal(judgeStream(v10, stream).status, 'pass');
  assert.equal(judgeStream(v10, { ...stream, events: ['not json'] }).status, 'fail');
  assert.equal(judgeStream(v10, { ...stream, ended: false, stoppedBy: '20 events' }).status, 'warn');
});

test('checks as findings: fail at the rule\'s level, warn at most a warning, pass and skip none; a ruleset turns one off', () => {
  assert.equal(findingLevel('fail', 'error'), 'error');
  assert.equal(findingLevel('warn', 'error'), 'warning');
  assert.equal(findingLevel('warn', 'info'), 'info');
  assert.equal(findingLevel('skip', 'error'), undefined);
  const live = [{ id: 'live.version', status: 'fail' as const, message: 'no', evidence: {}, path: 'supportedInterfaces[0].url' }, { id: 'live.interface.https', status: 'warn' as const, message: 'http', evidence: {} }];
  const result = validateCard(clean10(), { live });
  assert.deepEqual(result.errors.map((e) => [e.rule, e.path]), [['live.version', 'supportedInterfaces[0].url']]);
  assert.ok(result.warnings.some((w) => w.rule === 'live.interface.https'));
  assert.deepEqual(result.live, live);
  const off = validateCard(clean10(), { live, ruleset: { severities: { 'live.interface.https': 'off' } } });
  assert.ok(!off.warnings.some((w) => w.rule === 'live.interface.https'));
  assert.equal(Object.keys(boundedEvidence(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'x'.repeat(1000)])))).length, 16);
});
