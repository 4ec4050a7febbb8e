/**
 * What a probe sends (src/engine/live/requests.ts), compared whole per binding, version and
 * tenant: method, URL, headers and body. Bodies are compared as parsed JSON where they are JSON.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeclaredInterface } from '../../src/engine/live/interfaces.ts';
import {
  extendedCard,
  getTask,
  getTaskMethod,
  getTaskUnsupportedVersion,
  invalidJson,
  PROBE_ID_PREFIX,
  PROBE_MESSAGE_TEXT,
  sendMessage,
  unknownMethod,
  UNSUPPORTED_VERSION,
  type ProbeRequest,
} from '../../src/engine/live/requests.ts';

const rpc10: DeclaredInterface = { path: 'supportedInterfaces[0].url', url: 'https://a.example/a2a', binding: 'JSONRPC', declaredBinding: 'JSONRPC', version: '1.0' };
const rpc10t: DeclaredInterface = { ...rpc10, tenant: 'acme corp' };
const rpc03: DeclaredInterface = { ...rpc10, path: 'url', version: '0.3' };
const rpc03t: DeclaredInterface = { ...rpc03, tenant: 'acme' };
const rest10: DeclaredInterface = { ...rpc10, url: 'https://a.example/api//', binding: 'HTTP+JSON', declaredBinding: 'HTTP+JSON' };
const rest10t: DeclaredInterface = { ...rest10, tenant: 'acme/eu' };
const rest03: DeclaredInterface = { ...rest10, version: '0.3' };
const rest03t: DeclaredInterface = { ...rest03, tenant: 'acme' };

const JSON_TYPE = 'application/json';
/** A request with its JSON body parsed, to compare it whole. */
const parsed = (request: ProbeRequest): Omit<ProbeRequest, 'body'> & { body?: unknown } => ({ ...request, ...(request.body === undefined ? {} : { body: JSON.parse(request.body) }) });
const rpcRequest = (url: string, body: unknown, headers: Record<string, string>) => ({ method: 'POST', url, headers: { 'content-type': JSON_TYPE, accept: JSON_TYPE, ...headers }, body });

test('constants: the message text, the id prefix, the unsupported version', () => {
  assert.equal(PROBE_MESSAGE_TEXT, 'cardgate probe, safe to ignore');
  assert.equal(PROBE_ID_PREFIX, 'cardgate-probe-');
  assert.equal(UNSUPPORTED_VERSION, '99.0');
  assert.equal(getTaskMethod('1.0'), 'GetTask');
  assert.equal(getTaskMethod('2.1'), 'GetTask');
  assert.equal(getTaskMethod('0.3'), 'tasks/get');
});

test('getTask, JSON-RPC: 1.0 GetTask with A2A-Version and the tenant; 0.3 tasks/get without either', () => {
  assert.deepEqual(parsed(getTask(rpc10, 't-1')), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'GetTask', params: { id: 't-1' } }, { 'a2a-version': '1.0' }));
  assert.deepEqual(parsed(getTask(rpc10t, 't-1')), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'GetTask', params: { id: 't-1', tenant: 'acme corp' } }, { 'a2a-version': '1.0' }));
  assert.deepEqual(parsed(getTask(rpc03t, 't-1')), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'tasks/get', params: { id: 't-1' } }, {}));
  // As the other version: its method name and params, the interface's own headers, extra headers last.
  assert.deepEqual(parsed(getTask(rpc10t, 't-1', '0.3', { authorization: 'Bearer x' })), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'tasks/get', params: { id: 't-1' } }, { 'a2a-version': '1.0', authorization: 'Bearer x' }));
  assert.deepEqual(parsed(getTask(rpc03t, 't-1', '1.0')), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'GetTask', params: { id: 't-1', tenant: 'acme' } }, {}));
});

