/**
 * The judges of an interface's answers (src/engine/live/judge-interface.ts), each fed captured
 * answers of both bindings and both versions; every judgement is compared whole (status, message,
 * evidence), so a changed condition, message or branch shows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeclaredInterface } from '../../src/engine/live/interfaces.ts';
import {
  describeAnswer,
  judgeExtendedCard,
  judgeNegotiation,
  judgeParseError,
  judgeSendMessage,
  judgeStream,
  judgeUnknownMethod,
  judgeVersion,
  type CapturedAnswer,
  type CapturedStream,
  type Judgement,
} from '../../src/engine/live/judge-interface.ts';
import type { LiveEvidence, LiveStatus } from '../../src/engine/live/checks.ts';

const rpc10: DeclaredInterface = { path: 'supportedInterfaces[0].url', url: 'https://a.example/a2a', binding: 'JSONRPC', declaredBinding: 'JSONRPC', version: '1.0' };
const rpc03: DeclaredInterface = { ...rpc10, path: 'url', version: '0.3' };
const rest10: DeclaredInterface = { ...rpc10, binding: 'HTTP+JSON', declaredBinding: 'HTTP+JSON' };
const rest03: DeclaredInterface = { ...rest10, path: 'additionalInterfaces[0].url', version: '0.3' };

const answer = (status: number, body: unknown, contentType: string | null = 'application/json'): CapturedAnswer => ({
  status,
  contentType,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  timeMs: 7,
});
const rpcError = (code: number, status = 200): CapturedAnswer => answer(status, { jsonrpc: '2.0', id: 'cardgate-probe-get', error: { code, message: 'said so' } });
const rpcResult = (result: unknown): CapturedAnswer => answer(200, { jsonrpc: '2.0', id: 'cardgate-probe-get', result });
/** A 1.0 HTTP+JSON error (google.rpc.Status with an ErrorInfo). */
const restError1 = (status: number, code: number, reason?: string): CapturedAnswer =>
  answer(status, { error: { code, status: 'X', message: 'm', details: reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }] } });
/** A 0.3 SDK's HTTP+JSON error. */
const restError03 = (status: number, code: number): CapturedAnswer => answer(status, { code, message: 'm' });
const html = (status: number): CapturedAnswer => answer(status, '<h1>no</h1>', 'text/html; charset=utf-8');

const judgement = (status: LiveStatus, message: string, a: CapturedAnswer, more: LiveEvidence = {}): Judgement => ({
  status,
  message,
  evidence: { http_status: a.status, content_type: a.contentType, time_ms: a.timeMs, ...more },
});
const credentials = (what: string, a: CapturedAnswer): Judgement =>
  judgement('skip', `${what}: the endpoint asks for credentials (HTTP ${a.status}); give them (--header, options.headers) to check`, a);

test('describeAnswer: a JSON-RPC error by code and name, each known code named, unknown codes bare', () => {
  const names: Array<[number, string]> = [
    [-32700, 'parse error'],
    [-32600, 'invalid request'],
    [-32601, 'method not found'],
    [-32602, 'invalid params'],
    [-32603, 'internal error'],
    [-32001, 'TaskNotFound'],
    [-32004, 'UnsupportedOperation'],
    [-32007, 'extended card not configured'],
    [-32009, 'VersionNotSupported'],
  ];
  for (const [code, name] of names) assert.equal(describeAnswer(rpcError(code)), `HTTP 200, JSON-RPC error ${code} (${name})`);
  assert.equal(describeAnswer(rpcError(-32099, 500)), 'HTTP 500, JSON-RPC error -32099');
  assert.equal(describeAnswer(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32601 } })), 'HTTP 200, JSON-RPC error -32601 (method not found)');
});

test('describeAnswer: a JSON-RPC result, whatever it holds, even null', () => {
  assert.equal(describeAnswer(rpcResult({ kind: 'task' })), 'HTTP 200, a JSON-RPC result');
  assert.equal(describeAnswer(rpcResult(null)), 'HTTP 200, a JSON-RPC result');
});

test('describeAnswer: only jsonrpc "2.0" is JSON-RPC; an error without a numeric code is no JSON-RPC error', () => {
  // jsonrpc 1.0: read as an HTTP+JSON error body (1.0 form, with its code).
  assert.equal(describeAnswer(answer(200, { jsonrpc: '1.0', error: { code: -32601 } })), 'HTTP 200 with code -32601');
  // An error with a string code and no result: not JSON-RPC; an error body without code.
  assert.equal(describeAnswer(answer(200, { jsonrpc: '2.0', error: { code: 'nope' } })), 'HTTP 200 with an error body');
  // An error that is no object, and a result beside it: the result.
  assert.equal(describeAnswer(answer(200, { jsonrpc: '2.0', error: 'bad', result: 1 })), 'HTTP 200, a JSON-RPC result');
  // Neither error nor result.
  assert.equal(describeAnswer(answer(200, { jsonrpc: '2.0', id: 1 })), 'HTTP 200 (application/json)');
});

