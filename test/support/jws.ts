/**
 * Signs card payloads with jose directly, from the A2A steps (protected header {alg, typ: JOSE, kid,
 * jku?}; JWS signing input over the payload; payload left out): independent of cardgate's signing code.
 */
import { exportJWK, FlattenedSign, generateKeyPair, type CryptoKey } from 'jose';
import type { TrustedKey } from '../../src/engine/signatures/trusted-key.ts';

export interface TestKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicJwk: Record<string, unknown>;
}

export async function testKey(alg: string, kid = `${alg.toLowerCase()}-key`): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

export async function signPayload(payload: string, key: TestKey, extra: Record<string, unknown> = {}): Promise<{ protected: string; signature: string }> {
  const jws = await new FlattenedSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg: key.alg, typ: 'JOSE', kid: key.kid, ...extra })
    .sign(key.privateKey);
  return { protected: jws.protected!, signature: jws.signature };
}

export const trusted = (key: TestKey, more: Partial<TrustedKey> = {}): TrustedKey =>
  ({ kid: key.kid, jwk: key.publicJwk, accountId: null, addedAt: '2026-01-01T00:00:00.000Z', revokedAt: null, ...more });
