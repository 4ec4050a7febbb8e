/** `cardgate keygen`, `cardgate sign` and `cardgate validate --trust`: the CI flow, in process and as a child process. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { runKeygen, runSign } from '../../src/cli/sign.ts';
import { runValidate } from '../../src/cli/validate.ts';
import { signatureAlgorithms } from '../../src/engine/signatures/algorithms.ts';
import { tempDirFactory } from '../support/temp.ts';
import { runCli } from '../support/server.ts';
import { signPayload, testKey } from '../support/jws.ts';
import { clean03, clean10, type Card } from '../engine/fixtures.ts';

const dir = tempDirFactory('cardgate-sign-')();
const file = (name: string) => path.join(dir, name);
const writeJson = (name: string, value: unknown): string => {
  writeFileSync(file(name), JSON.stringify(value, null, 2));
  return file(name);
};
const unsigned10 = (): Card => {
  const { signatures: _, ...card } = clean10();
  return card;
};

async function run(command: typeof runSign, args: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const code = await command(args, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), readStdin: async () => Buffer.from(stdin), env: {}, stdoutIsTTY: false });
  return { code, stdout, stderr };
}
const validateJson = async (args: string[]) => {
  const r = await run(runValidate, [...args, '--format', 'json']);
  return { ...r, entries: r.code === 2 ? [] : JSON.parse(r.stdout) as Array<{ valid: boolean; errors: Array<{ rule: string }>; warnings: Array<{ rule: string }>; signatures?: Array<{ verified: boolean; rule: string; form?: string; kid: string; alg: string }> }> };
};

const card03 = writeJson('card03.json', clean03());
const card10 = writeJson('card10.json', unsigned10());

describe('keygen, sign, validate --trust for every algorithm and both generations', () => {
  for (const alg of signatureAlgorithms) {
    test(alg, async () => {
      const name = file(`key-${alg}`);
      const made = await run(runKeygen, ['--alg', alg, '--kid', `kid-${alg}`, '--out', name]);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(statSync(`${name}.private.jwk`).mode & 0o777, 0o600);
      const jwks = JSON.parse(readFileSync(`${name}.jwks`, 'utf8'));
      assert.equal(jwks.keys.length, 1);
      assert.deepEqual([jwks.keys[0].kid, jwks.keys[0].alg, 'd' in jwks.keys[0]], [`kid-${alg}`, alg, false]);
      for (const [card, form] of [[card03, '0.3.0'], [card10, '1.0']] as const) {
        const out = file(`signed-${alg}-${form}.json`);
        const signed = await run(runSign, [card, '--key', `${name}.private.jwk`, '-o', out]);
        assert.equal(signed.code, 0, signed.stderr);
        const header = JSON.parse(Buffer.from(JSON.parse(readFileSync(out, 'utf8')).signatures[0].protected, 'base64url').toString());
        assert.deepEqual(header, { alg, typ: 'JOSE', kid: `kid-${alg}` });
        const checked = await validateJson([out, '--trust', `${name}.jwks`, '--require-signature']);
        assert.equal(checked.code, 0, checked.stdout);
        assert.deepEqual(checked.entries[0]!.signatures, [{ index: 0, kid: `kid-${alg}`, alg, jku: null, verified: true, rule: 'signature.verified', form }]);
      }
    });
  }
});

describe('sign then validate --trust', async () => {
  const name = file('ci');
  await run(runKeygen, ['--out', name]);
  const jwks = `${name}.jwks`;
  const kid = JSON.parse(readFileSync(jwks, 'utf8')).keys[0].kid as string;
  const signedText = (await run(runSign, [card10, '--key', `${name}.private.jwk`, '--jku', 'https://travel.test/jwks.json'])).stdout;
  const signed = JSON.parse(signedText) as Card;

  test('keygen: ES256 by default, kid the key thumbprint; never overwrites', async () => {
    assert.match(kid, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(JSON.parse(readFileSync(`${name}.private.jwk`, 'utf8')).crv, 'P-256');
    const again = await run(runKeygen, ['--out', name]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /ci\.private\.jwk exists \(never overwritten\)/);
  });

  test('the text report says the signature verified', async () => {
    const out = writeJson('signed.json', signed);
    const r = await run(runValidate, [out, '--trust', jwks]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`info     signature by kid "${kid}" \\(ES256\\) verified over the 1\\.0 canonical form  signature\\.verified`));
  });

  test('one changed character fails (exit 1); a reordered card and a removed default field still verify', async () => {
    const changed = writeJson('changed.json', { ...signed, name: 'Trip planner' });
    const r = await validateJson([changed, '--trust', jwks]);
    assert.equal(r.code, 1);
    assert.deepEqual(r.entries[0]!.errors.map((e) => e.rule), ['signature.invalid']);
    const reordered = writeJson('reordered.json', Object.fromEntries(Object.entries(signed).reverse()));
    const withDefault = writeJson('default.json', { ...signed, securityRequirements: (signed.securityRequirements as unknown[]), capabilities: { ...(signed.capabilities as Card), extensions: [] } });
    for (const f of [reordered, withDefault]) assert.equal((await validateJson([f, '--trust', jwks])).entries[0]!.signatures![0]!.verified, true);
  });

  test('a wrong key fails; no trusted key is a warning, an error with --require-signature', async () => {
    // The `=` form: a thumbprint kid starts with '-' one time in 64, which the parser takes as a flag.
    assert.equal((await run(runKeygen, ['--out', file('other'), `--kid=${kid}`])).code, 0);
    const wrong = await validateJson([writeJson('s.json', signed), '--trust', file('other.jwks')]);
    assert.deepEqual(wrong.entries[0]!.errors.map((e) => e.rule), ['signature.invalid']);
    assert.equal((await run(runKeygen, ['--out', file('third')])).code, 0);
    const unknown = await validateJson([file('s.json'), '--trust', file('third.jwks')]);
    assert.equal(unknown.code, 0);
    assert.deepEqual(unknown.entries[0]!.warnings.map((e) => e.rule), ['signature.jku-untrusted']);
    const required = await validateJson([file('s.json'), '--trust', file('third.jwks'), '--require-signature']);
    assert.equal(required.code, 1);
    assert.deepEqual(required.entries[0]!.errors.map((e) => e.rule), ['signature.required']);
    const unsigned = await validateJson([card10, '--require-signature']);
    assert.deepEqual([unsigned.code, unsigned.entries[0]!.errors.map((e) => e.rule)], [1, ['signature.required']]);
  });

  test('signing again with the same kid replaces its signature; another kid adds one', async () => {
    const twice = JSON.parse((await run(runSign, ['-', '--key', `${name}.private.jwk`], signedText)).stdout) as Card;
    assert.equal((twice.signatures as unknown[]).length, 1);
    const both = JSON.parse((await run(runSign, ['-', '--key', file('third.private.jwk')], signedText)).stdout) as Card;
    assert.equal((both.signatures as unknown[]).length, 2);
  });

  test('a signature made independently with jose verifies', async () => {
    const key = await testKey('EdDSA', 'independent');
    writeJson('independent.jwks', { keys: [key.publicJwk] });
    const card = clean03();
    const out = writeJson('independent.json', { ...card, signatures: [await signPayload(canonicalize(card)!, key)] });
    const r = await validateJson([out, '--trust', file('independent.jwks')]);
    assert.equal(r.entries[0]!.signatures![0]!.verified, true);
  });

  test('a kid starting with a dash is given as --kid=-…; as a separate word it is a usage error saying so', async () => {
    const spaced = await run(runKeygen, ['--out', file('dash'), '--kid', '-dash']);
    assert.equal(spaced.code, 2);
    assert.match(spaced.stderr, /use '--kid=-XYZ'/);
    assert.equal((await run(runKeygen, ['--out', file('dash'), '--kid=-dash'])).code, 0);
    assert.equal(JSON.parse(readFileSync(file('dash.jwks'), 'utf8')).keys[0].kid, '-dash');
  });

  test('usage errors exit 2: no key, a bad alg, a public key to sign with, a bad trust file', async () => {
    assert.equal((await run(runSign, [card10])).code, 2);
    assert.equal((await run(runSign, [card10, '--key', `${name}.private.jwk`, '--alg', 'HS256'])).code, 2);
    assert.equal((await run(runKeygen, ['--out', file('x'), '--alg', 'none'])).code, 2);
    const pub = writeJson('pub.jwk', JSON.parse(readFileSync(jwks, 'utf8')).keys[0]);
    const r = await run(runSign, [card10, '--key', pub]);
    assert.deepEqual([r.code, r.stderr], [1, `cardgate sign: ${pub} is not a private JWK (a JSON object with "d")\n`]);
    const badTrust = await run(runValidate, [card10, '--trust', `${name}.private.jwk`]);
    assert.equal(badTrust.code, 2);
    assert.match(badTrust.stderr, /trust file .*ci\.private\.jwk: is not a JWKS/);
    const leaked = writeJson('leaked.jwks', { keys: [JSON.parse(readFileSync(`${name}.private.jwk`, 'utf8'))] });
    assert.match((await run(runValidate, [card10, '--trust', leaked])).stderr, /holds private key material \(d\)/);
  });

  test('--alg other than the key\'s own alg is refused: its public key (alg RS256) would never verify a PS256 signature', async () => {
    const rsa = file('rsa');
    await run(runKeygen, ['--out', rsa, '--alg', 'RS256']);
    const r = await run(runSign, [card10, '--key', `${rsa}.private.jwk`, '--alg', 'PS256']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the key is for RS256, not PS256/);
    assert.equal(r.stdout, '');
  });

  test('as a child process: keygen, sign, validate --trust', async () => {
    const base = file('proc');
    assert.equal((await runCli(['keygen', '--alg', 'EdDSA', '--kid', 'proc', '--out', base])).code, 0);
    const out = file('proc-signed.json');
    const signedRun = await runCli(['sign', card03, '--key', `${base}.private.jwk`, '-o', out]);
    assert.equal(signedRun.code, 0, signedRun.stderr);
    const checked = await runCli(['validate', out, '--trust', `${base}.jwks`, '--require-signature']);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /signature by kid "proc" \(EdDSA\) verified over the 0\.3\.0 canonical form/);
    const help = await runCli(['--help']);
    assert.match(help.stdout, /sign CARD .*\n.*keygen/);
  });
});