test('describeAnswer: HTTP+JSON error bodies: the 1.0 reason, else the code, else "an error body"; 0.3 {code}', () => {
  assert.equal(describeAnswer(restError1(404, 404, 'TASK_NOT_FOUND')), 'HTTP 404 with TASK_NOT_FOUND');
  assert.equal(describeAnswer(restError1(404, 404)), 'HTTP 404 with code 404');
  assert.equal(describeAnswer(answer(400, { error: { message: 'x' } })), 'HTTP 400 with an error body');
  // The first detail that has a string reason; details that are not an array are ignored.
  assert.equal(describeAnswer(answer(400, { error: { code: 400, details: ['x', { reason: 5 }, { reason: 'FIRST' }, { reason: 'SECOND' }] } })), 'HTTP 400 with FIRST');
  assert.equal(describeAnswer(answer(400, { error: { code: 400, details: { reason: 'NOT_A_LIST' } } })), 'HTTP 400 with code 400');
  assert.equal(describeAnswer(restError03(404, -32001)), 'HTTP 404 with code -32001');
  // A string code is no 0.3 error body; an error that is a string is no 1.0 one.
  assert.equal(describeAnswer(answer(404, { code: '404' })), 'HTTP 404 (application/json)');
  assert.equal(describeAnswer(answer(404, { error: 'gone', code: 3 })), 'HTTP 404 with code 3');
});

test('describeAnswer: anything else by status and bare media type', () => {
  assert.equal(describeAnswer(html(502)), 'HTTP 502 (text/html)');
  assert.equal(describeAnswer(answer(204, '', null)), 'HTTP 204');
  assert.equal(describeAnswer(answer(200, '[1,2]')), 'HTTP 200 (application/json)');
  assert.equal(describeAnswer(answer(200, '{"jsonrpc": ')), 'HTTP 200 (application/json)');
});

test('judgeVersion, JSON-RPC: -32001 passes with the version\'s get method; 1.0 GetTask, 0.3 tasks/get', () => {
  const a = rpcError(-32001);
  assert.deepEqual(judgeVersion(rpc10, a), judgement('pass', 'speaks 1.0: GetTask for a task that cannot exist answered TaskNotFound', a));
  assert.deepEqual(judgeVersion(rpc03, a), judgement('pass', 'speaks 0.3: tasks/get for a task that cannot exist answered TaskNotFound', a));
  // A TaskNotFound in an HTTP error status still is TaskNotFound.
  const in404 = rpcError(-32001, 404);
  assert.deepEqual(judgeVersion(rpc10, in404), judgement('pass', 'speaks 1.0: GetTask for a task that cannot exist answered TaskNotFound', in404));
});

test('judgeVersion, JSON-RPC: method not found or VersionNotSupported fail, naming the other version when it answers', () => {
  for (const code of [-32601, -32009]) {
    const a = rpcError(code);
    assert.deepEqual(judgeVersion(rpc10, a), judgement('fail', `does not speak the declared 1.0: GetTask answered ${describeAnswer(a)}`, a));
  }
  const a = rpcError(-32601);
  const other = rpcError(-32001);
  assert.deepEqual(
    judgeVersion(rpc10, a, { version: '0.3', answer: other }),
    judgement('fail', 'does not speak the declared 1.0: GetTask answered HTTP 200, JSON-RPC error -32601 (method not found); it answers 0.3\'s tasks/get instead', a, { 'answer_to_0.3': 'HTTP 200, JSON-RPC error -32001 (TaskNotFound)' }),
  );
  // The other version asked, but it does not answer either: no hint, its answer as evidence.
  assert.deepEqual(
    judgeVersion(rpc03, a, { version: '1.0', answer: rpcError(-32601) }),
    judgement('fail', 'does not speak the declared 0.3: tasks/get answered HTTP 200, JSON-RPC error -32601 (method not found)', a, { 'answer_to_1.0': 'HTTP 200, JSON-RPC error -32601 (method not found)' }),
  );
  assert.deepEqual(
    judgeVersion(rpc03, a, { version: '1.0', answer: rpcError(-32001) }),
    judgement('fail', 'does not speak the declared 0.3: tasks/get answered HTTP 200, JSON-RPC error -32601 (method not found); it answers 1.0\'s GetTask instead', a, { 'answer_to_1.0': 'HTTP 200, JSON-RPC error -32001 (TaskNotFound)' }),
  );
});