test('getTask, HTTP+JSON: GET …/tasks/{id} (1.0, under the tenant), GET …/v1/tasks/{id} (0.3); trailing slashes dropped, the id encoded', () => {
  assert.deepEqual(getTask(rest10, 'a b/c'), { method: 'GET', url: 'https://a.example/api/tasks/a%20b%2Fc', headers: { accept: JSON_TYPE, 'a2a-version': '1.0' } });
  assert.deepEqual(getTask(rest10t, 'x'), { method: 'GET', url: 'https://a.example/api/acme%2Feu/tasks/x', headers: { accept: JSON_TYPE, 'a2a-version': '1.0' } });
  assert.deepEqual(getTask(rest03t, 'x'), { method: 'GET', url: 'https://a.example/api/v1/tasks/x', headers: { accept: JSON_TYPE } });
  // As 0.3 from a 1.0 interface: the 0.3 route, no A2A-Version (it is the version asked as).
  assert.deepEqual(getTask(rest10, 'x', '0.3', { authorization: 'Bearer x' }), { method: 'GET', url: 'https://a.example/api/v1/tasks/x', headers: { accept: JSON_TYPE, authorization: 'Bearer x' } });
  assert.deepEqual(getTask(rest03, 'x', '1.0'), { method: 'GET', url: 'https://a.example/api/tasks/x', headers: { accept: JSON_TYPE, 'a2a-version': '1.0' } });
});

