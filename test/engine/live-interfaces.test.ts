/**
 * The interfaces a card declares as a probe reaches them (src/engine/live/interfaces.ts): bindings,
 * versions, the first of duplicates, the bound on their number; the declared extended card and
 * streaming.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { declaredInterfaces, declaresExtendedCard, declaresStreaming, isV1, majorMinor, MAX_INTERFACES } from '../../src/engine/live/interfaces.ts';

test('majorMinor: Major.Minor of a version, a patch allowed, spaces trimmed, leading zeros dropped', () => {
  assert.equal(majorMinor('0.3.0'), '0.3');
  assert.equal(majorMinor(' 1.0 '), '1.0');
  assert.equal(majorMinor('01.02.123456'), '1.2');
  for (const bad of ['1', '1.0.0.0', 'v1.0', '1.0-rc1', '1234.0', '1.0.1234567', '', 1.0, undefined, null]) assert.equal(majorMinor(bad), undefined, String(bad));
});

test('isV1: 1.0 and later speak 1.0\'s names', () => {
  assert.equal(isV1('1.0'), true);
  assert.equal(isV1('2.3'), true);
  assert.equal(isV1('0.3'), false);
  assert.equal(isV1('0.9'), false);
});

test('declaredInterfaces: bindings by name, any case and spacing; JSONRPC when none; each kept as declared', () => {
  const card = {
    protocolVersion: '0.2.5',
    url: 'https://a.example/rpc',
    additionalInterfaces: [
      { url: 'https://a.example/json-rpc', transport: ' json-rpc ' },
      { url: 'https://a.example/rest', transport: 'rest' },
      { url: 'https://a.example/http', transport: 'http+json' },
      { url: 'a.example:443', transport: 'grpc' },
      { url: 'https://a.example/custom', transport: 'https://example.com/binding' },
      { url: 'https://a.example/none' },
      { url: 'https://a.example/blank', transport: '  ' },
    ],
  };
  assert.deepEqual(declaredInterfaces(card), [
    { path: 'url', url: 'https://a.example/rpc', binding: 'JSONRPC', declaredBinding: 'JSONRPC', version: '0.2' },
    { path: 'additionalInterfaces[0].url', url: 'https://a.example/json-rpc', binding: 'JSONRPC', declaredBinding: ' json-rpc ', version: '0.2' },
    { path: 'additionalInterfaces[1].url', url: 'https://a.example/rest', binding: 'HTTP+JSON', declaredBinding: 'rest', version: '0.2' },
    { path: 'additionalInterfaces[2].url', url: 'https://a.example/http', binding: 'HTTP+JSON', declaredBinding: 'http+json', version: '0.2' },
    { path: 'additionalInterfaces[3].url', url: 'a.example:443', binding: 'GRPC', declaredBinding: 'grpc', version: '0.2' },
    { path: 'additionalInterfaces[4].url', url: 'https://a.example/custom', binding: 'other', declaredBinding: 'https://example.com/binding', version: '0.2' },
  ]);
});

test('declaredInterfaces: 1.0 supportedInterfaces first (their version, else 1.0; protocolBinding, else transport; tenant when not blank), then the 0.x url at 0.3', () => {
  const card = {
    protocolVersion: '1.0',
    url: 'https://a.example/legacy',
    preferredTransport: 'HTTP+JSON',
    supportedInterfaces: [
      { url: 'https://a.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0.0', tenant: 't1' },
      { url: 'https://a.example/rest', transport: 'HTTP+JSON', protocolVersion: 'latest', tenant: ' ' },
      { url: 'https://a.example/grpc', protocolBinding: 'GRPC', transport: 'JSONRPC', protocolVersion: '0.3' },
      'not an interface',
      null,
      { url: '', protocolBinding: 'JSONRPC' },
      { url: 7 },
    ],
    additionalInterfaces: [{ url: 'https://a.example/legacy-rpc' }, null],
  };
  assert.deepEqual(declaredInterfaces(card), [
    { path: 'supportedInterfaces[0].url', url: 'https://a.example/a2a', binding: 'JSONRPC', declaredBinding: 'JSONRPC', version: '1.0', tenant: 't1' },
    { path: 'supportedInterfaces[1].url', url: 'https://a.example/rest', binding: 'HTTP+JSON', declaredBinding: 'HTTP+JSON', version: '1.0' },
    { path: 'supportedInterfaces[2].url', url: 'https://a.example/grpc', binding: 'GRPC', declaredBinding: 'GRPC', version: '0.3' },
    { path: 'url', url: 'https://a.example/legacy', binding: 'HTTP+JSON', declaredBinding: 'HTTP+JSON', version: '0.3' },
    { path: 'additionalInterfaces[0].url', url: 'https://a.example/legacy-rpc', binding: 'JSONRPC', declaredBinding: 'JSONRPC', version: '0.3' },
  ]);
});

test('declaredInterfaces: the same url, binding and version once (the first); another version or binding is another interface', () => {
  const card = {
    protocolVersion: '0.3.0',
    url: 'https://a.example/rpc',
    supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
    additionalInterfaces: [
      { url: 'https://a.example/rpc', transport: 'JSONRPC' },
      { url: 'https://a.example/rpc', transport: 'HTTP+JSON' },
    ],
  };
  assert.deepEqual(declaredInterfaces(card).map((i) => [i.path, i.binding, i.version]), [
    ['supportedInterfaces[0].url', 'JSONRPC', '0.3'],
    ['additionalInterfaces[1].url', 'HTTP+JSON', '0.3'],
  ]);
  const versions = { url: 'https://a.example/rpc', supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC' }] };
  assert.deepEqual(declaredInterfaces(versions).map((i) => [i.path, i.version]), [['supportedInterfaces[0].url', '1.0'], ['url', '0.3']]);
});

test('declaredInterfaces: at most MAX_INTERFACES (6), in order; nothing for what is no card or has no url', () => {
  assert.equal(MAX_INTERFACES, 6);
  const card = { url: 'https://a.example/0', additionalInterfaces: Array.from({ length: 9 }, (_, i) => ({ url: `https://a.example/${i + 1}` })) };
  assert.deepEqual(declaredInterfaces(card).map((i) => i.url), [0, 1, 2, 3, 4, 5].map((i) => `https://a.example/${i}`));
  for (const notCard of [null, 'card', [{ url: 'https://a.example' }], {}]) assert.deepEqual(declaredInterfaces(notCard), []);
  assert.deepEqual(declaredInterfaces({ url: '  ', supportedInterfaces: 'x', additionalInterfaces: {} }), []);
});

test('declaresExtendedCard: the 0.x flag or the 1.0 capability, only when true', () => {
  assert.equal(declaresExtendedCard({ supportsAuthenticatedExtendedCard: true }), true);
  assert.equal(declaresExtendedCard({ capabilities: { extendedAgentCard: true } }), true);
  assert.equal(declaresExtendedCard({ supportsAuthenticatedExtendedCard: false, capabilities: { extendedAgentCard: true } }), true);
  assert.equal(declaresExtendedCard({ supportsAuthenticatedExtendedCard: true, capabilities: { extendedAgentCard: false } }), true);
  for (const no of [{}, { supportsAuthenticatedExtendedCard: 'true' }, { capabilities: { extendedAgentCard: 1 } }, { capabilities: true }, { capabilities: null }, { extendedAgentCard: true }, null, 'x', [true]]) {
    assert.equal(declaresExtendedCard(no), false, JSON.stringify(no));
  }
});

test('declaresStreaming: capabilities.streaming true only', () => {
  assert.equal(declaresStreaming({ capabilities: { streaming: true } }), true);
  for (const no of [{ capabilities: { streaming: 'true' } }, { capabilities: {} }, { capabilities: [true] }, { streaming: true }, { capabilities: null }, null, 'x']) {
    assert.equal(declaresStreaming(no), false, JSON.stringify(no));
  }
});