test('judgeVersion, JSON-RPC: no JSON-RPC answer fails (a 404 page too); a result warns; another error warns', () => {
  const page = html(404);
  assert.deepEqual(judgeVersion(rpc10, page), judgement('fail', 'does not speak the declared 1.0: GetTask answered HTTP 404 (text/html)', page));
  const page405 = html(405);
  assert.deepEqual(judgeVersion(rpc10, page405), judgement('fail', 'does not speak the declared 1.0: GetTask answered HTTP 405 (text/html)', page405));
  const page200 = html(200);
  assert.deepEqual(judgeVersion(rpc10, page200), judgement('fail', 'no JSON-RPC answer to GetTask: HTTP 200 (text/html)', page200));
  const other = rpcError(-32001);
  assert.deepEqual(
    judgeVersion(rpc10, page200, { version: '0.3', answer: other }),
    judgement('fail', 'no JSON-RPC answer to GetTask: HTTP 200 (text/html); it answers 0.3\'s tasks/get instead', page200, { 'answer_to_0.3': 'HTTP 200, JSON-RPC error -32001 (TaskNotFound)' }),
  );
  const result = rpcResult({ id: 'x' });
  assert.deepEqual(judgeVersion(rpc10, result, { version: '0.3', answer: other }), judgement('warn', 'GetTask answered a task for an id that cannot exist', result));
  const invalid = rpcError(-32602);
  assert.deepEqual(judgeVersion(rpc10, invalid), judgement('warn', 'GetTask answered HTTP 200, JSON-RPC error -32602 (invalid params): neither TaskNotFound nor method not found', invalid));
  assert.deepEqual(
    judgeVersion(rpc10, invalid, { version: '0.3', answer: html(404) }),
    judgement('warn', 'GetTask answered HTTP 200, JSON-RPC error -32602 (invalid params): neither TaskNotFound nor method not found', invalid, { 'answer_to_0.3': 'HTTP 404 (text/html)' }),
  );
});

test('judgeVersion: 401 and 403 skip, asking for credentials; a TaskNotFound behind 401 still passes', () => {
  for (const status of [401, 403]) {
    const a = answer(status, '', 'text/plain');
    assert.deepEqual(judgeVersion(rpc10, a), credentials('GetTask', a));
    assert.deepEqual(judgeVersion(rest03, a), credentials('GET …/v1/tasks/{id}', a));
  }
  const hidden = rpcError(-32001, 401);
  assert.equal(judgeVersion(rpc10, hidden).status, 'pass');
});

test('judgeVersion, HTTP+JSON 1.0: 404 with TASK_NOT_FOUND passes; a 0.3 {code: -32001} is the other form', () => {
  const a = restError1(404, 404, 'TASK_NOT_FOUND');
  assert.deepEqual(judgeVersion(rest10, a), judgement('pass', 'speaks 1.0: GET …/tasks/{id} for a task that cannot exist answered TaskNotFound', a));
  const old = restError03(404, -32001);
  assert.deepEqual(judgeVersion(rest10, old), judgement('warn', 'speaks 1.0, but GET …/tasks/{id} answered TaskNotFound in another form than 1.0\'s (HTTP 404 with code -32001)', old));
  // A 1.0 error body with code 404 but without the reason: the other form.
  const bare = restError1(404, 404);
  assert.deepEqual(judgeVersion(rest10, bare), judgement('warn', 'speaks 1.0, but GET …/tasks/{id} answered TaskNotFound in another form than 1.0\'s (HTTP 404 with code 404)', bare));
  // Both the reason and the old code: 1.0's form.
  const both = restError1(404, -32001, 'TASK_NOT_FOUND');
  assert.equal(judgeVersion(rest10, both).status, 'pass');
});

test('judgeVersion, HTTP+JSON 0.3: 404 with -32001 or TASK_NOT_FOUND passes; a 1.0 body with code 404 alone is the other form', () => {
  const a = restError03(404, -32001);
  assert.deepEqual(judgeVersion(rest03, a), judgement('pass', 'speaks 0.3: GET …/v1/tasks/{id} for a task that cannot exist answered TaskNotFound', a));
  const newer = restError1(404, 404, 'TASK_NOT_FOUND');
  assert.equal(judgeVersion(rest03, newer).status, 'pass');
  const bare = restError1(404, 404);
  assert.deepEqual(judgeVersion(rest03, bare), judgement('warn', 'speaks 0.3, but GET …/v1/tasks/{id} answered TaskNotFound in another form than 0.3\'s (HTTP 404 with code 404)', bare));
});

