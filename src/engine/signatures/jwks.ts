/**
 * Reads a JWKS (RFC 7517 §5: {"keys": [JWK, ...]}) into trusted keys. Only public signing keys are
 * taken: a key without `kid` cannot be matched to a signature, a symmetric key would let anyone who
 * reads the file sign, and private members in a file of trusted keys mean a key has leaked.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { declaredAlgFits, isSignatureAlgorithm, keyMismatch } from './algorithms.ts';
import { isRecord } from '../versions.ts';
import type { TrustedKey } from './trusted-key.ts';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const PUBLIC_TYPES = ['EC', 'RSA', 'OKP'];

export interface JwksKeys {
  keys: TrustedKey[];
  /** What was wrong with the set or a key, each naming it (`keys[2] (kid "a")`); such keys are left out. */
  problems: string[];
}

/** Where the keys came from and for whom they are trusted. */
export interface JwksOrigin {
  addedAt: string;
  accountId?: string | null;
  /** The URL the set was fetched from: its keys verify only signatures that name it. */
  jku?: string;
}

function keyProblem(jwk: Record<string, unknown>): string | undefined {
  if (typeof jwk.kid !== 'string' || jwk.kid === '') return 'has no kid';
  if (typeof jwk.kty !== 'string' || !PUBLIC_TYPES.includes(jwk.kty)) return `has kty ${JSON.stringify(jwk.kty)}, not a public key type (${PUBLIC_TYPES.join(', ')})`;
  const secret = PRIVATE_MEMBERS.filter((m) => Object.hasOwn(jwk, m));
  if (secret.length) return `holds private key material (${secret.join(', ')}): a trust file lists public keys only`;
  if (jwk.use !== undefined && jwk.use !== 'sig') return `has use ${JSON.stringify(jwk.use)}, not "sig"`;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return 'is not a usable public key';
  }
  // Refused here rather than on every signature it would fail to verify.
  const type = key.asymmetricKeyType;
  if (type === 'x25519' || type === 'x448') return `is an ${type} key, which agrees keys and cannot sign`;
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return 'has key_ops without "verify"';
  if (jwk.alg === undefined) return undefined;
  const alg = typeof jwk.alg !== 'string' ? undefined : isSignatureAlgorithm(jwk.alg) ? jwk.alg : declaredAlgFits(jwk.alg, 'EdDSA', key) ? 'EdDSA' : undefined;
  if (alg === undefined) return `has alg ${JSON.stringify(jwk.alg)}, not a signature algorithm cardgate accepts`;
  const mismatch = keyMismatch(alg, key);
  return mismatch && `has alg "${jwk.alg}", which it cannot verify: ${mismatch}`;
}

export function parseJwks(value: unknown, origin: JwksOrigin): JwksKeys {
  if (!isRecord(value) || !Array.isArray(value.keys)) return { keys: [], problems: ['is not a JWKS: a JSON object with a "keys" array'] };
  const keys: TrustedKey[] = [];
  const problems: string[] = [];
  value.keys.forEach((jwk, i) => {
    if (!isRecord(jwk)) {
      problems.push(`keys[${i}] is not an object`);
      return;
    }
    const problem = keyProblem(jwk);
    if (problem !== undefined) {
      problems.push(`keys[${i}]${typeof jwk.kid === 'string' ? ` (kid "${jwk.kid}")` : ''} ${problem}`);
      return;
    }
    keys.push({
      kid: jwk.kid as string, jwk, accountId: origin.accountId ?? null, addedAt: origin.addedAt, revokedAt: null,
      ...(origin.jku === undefined ? {} : { jku: origin.jku, fetchedFromJku: true }),
    });
  });
  return { keys, problems };
}
