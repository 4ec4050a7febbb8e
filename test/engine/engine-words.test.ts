/**
 * Findings and helpers whose words no other test read: a forced protocol version the engine does
 * not know (also on a card that is no object), transport names and their fixes, a link that is no
 * http(s) URL, a 1.0 interface field on a 0.3.0 card, the migration texts' defaults, and where the
 * containers of a JSON text sit (the report page's request excerpts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { containerSpans } from '../../src/engine/positions.ts';
import { toV0Endpoint, toV1Interfaces } from '../../src/engine/rules/migrate.ts';
import { clean03, type Card } from './fixtures.ts';

const findings = (r: CardResult): string[] =>
  [...r.errors, ...r.warnings, ...(r.infos ?? [])].filter((i) => i.rule !== 'provider.missing').map((i) => `${i.rule}@${i.path}: ${i.message}`);

const unsupported = 'protocolVersion.unsupported@protocolVersion: options.protocolVersion "9.9" is not supported; supported: 0.2.0, 0.2.1, 0.2.2, 0.2.3, 0.2.4, 0.2.5, 0.2.6, 0.3.0, 1.0';

test('a forced protocol version the engine does not know is a finding, on a card and on a value that is no card', () => {
  assert.deepEqual(findings(validateCard(clean03(), { protocolVersion: '9.9' })), [unsupported]);
  assert.deepEqual(findings(validateCard(5, { protocolVersion: '9.9' })), ['card.root.object@(root): The card must be a JSON object, not number', unsupported]);
});

test('a transport named loosely: the core name it means, as the fix', () => {
  for (const [given, core] of [['json-rpc', 'JSONRPC'], ['rest', 'HTTP+JSON'], ['http', 'HTTP+JSON'], ['grpc', 'GRPC']] as const) {
    const r = validateCard({ ...clean03(), preferredTransport: given });
    assert.deepEqual(findings(r), [`transport.non-core@preferredTransport: preferredTransport "${given}" is not one of JSONRPC, GRPC, HTTP+JSON`]);
    assert.deepEqual(r.suggestions.filter((s) => s.field === 'preferredTransport').map((s) => s.suggestion), [`write "${core}"`]);
  }
});

test('a link that is an absolute URL but not http(s)', () => {
  assert.deepEqual(findings(validateCard({ ...clean03(), documentationUrl: 'ftp://docs.example.org/a' })), [
    'url.link-invalid@documentationUrl: documentationUrl is not an http(s) URL: "ftp://docs.example.org/a"',
    'url.placeholder@documentationUrl: documentationUrl looks like a placeholder: ftp://docs.example.org/a',
  ]);
});

test('a 1.0 protocolBinding on a 0.3.0 interface: rename it to transport', () => {
  const card: Card = { ...clean03(), additionalInterfaces: [{ url: 'https://agents.cardgate.dev/a2a', transport: 'JSONRPC', protocolBinding: 'JSONRPC' }] };
  assert.deepEqual(findings(validateCard(card)), ['field.from-1.0@additionalInterfaces[0].protocolBinding: protocolBinding is a 1.0 field; for 0.3.0 rename it: "transport": "JSONRPC"']);
});

test('migration texts: an additional interface repeating the main one (JSONRPC by default) is dropped; an interface without binding is JSONRPC', () => {
  assert.equal(
    toV1Interfaces({ url: 'https://a.test', additionalInterfaces: [{ url: 'https://a.test', transport: 'JSONRPC' }, { url: 'https://b.test', transport: 'GRPC' }] }),
    '[{"url":"https://a.test","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"https://b.test","protocolBinding":"GRPC","protocolVersion":"1.0"}]',
  );
  assert.equal(toV0Endpoint([{ url: 'https://a.test' }]), '"url":"https://a.test","preferredTransport":"JSONRPC"');
  assert.equal(toV0Endpoint([]), '"url":"https://<host>/a2a","preferredTransport":"JSONRPC"');
});

test('containerSpans: the offsets of each object or array at a path; none for a scalar, an absent member or an index the text lacks', () => {
  const text = '{"a": {"b": [1, {"c": 2}]}, "d": "x", "e": []}';
  const paths = [[], ['a'], ['a', 'b'], ['a', 'b', 1], ['d'], ['z'], ['e'], ['a', 'b', 0], ['a', 'b', 5]];
  const spans = containerSpans(text, paths);
  assert.deepEqual(spans, [{ start: 0, end: 46 }, { start: 6, end: 26 }, { start: 12, end: 25 }, { start: 16, end: 24 }, undefined, undefined, { start: 43, end: 45 }, undefined, undefined]);
  assert.deepEqual(spans.map((s) => s && text.slice(s.start, s.end)), [text, '{"b": [1, {"c": 2}]}', '[1, {"c": 2}]', '{"c": 2}', undefined, undefined, '[]', undefined, undefined]);
  assert.deepEqual(containerSpans(text, []), []);
});