test('judgeVersion, HTTP+JSON: TaskNotFound needs 404; other 404 bodies and 405 are the route missing', () => {
  // The right body in another status: not TaskNotFound; a 200 with it is neither.
  const in400 = restError1(400, 404, 'TASK_NOT_FOUND');
  assert.deepEqual(judgeVersion(rest10, in400), judgement('warn', 'GET …/tasks/{id} answered HTTP 400 with TASK_NOT_FOUND: neither TaskNotFound nor method not found', in400));
  // A 0.3 body with code 404: no form of TaskNotFound, the route's own 404.
  const code404 = restError03(404, 404);
  assert.deepEqual(judgeVersion(rest10, code404), judgement('fail', 'does not speak the declared 1.0: GET …/tasks/{id} answered HTTP 404 with code 404', code404));
  const otherReason = restError1(404, 5, 'NOT_HERE');
  assert.deepEqual(judgeVersion(rest10, otherReason), judgement('fail', 'does not speak the declared 1.0: GET …/tasks/{id} answered HTTP 404 with NOT_HERE', otherReason));
  const page = html(404);
  assert.deepEqual(judgeVersion(rest10, page), judgement('fail', 'does not speak the declared 1.0: GET …/tasks/{id} answered HTTP 404 (text/html)', page));
  const notAllowed = html(405);
  assert.deepEqual(
    judgeVersion(rest10, notAllowed, { version: '0.3', answer: restError03(404, -32001) }),
    judgement('fail', 'does not speak the declared 1.0: GET …/tasks/{id} answered HTTP 405 (text/html); it answers 0.3\'s tasks/get instead', notAllowed, { 'answer_to_0.3': 'HTTP 404 with code -32001' }),
  );
  // A JSON-RPC method-not-found body is no missing route for HTTP+JSON: judged by status.
  const rpcBody = rpcError(-32601);
  assert.deepEqual(judgeVersion(rest10, rpcBody), judgement('warn', 'GET …/tasks/{id} answered HTTP 200, JSON-RPC error -32601 (method not found): neither TaskNotFound nor method not found', rpcBody));
  // A JSON-RPC result is no task for HTTP+JSON either, and no "no JSON-RPC answer" failure for a 200 page.
  const result = rpcResult({ id: 'x' });
  assert.equal(judgeVersion(rest10, result).message, 'GET …/tasks/{id} answered HTTP 200, a JSON-RPC result: neither TaskNotFound nor method not found');
  const page200 = html(200);
  assert.deepEqual(judgeVersion(rest10, page200), judgement('warn', 'GET …/tasks/{id} answered HTTP 200 (text/html): neither TaskNotFound nor method not found', page200));
  // Not JSON at all in a 404.
  const empty = answer(404, '', null);
  assert.deepEqual(judgeVersion(rest03, empty), judgement('fail', 'does not speak the declared 0.3: GET …/v1/tasks/{id} answered HTTP 404', empty));
});

test('judgeVersion, HTTP+JSON: the other version\'s answer is named as spoken only when it is a TaskNotFound of some form', () => {
  const page = html(404);
  const expectNoHint = (other: CapturedAnswer) =>
    assert.deepEqual(
      judgeVersion(rest10, page, { version: '0.3', answer: other }),
      judgement('fail', 'does not speak the declared 1.0: GET …/tasks/{id} answered HTTP 404 (text/html)', page, { 'answer_to_0.3': describeAnswer(other) }),
    );
  expectNoHint(answer(200, { id: 'x' }));
  expectNoHint(html(404));
  expectNoHint(restError03(404, 404));
  expectNoHint(restError1(400, 404, 'TASK_NOT_FOUND'));
  // Another form counts as spoken.
  assert.equal(judgeVersion(rest03, page, { version: '1.0', answer: restError03(404, -32001) }).message, 'does not speak the declared 0.3: GET …/v1/tasks/{id} answered HTTP 404 (text/html); it answers 1.0\'s GetTask instead');
});

test('judgeVersion, JSON-RPC: an HTTP+JSON TaskNotFound body is no JSON-RPC TaskNotFound', () => {
  const a = restError1(404, 404, 'TASK_NOT_FOUND');
  assert.deepEqual(judgeVersion(rpc10, a), judgement('fail', 'does not speak the declared 1.0: GetTask answered HTTP 404 with TASK_NOT_FOUND', a));
});

test('judgeNegotiation: JSON-RPC -32009 passes; anything else fails as the version ignored', () => {
  const a = rpcError(-32009);
  assert.deepEqual(judgeNegotiation(rpc10, a), judgement('pass', 'A2A-Version: 99.0 answered VersionNotSupported (-32009)', a));
  for (const other of [rpcError(-32001), rpcResult({}), html(400)]) {
    assert.deepEqual(judgeNegotiation(rpc10, other), judgement('fail', `A2A-Version: 99.0 answered ${describeAnswer(other)}, not VersionNotSupported (-32009): the version asked for is ignored`, other));
  }
  for (const status of [401, 403]) {
    const denied = answer(status, '');
    assert.deepEqual(judgeNegotiation(rpc10, denied), credentials('A2A-Version: 99.0', denied));
    assert.deepEqual(judgeNegotiation(rest10, denied), credentials('A2A-Version: 99.0', denied));
  }
});