test('getTaskUnsupportedVersion: the same get with A2A-Version 99.0, over any given', () => {
  assert.deepEqual(parsed(getTaskUnsupportedVersion(rpc10, 't', { 'a2a-version': '1.0', authorization: 'a' })), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-get', method: 'GetTask', params: { id: 't' } }, { 'a2a-version': '99.0', authorization: 'a' }));
  assert.deepEqual(getTaskUnsupportedVersion(rest10t, 't'), { method: 'GET', url: 'https://a.example/api/acme%2Feu/tasks/t', headers: { accept: JSON_TYPE, 'a2a-version': '99.0' } });
});

test('invalidJson: broken JSON to the JSON-RPC endpoint; to message:send for HTTP+JSON', () => {
  assert.deepEqual(invalidJson(rpc10, { authorization: 'a' }), {
    method: 'POST',
    url: rpc10.url,
    headers: { 'content-type': JSON_TYPE, accept: JSON_TYPE, 'a2a-version': '1.0', authorization: 'a' },
    body: '{"jsonrpc": "2.0", "id": "cardgate-probe-parse", "method": ',
  });
  assert.deepEqual(invalidJson(rpc03), { method: 'POST', url: rpc03.url, headers: { 'content-type': JSON_TYPE, accept: JSON_TYPE }, body: '{"jsonrpc": "2.0", "id": "cardgate-probe-parse", "method": ' });
  assert.deepEqual(invalidJson(rest10t), { method: 'POST', url: 'https://a.example/api/acme%2Feu/message:send', headers: { accept: JSON_TYPE, 'content-type': JSON_TYPE, 'a2a-version': '1.0' }, body: '{"message": ' });
  assert.deepEqual(invalidJson(rest03, { authorization: 'a' }), { method: 'POST', url: 'https://a.example/api/v1/message:send', headers: { accept: JSON_TYPE, 'content-type': JSON_TYPE, authorization: 'a' }, body: '{"message": ' });
  for (const iface of [rpc10, rest10]) assert.throws(() => JSON.parse(invalidJson(iface).body!), SyntaxError);
});

test('unknownMethod: a method no agent has (JSON-RPC), a route none has (HTTP+JSON)', () => {
  assert.deepEqual(parsed(unknownMethod(rpc10, { authorization: 'a' })), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-method', method: 'cardgate.probe/unknownMethod', params: {} }, { 'a2a-version': '1.0', authorization: 'a' }));
  assert.deepEqual(parsed(unknownMethod(rpc03)), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-method', method: 'cardgate.probe/unknownMethod', params: {} }, {}));
  assert.deepEqual(unknownMethod(rest10, { authorization: 'a' }), { method: 'GET', url: 'https://a.example/api/cardgate-probe-unknown-route', headers: { accept: JSON_TYPE, 'a2a-version': '1.0', authorization: 'a' } });
  assert.deepEqual(unknownMethod(rest03), { method: 'GET', url: 'https://a.example/api/v1/cardgate-probe-unknown-route', headers: { accept: JSON_TYPE } });
});

test('extendedCard: 1.0 GetExtendedAgentCard (tenant as param) and GET /extendedAgentCard; 0.3 agent/getAuthenticatedExtendedCard and GET /v1/card', () => {
  assert.deepEqual(parsed(extendedCard(rpc10)), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-card', method: 'GetExtendedAgentCard' }, { 'a2a-version': '1.0' }));
  assert.deepEqual(parsed(extendedCard(rpc10t, { authorization: 'a' })), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-card', method: 'GetExtendedAgentCard', params: { tenant: 'acme corp' } }, { 'a2a-version': '1.0', authorization: 'a' }));
  assert.deepEqual(parsed(extendedCard(rpc03t)), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-card', method: 'agent/getAuthenticatedExtendedCard' }, {}));
  assert.deepEqual(extendedCard(rest10t, { authorization: 'a' }), { method: 'GET', url: 'https://a.example/api/acme%2Feu/extendedAgentCard', headers: { accept: JSON_TYPE, 'a2a-version': '1.0', authorization: 'a' } });
  assert.deepEqual(extendedCard(rest03), { method: 'GET', url: 'https://a.example/api/v1/card', headers: { accept: JSON_TYPE } });
});

test('sendMessage, JSON-RPC: 1.0 SendMessage/SendStreamingMessage (proto form, tenant); 0.3 message/send and message/stream (kind, role user)', () => {
  const v1Message = { messageId: 'cardgate-probe-m', role: 'ROLE_USER', parts: [{ text: PROBE_MESSAGE_TEXT }] };
  const v03Message = { kind: 'message', messageId: 'cardgate-probe-m', role: 'user', parts: [{ kind: 'text', text: PROBE_MESSAGE_TEXT }] };
  assert.deepEqual(parsed(sendMessage(rpc10, 'cardgate-probe-m', false)), rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-send', method: 'SendMessage', params: { message: v1Message } }, { 'a2a-version': '1.0' }));
  assert.deepEqual(
    parsed(sendMessage(rpc10t, 'cardgate-probe-m', true, { authorization: 'a' })),
    rpcRequest(rpc10.url, { jsonrpc: '2.0', id: 'cardgate-probe-send', method: 'SendStreamingMessage', params: { message: v1Message, tenant: 'acme corp' } }, { 'a2a-version': '1.0', authorization: 'a', accept: 'text/event-stream' }),
  );
  assert.deepEqual(parsed(sendMessage(rpc03t, 'cardgate-probe-m', false)), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-send', method: 'message/send', params: { message: v03Message } }, {}));
  assert.deepEqual(parsed(sendMessage(rpc03, 'cardgate-probe-m', true)), rpcRequest(rpc03.url, { jsonrpc: '2.0', id: 'cardgate-probe-send', method: 'message/stream', params: { message: v03Message } }, { accept: 'text/event-stream' }));
  // The stream's Accept wins over a given one.
  assert.equal(sendMessage(rpc03, 'm', true, { accept: 'application/json' }).headers.accept, 'text/event-stream');
});

test('sendMessage, HTTP+JSON: POST …/message:send or …/message:stream; 0.3 the proto form with content, 1.0 with parts and the tenant', () => {
  assert.deepEqual(parsed(sendMessage(rest10t, 'cardgate-probe-m', false)), {
    method: 'POST',
    url: 'https://a.example/api/acme%2Feu/message:send',
    headers: { accept: JSON_TYPE, 'content-type': JSON_TYPE, 'a2a-version': '1.0' },
    body: { message: { messageId: 'cardgate-probe-m', role: 'ROLE_USER', parts: [{ text: PROBE_MESSAGE_TEXT }] }, tenant: 'acme/eu' },
  });
  assert.deepEqual(parsed(sendMessage(rest10, 'cardgate-probe-m', true, { authorization: 'a' })), {
    method: 'POST',
    url: 'https://a.example/api/message:stream',
    headers: { accept: 'text/event-stream', 'content-type': JSON_TYPE, 'a2a-version': '1.0', authorization: 'a' },
    body: { message: { messageId: 'cardgate-probe-m', role: 'ROLE_USER', parts: [{ text: PROBE_MESSAGE_TEXT }] } },
  });
  assert.deepEqual(parsed(sendMessage(rest03t, 'cardgate-probe-m', false)), {
    method: 'POST',
    url: 'https://a.example/api/v1/message:send',
    headers: { accept: JSON_TYPE, 'content-type': JSON_TYPE },
    body: { message: { messageId: 'cardgate-probe-m', role: 'ROLE_USER', content: [{ text: PROBE_MESSAGE_TEXT }] } },
  });
  assert.equal(sendMessage(rest03, 'm', true).url, 'https://a.example/api/v1/message:stream');
});
