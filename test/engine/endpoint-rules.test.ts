/**
 * The endpoint and network rules: url.scheme (a scheme the transport cannot use), url.private-host
 * (private networks, loopback included, which url.unreachable-host no longer reports), the
 * placeholders of url.placeholder that hosting services' templates leave (YOUR-…), and the
 * information rules provider.missing and signature.missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { ruleExamples } from '../../src/engine/rule-examples.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const at = (r: CardResult): string[] => [...r.errors, ...r.warnings, ...(r.infos ?? [])].map((i) => `${i.rule}@${i.path}`);
const with03 = (changes: Card): Card => ({ ...clean03(), ...changes });

test('url.scheme: ftp, ws, file and javascript endpoint URLs are errors naming the scheme, not "not absolute"', () => {
  const cases = ['ftp://agent.travel.test/a2a', 'ws://agent.travel.test/a2a', 'file:///etc/passwd', 'javascript://agent.travel.test/%0Aalert(1)', 'javascript:alert(1)'];
  for (const url of cases) {
    const r = validateCard(with03({ url }));
    assert.equal(r.valid, false, url);
    assert.deepEqual(at(r), ['url.scheme@url'], url);
    assert.match(r.errors[0]!.message, new RegExp(`scheme "${url.split(':')[0]}"`), url);
  }
});

test('url.scheme: every endpoint and token URL, both versions; a custom transport and gRPC host:port are not judged', () => {
  const c03 = clean03();
  c03.additionalInterfaces = [{ url: 'grpc+tcp://agent.travel.test:443', transport: 'GRPC' }, { url: 'ws://agent.travel.test/ws', transport: 'WEBSOCKET' }];
  (c03.securitySchemes as Card).oauth = { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'ftp://auth.travel.test/token', scopes: { 'trips:read': 'Read trips' } } } };
  assert.deepEqual(at(validateCard(c03)).filter((f) => f.startsWith('url.')), [
    'url.scheme@additionalInterfaces[0].url',
    'url.scheme@securitySchemes.oauth.flows.clientCredentials.tokenUrl',
  ]);
  const c10 = clean10();
  const interfaces = c10.supportedInterfaces as Card[];
  interfaces[0]!.url = 'mailto:agent@travel.test';
  interfaces[1] = { url: 'agent.travel.test:443', protocolBinding: 'GRPC', protocolVersion: '1.0' };
  assert.deepEqual(at(validateCard(c10)).filter((f) => f.startsWith('url.')), ['url.scheme@supportedInterfaces[0].url']);
  // A port, not a scheme: still "not an absolute URL".
  assert.deepEqual(at(validateCard(with03({ url: 'agent.travel.test:8080/a2a' }))), ['url.absolute@url']);
});

test('url.private-host: private, loopback, link-local, CGNAT, unique-local and internal names; public neighbours are silent', () => {
  const privateHosts = ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.10', '169.254.169.254', '100.64.0.1', '100.127.255.1', '127.0.0.1', 'localhost', 'api.localhost', '[::1]', '[fd12:3456::1]', '[fe80::1]', 'agents.internal', 'box.lan', 'nas.home.arpa', 'svc.corp'];
  for (const host of privateHosts) {
    assert.deepEqual(at(validateCard(with03({ url: `https://${host}/a2a` }))), ['url.private-host@url'], host);
  }
  for (const host of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', 'internal.travel.test', '[2001:db8::1]']) {
    assert.deepEqual(at(validateCard(with03({ url: `https://${host}/a2a` }))), [], host);
  }
  // What stays url.unreachable-host: bind-all addresses, mDNS names, bare container names.
  for (const host of ['0.0.0.0', 'printer.local', 'agent']) {
    assert.deepEqual(at(validateCard(with03({ url: `https://${host}/a2a` }))), ['url.unreachable-host@url'], host);
  }
});

test('url.placeholder: a YOUR-… or YOUR_… part (a hosting service\'s template host, a cloud URL to fill in) is a placeholder; real hosts of the same services are not', () => {
  const placeholders = [
    'https://YOUR-RENDER-SERVICE.onrender.com/a2a/',
    'https://your-app.onrender.com',
    'https://YOUR_CLOUD_RUN_URL_HERE',
    'https://YOUR_CLOUD_RUN_URL/',
    'https://agent-YOUR-TEAM.fly.dev/a2a',
    'https://agent.travel.test/your_tenant/a2a',
  ];
  for (const url of placeholders) assert.deepEqual(at(validateCard(with03({ url }))), ['url.placeholder@url'], url);
  for (const url of ['https://daily-wordle-agent.onrender.com', 'https://yourls.travel.test/a2a', 'https://agent.travel.test/yours/a2a', 'https://flyyour-things.travel.test']) {
    assert.deepEqual(at(validateCard(with03({ url }))), [], url);
  }
});

test('provider.missing is information: in infos, the card stays valid, the score is what the missing field costs', () => {
  const card = clean03();
  delete card.provider;
  const r = validateCard(card);
  assert.deepEqual([r.valid, r.errors, r.warnings, r.infos?.map((i) => i.rule)], [true, [], [], ['provider.missing']]);
  assert.equal(r.score, 95, 'the recommended field provider weighs 5, the info nothing more');
  assert.equal(validateCard(clean03()).infos, undefined, 'absent when there is none');
});

test('signature.missing and signature.required: one finding for one missing signature', () => {
  const { failing, options } = ruleExamples['signature.missing']!;
  assert.deepEqual(at(validateCard(failing, options)), ['signature.missing@signatures']);
  const required = { signatures: { ...options!.signatures!, requireSignature: true } };
  assert.deepEqual(at(validateCard(failing, required)), ['signature.required@signatures']);
  assert.deepEqual(at(validateCard(failing)), [], 'without verification, no notice');
});