test('judgeNegotiation: HTTP+JSON 400 passes, with the reason when given; any other status fails', () => {
  const withReason = restError1(400, 400, 'VERSION_NOT_SUPPORTED');
  assert.deepEqual(judgeNegotiation(rest10, withReason), judgement('pass', 'A2A-Version: 99.0 answered HTTP 400 VERSION_NOT_SUPPORTED (VersionNotSupported)', withReason));
  const bare = html(400);
  assert.deepEqual(judgeNegotiation(rest10, bare), judgement('pass', 'A2A-Version: 99.0 answered HTTP 400 (VersionNotSupported)', bare));
  // -32009 in a 200 is no HTTP+JSON VersionNotSupported.
  const rpcBody = rpcError(-32009);
  assert.deepEqual(judgeNegotiation(rest10, rpcBody), judgement('fail', 'A2A-Version: 99.0 answered HTTP 200, JSON-RPC error -32009 (VersionNotSupported), not VersionNotSupported (HTTP 400)', rpcBody));
  const notFound = restError1(404, 404, 'TASK_NOT_FOUND');
  assert.deepEqual(judgeNegotiation(rest10, notFound), judgement('fail', 'A2A-Version: 99.0 answered HTTP 404 with TASK_NOT_FOUND, not VersionNotSupported (HTTP 400)', notFound));
});

test('judgeParseError: JSON-RPC -32700 passes, anything else fails; credentials skip', () => {
  const a = rpcError(-32700);
  assert.deepEqual(judgeParseError(rpc03, a), judgement('pass', 'invalid JSON answered -32700 (parse error)', a));
  for (const other of [rpcError(-32600, 400), html(400), rpcResult({})]) {
    assert.deepEqual(judgeParseError(rpc03, other), judgement('fail', `invalid JSON answered ${describeAnswer(other)}, not -32700 (parse error)`, other));
  }
  for (const status of [401, 403]) {
    const denied = rpcError(-32700, status);
    assert.deepEqual(judgeParseError(rpc03, denied), credentials('invalid JSON', denied));
    assert.deepEqual(judgeParseError(rest10, denied), credentials('invalid JSON', denied));
  }
});

test('judgeParseError: HTTP+JSON 400 with an error body passes, 400 without warns, anything else fails', () => {
  const a = restError1(400, 400, 'INVALID_ARGUMENT');
  assert.deepEqual(judgeParseError(rest10, a), judgement('pass', 'invalid JSON answered HTTP 400 with INVALID_ARGUMENT', a));
  const old = restError03(400, -32700);
  assert.deepEqual(judgeParseError(rest03, old), judgement('pass', 'invalid JSON answered HTTP 400 with code -32700', old));
  const page = html(400);
  assert.deepEqual(judgeParseError(rest10, page), judgement('warn', 'invalid JSON answered HTTP 400, but not with the binding\'s JSON error body', page));
  const accepted = answer(200, { id: 'x' });
  assert.deepEqual(judgeParseError(rest10, accepted), judgement('fail', 'invalid JSON answered HTTP 200 (application/json), not HTTP 400', accepted));
  const rpcBody = rpcError(-32700);
  assert.deepEqual(judgeParseError(rest10, rpcBody), judgement('fail', 'invalid JSON answered HTTP 200, JSON-RPC error -32700 (parse error), not HTTP 400', rpcBody));
  const crash = restError1(500, 500);
  assert.deepEqual(judgeParseError(rest10, crash), judgement('fail', 'invalid JSON answered HTTP 500 with code 500, not HTTP 400', crash));
});

test('judgeUnknownMethod: JSON-RPC -32601 passes, anything else fails', () => {
  const a = rpcError(-32601);
  assert.deepEqual(judgeUnknownMethod(rpc10, a), judgement('pass', 'an unknown method answered -32601 (method not found)', a));
  for (const other of [rpcError(-32600), html(404), rpcResult({})]) {
    assert.deepEqual(judgeUnknownMethod(rpc10, other), judgement('fail', `an unknown method answered ${describeAnswer(other)}, not -32601 (method not found)`, other));
  }
  for (const status of [401, 403]) {
    const denied = html(status);
    assert.deepEqual(judgeUnknownMethod(rpc10, denied), credentials('an unknown method', denied));
    assert.deepEqual(judgeUnknownMethod(rest10, denied), credentials('an unknown method', denied));
  }
});

