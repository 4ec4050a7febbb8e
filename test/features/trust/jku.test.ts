/** signatures.fetchJku: keys fetched from the jku a signature names, under the callback policy, cached. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalPayload } from '../../../src/engine/signatures/canonical.ts';
import { jkusIn } from '../../../src/features/trust/jku.ts';
import { clean03 } from '../../engine/fixtures.ts';
import { postJson, testApp } from '../../support/app.ts';
import { signPayload, testKey } from '../../support/jws.ts';

const key = await testKey('ES256', 'published');
const other = await testKey('ES256', 'published');
let hits = 0;
const jwksServer = createServer((req, res) => {
  hits++;
  if (req.url === '/many.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [...Array.from({ length: 20 }, () => other.publicJwk), key.publicJwk] }));
  else if (req.url === '/jwks.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
  else res.writeHead(404).end();
});
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
after(() => jwksServer.close());
const base = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;

const signedWith = async (jku: string) => {
  const card = clean03();
  return { ...card, signatures: [await signPayload(canonicalPayload(card, '0.3.0')!, key, { jku })] };
};
const validate = async (app: ReturnType<typeof testApp>['app'], card: unknown, options: Record<string, unknown> = {}) =>
  (await (await app.request('/v1/validate', postJson({ agent_card: card, options }))).json()) as { valid: boolean; warnings: Array<{ rule: string }>; signatures?: Array<{ rule: string; verified: boolean }> };

test('jkusIn finds the jku of each protected header in a body, without parsing it', async () => {
  const card = await signedWith(`${base}/jwks.json`);
  assert.deepEqual(jkusIn(JSON.stringify({ agent_card: card })), [`${base}/jwks.json`]);
  assert.deepEqual(jkusIn('{"protected":"!!"}'), []);
});

test('fetchJku on: the key at the jku verifies, fetched once (cached); off: the jku is untrusted', async () => {
  const config = { limits: { daily: { anonymous: -1 } }, signatures: { fetchJku: true }, webhooks: { allowedHosts: ['loopback'] } };
  const { app } = testApp({ config });
  const card = await signedWith(`${base}/jwks.json`);
  hits = 0;
  for (let i = 0; i < 3; i++) assert.deepEqual((await validate(app, card)).signatures?.map((s) => s.rule), ['signature.verified']);
  assert.equal(hits, 1);
  // Nothing fetched, no key: verified only when asked.
  const missing = await signedWith(`${base}/nothing.json`);
  assert.equal((await validate(app, missing)).signatures, undefined);
  assert.deepEqual((await validate(app, missing, { verify_signatures: true })).signatures?.map((s) => s.rule), ['signature.jku-untrusted']);
  const off = testApp({ config: { ...config, signatures: { fetchJku: false } } });
  hits = 0;
  const result = await validate(off.app, card);
  assert.equal(result.signatures, undefined, 'no key trusted: not verified by default');
  assert.equal(hits, 0);
});

test('the callback policy applies: a loopback jku is not fetched unless webhooks.allowedHosts allows it', async () => {
  const { app, log } = testApp({ config: { limits: { daily: { anonymous: -1 } }, signatures: { fetchJku: true } } });
  hits = 0;
  const result = await validate(app, await signedWith(`${base}/jwks.json`), { verify_signatures: true });
  assert.equal(hits, 0);
  assert.deepEqual(result.signatures?.map((s) => s.rule), ['signature.jku-untrusted']);
  assert.match(JSON.stringify(log.lines), /jku keys not all taken.*loopback/);
});

test('a key fetched from a jku verifies only signatures naming that jku, not one that names none', async () => {
  const config = { limits: { daily: { anonymous: -1 } }, signatures: { fetchJku: true }, webhooks: { allowedHosts: ['loopback'] } };
  const { app } = testApp({ config });
  const card = clean03();
  const payload = canonicalPayload(card, '0.3.0')!;
  // The first signature claims the bare kid (as a trusted key would be named); the second only makes the service fetch the jku.
  const signatures = [await signPayload(payload, key), await signPayload(payload, key, { jku: `${base}/jwks.json` })];
  const result = await validate(app, { ...card, signatures }, { verify_signatures: true });
  assert.deepEqual(result.signatures?.map((s) => s.rule), ['signature.unknown-key', 'signature.verified']);
});

test('of a fetched set, only the first key of each kid is taken: a set cannot make one signature cost a verification per key', async () => {
  const config = { limits: { daily: { anonymous: -1 } }, signatures: { fetchJku: true }, webhooks: { allowedHosts: ['loopback'] } };
  const { app } = testApp({ config });
  const result = await validate(app, await signedWith(`${base}/many.json`), { verify_signatures: true });
  assert.deepEqual(result.signatures?.map((s) => s.rule), ['signature.invalid']);
});
