/**
 * A hostile or broken identity provider on a loopback port: its discovery document or token
 * answer never ends (64 MB of one JSON string, sent as fast as the socket takes it). The sign-in
 * must give up after a bounded read, not hold the whole answer in memory: the server counts what
 * it could write before the client stopped reading.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { oidcSignIn, SignInRefused } from '../../../src/features/auth/oidc.ts';
import type { OidcSettings } from '../../../src/features/auth/client-secret.ts';
import { FakeClock } from '../../support/fake-time.ts';

const ENDLESS_BYTES = 64 * 1024 * 1024;
/** What a client that stops at ~1 MB may still have had written to its socket's buffers. */
const WRITTEN_AT_MOST = 16 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/** Writes `{"<head>...,"x":"aaaa…"}` of 64 MB, as fast as the client reads; resolves with the bytes written. */
const endless = (res: ServerResponse, head: string): Promise<number> =>
  new Promise((resolve) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let written = 0;
    const done = () => resolve(written);
    res.on('close', done);
    const pump = () => {
      if (written === 0) written += Buffer.byteLength(`{${head}"x":"`), res.write(`{${head}"x":"`);
      while (written < ENDLESS_BYTES) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      res.end('"}', done);
    };
    pump();
  });

const provider = async (endlessPath: string, leftOut: string[] = []) => {
  const written: Promise<number>[] = [];
  const server = createServer((req, res) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const metadata: Record<string, string> = { issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` };
    for (const name of leftOut) delete metadata[name];
    if (req.url === endlessPath) return void written.push(endless(res, req.url === '/.well-known/openid-configuration' ? `"issuer":${JSON.stringify(issuer)},` : ''));
    if (req.url === '/.well-known/openid-configuration') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings: OidcSettings = { issuer, clientId: 'cardgate', clientSecret: 'test-client-secret-0123456789', clientSecretFile: undefined, redirectUrl: 'http://127.0.0.1:1/auth/callback', scopes: ['openid'], rolesClaim: 'groups', roleMapping: { admins: 'admin' }, allowedEmailDomains: [] };
  return {
    signIn: oidcSignIn(settings, settings.clientSecret!, new FakeClock()),
    written: async () => {
      assert.equal(written.length, 1, 'the endless answer was asked for');
      return written[0]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

test('an endless discovery document is read only up to a bound: the sign-in cannot start, nothing like 64 MB is read', async () => {
  const p = await provider('/.well-known/openid-configuration');
  try {
    await assert.rejects(p.signIn.begin(), (e: Error) => e instanceof SignInRefused && /cannot be reached/.test(e.message));
    const written = await p.written();
    assert.ok(written < WRITTEN_AT_MOST, `the provider wrote ${written} bytes before the client stopped`);
  } finally {
    await p.close();
  }
});

test('an endless token answer is read only up to a bound: the sign-in is refused, nothing like 64 MB is read', async () => {
  const p = await provider('/token');
  try {
    const { url, sealed } = await p.signIn.begin();
    const state = new URL(url).searchParams.get('state')!;
    await assert.rejects(p.signIn.finish(new URLSearchParams({ code: 'a-code', state }), sealed), (e: Error) => e instanceof SignInRefused && /could not be verified/.test(e.message));
    const written = await p.written();
    assert.ok(written < WRITTEN_AT_MOST, `the provider wrote ${written} bytes before the client stopped`);
  } finally {
    await p.close();
  }
});

test('a discovery document without an authorization endpoint: the sign-in cannot start (the 503 page), never a fault', async () => {
  const p = await provider('/never', ['authorization_endpoint']);
  try {
    await assert.rejects(p.signIn.begin(), (e: Error) => e instanceof SignInRefused && /cannot be reached/.test(e.message) && /authorization_endpoint/.test(e.detail));
  } finally {
    await p.close();
  }
});