test('judgeUnknownMethod: HTTP+JSON 404 and 405 pass; a 2xx fails; other statuses warn (edges 199, 200, 299, 300)', () => {
  for (const status of [404, 405]) {
    const a = html(status);
    assert.deepEqual(judgeUnknownMethod(rest10, a), judgement('pass', `an unknown route answered HTTP ${status}`, a));
  }
  const expect = (status: number, verdict: LiveStatus) => {
    const a = answer(status, { ok: true });
    assert.deepEqual(judgeUnknownMethod(rest03, a), judgement(verdict, `an unknown route answered HTTP ${status} (application/json), not 404`, a));
  };
  expect(199, 'warn');
  expect(200, 'fail');
  expect(299, 'fail');
  expect(300, 'warn');
  expect(400, 'warn');
  expect(406, 'warn');
  expect(500, 'warn');
  // A JSON-RPC -32601 is no HTTP+JSON answer to an unknown route.
  const rpcBody = rpcError(-32601);
  assert.deepEqual(judgeUnknownMethod(rest10, rpcBody), judgement('fail', 'an unknown route answered HTTP 200, JSON-RPC error -32601 (method not found), not 404', rpcBody));
});

const card = { name: 'Extended agent', skills: [] };

test('judgeExtendedCard, declared: 401/403 passes (with credentials: the card), the card without credentials fails', () => {
  for (const status of [401, 403]) {
    const denied = answer(status, '');
    assert.deepEqual(judgeExtendedCard(rpc10, true, denied), judgement('pass', `declared; without credentials it answered HTTP ${status} (not checked with credentials: none given)`, denied));
  }
  const denied = answer(401, '');
  const served = rpcResult(card);
  assert.deepEqual(judgeExtendedCard(rpc10, true, denied, served), judgement('pass', 'declared; HTTP 401 without credentials, the card with them', served, { without_credentials: 401 }));
  const restServed = answer(200, card);
  assert.deepEqual(judgeExtendedCard(rest10, true, denied, restServed), judgement('pass', 'declared; HTTP 401 without credentials, the card with them', restServed, { without_credentials: 401 }));
  const stillDenied = answer(403, '');
  assert.deepEqual(
    judgeExtendedCard(rpc10, true, denied, stillDenied),
    judgement('fail', 'declared, but with the credentials given it answered HTTP 403 (application/json), not the card', stillDenied, { without_credentials: 401 }),
  );
  // The card's JSON-RPC envelope is no card for HTTP+JSON, nor a bare card for JSON-RPC.
  assert.equal(judgeExtendedCard(rest10, true, denied, served).status, 'fail');
  assert.equal(judgeExtendedCard(rpc10, true, denied, restServed).status, 'fail');
  const leaked = rpcResult(card);
  assert.deepEqual(judgeExtendedCard(rpc10, true, leaked), judgement('fail', 'the extended card is served without credentials: it is meant for authenticated clients', leaked));
  const restLeaked = answer(200, card);
  assert.deepEqual(judgeExtendedCard(rest03, true, restLeaked), judgement('fail', 'the extended card is served without credentials: it is meant for authenticated clients', restLeaked));
});

test('judgeExtendedCard, declared: anything but 401/403 and no card fails', () => {
  for (const a of [rpcError(-32004), html(404), answer(200, { name: 7 }), rpcResult({ title: 'no name' })]) {
    assert.deepEqual(judgeExtendedCard(rpc10, true, a), judgement('fail', `declared, but without credentials it answered ${describeAnswer(a)}, not 401 or 403`, a));
  }
});

test('judgeExtendedCard: a card is one only in a 2xx (edges 199, 200, 299, 300) with a string name', () => {
  const edge = (status: number) => answer(status, card);
  for (const status of [200, 299]) assert.equal(judgeExtendedCard(rest10, false, edge(status)).status, 'warn');
  for (const status of [199, 300]) {
    const a = edge(status);
    assert.deepEqual(judgeExtendedCard(rest10, false, a), judgement('warn', `not declared; the extended card answered HTTP ${status} (application/json), not UnsupportedOperation (HTTP 400)`, a));
  }
  assert.deepEqual(judgeExtendedCard(rest10, false, edge(200)), judgement('warn', 'an extended card is served though the card does not declare one', edge(200)));
  const notCard = answer(200, ['x']);
  assert.equal(judgeExtendedCard(rest10, false, notCard).message, 'not declared; the extended card answered HTTP 200 (application/json), not UnsupportedOperation (HTTP 400)');
});

