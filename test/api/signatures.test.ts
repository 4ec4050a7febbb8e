/**
 * Signed cards through the API, black-box: a server whose data dir trusts a JWKS (trust/*.jwks)
 * verifies cards signed by cardgate's own signing for every algorithm and both generations, on
 * /v1/validate, batch and webhooks; `options.verify_signatures` turns it off or on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signCard } from '../../src/cli/sign.ts';
import { signatureAlgorithms } from '../../src/engine/signatures/algorithms.ts';
import { exportJWK } from 'jose';
import { clean03, clean10, type Card } from '../engine/fixtures.ts';
import { testKey, type TestKey } from '../support/jws.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { prepareDataDir } from '../support/seed.ts';

const unsigned10 = (): Card => {
  const { signatures: _, ...card } = clean10();
  return card;
};
const keys: TestKey[] = [];
const sign = async (card: Card, key: TestKey) =>
  signCard(card, { ...(await exportJWK(key.privateKey)) }, { alg: key.alg as (typeof signatureAlgorithms)[number], kid: key.kid });

let server: RunningServer;
let apiKey: string;
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as Record<string, any> };
};

before(async () => {
  for (const alg of signatureAlgorithms) keys.push(await testKey(alg));
  const dataDir = tempDirFactory('cardgate-signed-')();
  apiKey = await prepareDataDir(dataDir, { plan: 'pro' });
  mkdirSync(join(dataDir, 'trust'));
  writeFileSync(join(dataDir, 'trust', 'ci.jwks'), JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  server = await startServer({ dataDir, config: { limits: { daily: { anonymous: -1 } } } });
});
after(() => server.stop());

describe('POST /v1/validate with trusted keys', () => {
  test('cards signed by cardgate for every algorithm and both generations verify', async () => {
    for (const key of keys) {
      for (const [card, form] of [[clean03(), '0.3.0'], [unsigned10(), '1.0']] as const) {
        const { status, body } = await post('/v1/validate', { agent_card: await sign(card, key) });
        assert.equal(status, 200);
        assert.deepEqual(body.signatures, [{ index: 0, kid: key.kid, alg: key.alg, jku: null, verified: true, rule: 'signature.verified', form }], `${key.alg} ${form}`);
        assert.equal(body.valid, true);
      }
    }
  });

  test('one changed character fails; the report keeps the summary', async () => {
    const card = await sign(unsigned10(), keys[0]!);
    const { body } = await post('/v1/validate', { agent_card: { ...card, version: '1.2.1' } });
    assert.equal(body.valid, false);
    assert.deepEqual(body.errors.map((e: { rule: string }) => e.rule), ['signature.invalid']);
    assert.equal(body.signatures[0].verified, false);
    const report = await (await fetch(body.report_url.replace(/^http:\/\/[^/]+/, server.url), { headers: { accept: 'application/json' } })).json() as Record<string, any>;
    assert.equal(JSON.stringify(report).includes('"signatures":[{"index":0'), true);
  });

  test('an unknown kid is a warning; verify_signatures false skips the check; a bad value is a 400', async () => {
    const stranger = await testKey('ES256', 'stranger');
    const card = await sign(unsigned10(), stranger);
    const checked = await post('/v1/validate', { agent_card: card });
    assert.deepEqual(checked.body.warnings.map((e: { rule: string }) => e.rule), ['signature.unknown-key']);
    const skipped = await post('/v1/validate', { agent_card: card, options: { verify_signatures: false } });
    assert.equal('signatures' in skipped.body, false);
    assert.deepEqual(skipped.body.warnings, []);
    const bad = await post('/v1/validate', { agent_card: card, options: { verify_signatures: 'yes' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors, [{ path: 'options.verify_signatures', message: 'must be a boolean' }]);
  });
});

describe('batch and webhooks', () => {
  test('batch: each card gets its summary', async () => {
    const good = await sign(clean03(), keys[0]!);
    const { status, body } = await post('/v1/validate/batch', { cards: [{ id: 'good', agent_card: good }, { id: 'bad', agent_card: { ...good, name: 'x' } }] }, { authorization: `Bearer ${apiKey}` });
    assert.equal(status, 200);
    assert.deepEqual(body.results.map((r: { signatures: Array<{ verified: boolean }> }) => r.signatures[0]!.verified), [true, false]);
    const off = await post('/v1/validate/batch', { cards: [{ id: 'good', agent_card: good }], options: { verify_signatures: false } }, { authorization: `Bearer ${apiKey}` });
    assert.equal('signatures' in off.body.results[0], false);
    const bad = await post('/v1/validate/batch', { cards: [{ id: 'good', agent_card: good }], options: { verify_signatures: 1 } }, { authorization: `Bearer ${apiKey}` });
    assert.equal(bad.status, 400);
  });

  test('webhook and GitHub webhook verify too', async () => {
    const card = await sign(unsigned10(), keys[3]!);
    const hook = await post('/v1/webhook', { agent_card: card });
    assert.equal(hook.status, 200);
    assert.equal(hook.body.signatures[0].verified, true);
    const gh = await post('/v1/webhook/github', { agent_card: card, github: { repo: 'o/r', sha: 'a'.repeat(40) }, options: { verify_signatures: true } });
    assert.equal(gh.body.validation.signatures[0].verified, true);
    const bad = await post('/v1/webhook', { agent_card: card, options: { verify_signatures: 'no' } });
    assert.equal(bad.status, 400);
  });

  test('/v1/rules lists the signature rules; the API description shows verify_signatures', async () => {
    const rules = await (await fetch(`${server.url}/v1/rules`)).json() as { rules: Array<{ id: string; severity: string }> };
    const ids = rules.rules.filter((r) => r.id.startsWith('signature.')).map((r) => `${r.id} ${r.severity}`);
    assert.deepEqual(ids.sort(), [
      'signature.algorithm error', 'signature.invalid error', 'signature.jku-untrusted warning', 'signature.key-revoked error', 'signature.missing info',
      'signature.protected-header error', 'signature.required error', 'signature.sdk-variant warning', 'signature.unknown-key warning', 'signature.verified info',
    ]);
    const openapi = await (await fetch(`${server.url}/openapi.json`)).text();
    assert.match(openapi, /"verify_signatures":\{"type":"boolean"/);
  });
});

describe('no trusted key', () => {
  test('without keys signatures are not verified unless asked; a bad trust file stops start-up (exit 2)', async () => {
    const plain = await startServer({ config: { limits: { daily: { anonymous: -1 } } } });
    try {
      const card = await sign(unsigned10(), keys[0]!);
      const res = await fetch(`${plain.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
      assert.equal('signatures' in (await res.json() as object), false);
      const asked = await fetch(`${plain.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card, options: { verify_signatures: true } }) });
      assert.equal(((await asked.json()) as { signatures: Array<{ rule: string }> }).signatures[0]!.rule, 'signature.unknown-key');
    } finally {
      await plain.stop();
    }
    const dataDir = tempDirFactory('cardgate-badtrust-')();
    mkdirSync(join(dataDir, 'trust'));
    writeFileSync(join(dataDir, 'trust', 'bad.jwks'), '{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"}]}');
    const r = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /trust file .*bad\.jwks: keys\[0\] \(kid "h"\) has kty "oct"/);
  });
});

test('SIGHUP reads the trusted key files again; a bad file then leaves the keys in use', async () => {
  const dataDir = tempDirFactory('cardgate-sighup-')();
  mkdirSync(join(dataDir, 'trust'));
  const hup = await startServer({ dataDir, config: { limits: { daily: { anonymous: -1 } } } });
  try {
    const card = await sign(unsigned10(), keys[0]!);
    const checked = async () => {
      const res = await fetch(`${hup.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
      return ((await res.json()) as { signatures?: Array<{ rule: string }> }).signatures?.map((s) => s.rule);
    };
    const reloads = (what: string) => hup.stdout().split('\n').filter((l) => l.includes(what)).length;
    const afterHup = async (what: string) => {
      const before = reloads(what);
      hup.child.kill('SIGHUP');
      while (reloads(what) === before) await new Promise((r) => setTimeout(r, 50));
    };
    assert.equal(await checked(), undefined);
    writeFileSync(join(dataDir, 'trust', 'ci.jwks'), JSON.stringify({ keys: [keys[0]!.publicJwk] }));
    await afterHup('trusted key files reloaded');
    assert.deepEqual(await checked(), ['signature.verified']);
    writeFileSync(join(dataDir, 'trust', 'ci.jwks'), 'not json');
    await afterHup('trusted key files not reloaded');
    assert.deepEqual(await checked(), ['signature.verified']);
  } finally {
    await hup.stop();
  }
});