test('judgeExtendedCard, not declared: UnsupportedOperation passes (-32004; 0.3 also -32007; HTTP+JSON 400), else warns', () => {
  const unsupported = rpcError(-32004);
  assert.deepEqual(judgeExtendedCard(rpc10, false, unsupported), judgement('pass', 'not declared, and the extended card answered HTTP 200, JSON-RPC error -32004 (UnsupportedOperation)', unsupported));
  assert.equal(judgeExtendedCard(rpc03, false, unsupported).status, 'pass');
  const notConfigured = rpcError(-32007);
  assert.deepEqual(judgeExtendedCard(rpc03, false, notConfigured), judgement('pass', 'not declared, and the extended card answered HTTP 200, JSON-RPC error -32007 (extended card not configured)', notConfigured));
  assert.deepEqual(
    judgeExtendedCard(rpc10, false, notConfigured),
    judgement('warn', 'not declared; the extended card answered HTTP 200, JSON-RPC error -32007 (extended card not configured), not UnsupportedOperation (-32004)', notConfigured),
  );
  for (const a of [rpcError(-32601), rpcResult({ title: 'x' }), html(400)]) {
    assert.deepEqual(judgeExtendedCard(rpc03, false, a), judgement('warn', `not declared; the extended card answered ${describeAnswer(a)}, not UnsupportedOperation (-32004)`, a));
  }
  const rest400 = restError1(400, 400, 'UNSUPPORTED_OPERATION');
  assert.deepEqual(judgeExtendedCard(rest10, false, rest400), judgement('pass', 'not declared, and the extended card answered HTTP 400 with UNSUPPORTED_OPERATION', rest400));
  const rest404 = html(404);
  assert.deepEqual(judgeExtendedCard(rest03, false, rest404), judgement('warn', 'not declared; the extended card answered HTTP 404 (text/html), not UnsupportedOperation (HTTP 400)', rest404));
  // -32004 in a 200 is no HTTP+JSON UnsupportedOperation.
  assert.equal(judgeExtendedCard(rest10, false, unsupported).status, 'warn');
});

test('judgeSendMessage, JSON-RPC: a result object passes with its kind; anything else fails', () => {
  const kinds: Array<[unknown, string]> = [
    [{ kind: 'task', id: 't' }, 'task'],
    [{ kind: 'message', messageId: 'm' }, 'message'],
    [{ task: { id: 't' } }, 'task'],
    [{ message: {} }, 'message'],
    [{ statusUpdate: {} }, 'statusUpdate'],
    [{ artifactUpdate: {} }, 'artifactUpdate'],
    [{ other: 1, message: {} }, 'message'],
    [{ kind: 5, task: {} }, 'task'],
    [{ id: 'x' }, 'object'],
  ];
  for (const [result, kind] of kinds) {
    const a = rpcResult(result);
    assert.deepEqual(judgeSendMessage(rpc10, a), judgement('pass', 'the marked message was answered with a result', a, { result: kind }));
  }
  for (const a of [rpcResult('text'), rpcResult(null), rpcError(-32602), html(200), answer(200, { ok: true })]) {
    assert.deepEqual(judgeSendMessage(rpc03, a), judgement('fail', `the marked message answered ${describeAnswer(a)}`, a));
  }
  for (const status of [401, 403]) {
    const denied = html(status);
    assert.deepEqual(judgeSendMessage(rpc10, denied), credentials('the message', denied));
    assert.deepEqual(judgeSendMessage(rest10, denied), credentials('the message', denied));
  }
});

test('judgeSendMessage, HTTP+JSON: a JSON object in a 2xx passes naming three members; else fails', () => {
  const a = answer(200, { task: {}, extra: 1, more: 2, fourth: 3 });
  assert.deepEqual(judgeSendMessage(rest10, a), judgement('pass', 'the marked message was answered (HTTP 200, task, extra, more)', a));
  const empty = answer(201, {});
  assert.deepEqual(judgeSendMessage(rest10, empty), judgement('pass', 'the marked message was answered (HTTP 201, an empty object)', empty));
  const edge = answer(299, { message: {} });
  assert.deepEqual(judgeSendMessage(rest03, edge), judgement('pass', 'the marked message was answered (HTTP 299, message)', edge));
  for (const failed of [answer(199, { message: {} }), answer(300, { message: {} }), answer(200, ['x']), answer(200, 'not json', 'text/plain'), restError1(400, 400, 'INVALID_ARGUMENT')]) {
    assert.deepEqual(judgeSendMessage(rest10, failed), judgement('fail', `the marked message answered ${describeAnswer(failed)}`, failed));
  }
});

const stream = (more: Partial<CapturedStream> = {}): CapturedStream => ({
  status: 200,
  contentType: 'text/event-stream',
  events: ['{"jsonrpc":"2.0","id":1,"result":{"kind":"task"}}', '{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}'],
  strayLines: 0,
  bytes: 120,
  firstEventMs: 12,
  ended: true,
  ...more,
});
const streamEvidence = (s: CapturedStream): LiveEvidence => ({
  http_status: s.status,
  content_type: s.contentType,
  events: s.events.length,
  bytes: s.bytes,
  first_event_ms: s.firstEventMs,
  ended: s.ended,
  ...(s.stoppedBy ? { stopped_by: s.stoppedBy } : {}),
});
const streamJudgement = (status: LiveStatus, message: string, s: CapturedStream): Judgement => ({ status, message, evidence: streamEvidence(s) });

test('judgeStream: JSON-RPC responses in SSE framing that ended pass, with the count and the first event\'s time', () => {
  const s = stream();
  assert.deepEqual(judgeStream(rpc10, s), streamJudgement('pass', '2 event(s) in SSE framing; the first after 12 ms', s));
  const charset = stream({ contentType: 'Text/Event-Stream; charset=utf-8' });
  assert.equal(judgeStream(rpc10, charset).status, 'pass');
  const objects = stream({ events: ['{"task":{}}', '{}'], contentType: 'text/event-stream' });
  assert.deepEqual(judgeStream(rest10, objects), streamJudgement('pass', '2 event(s) in SSE framing; the first after 12 ms', objects));
});

test('judgeStream: credentials skip; a status outside 2xx fails (edges 199, 300); 2xx edges go on', () => {
  for (const status of [401, 403]) {
    const s = stream({ status });
    assert.deepEqual(judgeStream(rpc10, s), streamJudgement('skip', `the stream asks for credentials (HTTP ${status})`, s));
  }
  for (const status of [199, 300, 404, 500]) {
    const s = stream({ status });
    assert.deepEqual(judgeStream(rpc10, s), streamJudgement('fail', `the streaming request answered HTTP ${status}`, s));
  }
  for (const status of [200, 299]) assert.equal(judgeStream(rpc10, stream({ status })).status, 'pass');
});

test('judgeStream: the media type must start with text/event-stream', () => {
  const json = stream({ contentType: 'application/json' });
  assert.deepEqual(judgeStream(rpc10, json), streamJudgement('fail', 'the stream is application/json, not text/event-stream', json));
  const none = stream({ contentType: null });
  assert.deepEqual(judgeStream(rpc10, none), streamJudgement('fail', 'the stream is without a media type, not text/event-stream', none));
  const prefixed = stream({ contentType: 'x-text/event-stream' });
  assert.equal(judgeStream(rpc10, prefixed).status, 'fail');
  const longer = stream({ contentType: 'text/event-streams' });
  assert.equal(judgeStream(rpc10, longer).status, 'fail');
});

test('judgeStream: no event fails, saying whether it ended or what stopped the reading', () => {
  const ended = stream({ events: [] });
  assert.deepEqual(judgeStream(rpc10, ended), streamJudgement('fail', 'the stream ended without an event', ended));
  const stopped = stream({ events: [], ended: false, stoppedBy: '64 KiB', firstEventMs: null });
  assert.deepEqual(judgeStream(rpc10, stopped), streamJudgement('fail', 'no event before the probe stopped reading (64 KiB)', stopped));
  const timed = stream({ events: [], ended: false, firstEventMs: null });
  assert.deepEqual(judgeStream(rpc10, timed), streamJudgement('fail', 'no event before the probe stopped reading (time)', timed));
});

test('judgeStream: the first event that is no JSON-RPC response (JSON-RPC) or no JSON object (HTTP+JSON) fails, counted from 1', () => {
  const cases: Array<[string, number]> = [
    ['not json', 1],
    ['[1]', 1],
    ['{"jsonrpc":"1.0","result":{}}', 1],
    ['{"jsonrpc":"2.0","id":1}', 1],
  ];
  for (const [event, n] of cases) {
    const s = stream({ events: ['{"jsonrpc":"2.0","id":1,"result":{}}', event] });
    assert.deepEqual(judgeStream(rpc03, s), streamJudgement('fail', `event ${n + 1} is not a JSON-RPC response`, s));
  }
  const first = stream({ events: ['null', 'not json'] });
  assert.deepEqual(judgeStream(rpc10, first), streamJudgement('fail', 'event 1 is not a JSON-RPC response', first));
  // HTTP+JSON events need no JSON-RPC envelope, only an object.
  const objects = stream({ events: ['{"statusUpdate":{}}', '"text"'] });
  assert.deepEqual(judgeStream(rest10, objects), streamJudgement('fail', 'event 2 is not a JSON object', objects));
  const error = stream({ events: ['{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}'] });
  assert.equal(judgeStream(rpc10, error).status, 'pass');
});

test('judgeStream: stray lines warn; a stream not ended warns with what stopped it', () => {
  const stray = stream({ strayLines: 3 });
  assert.deepEqual(judgeStream(rpc10, stray), streamJudgement('warn', '3 line(s) of the stream are not SSE fields', stray));
  const open = stream({ ended: false, stoppedBy: '20 events' });
  assert.deepEqual(judgeStream(rpc10, open), streamJudgement('warn', 'the stream had not ended when the probe stopped reading (20 events); first event after 12 ms', open));
  assert.deepEqual(streamEvidence(open).stopped_by, '20 events');
});
