/**
 * The JWS algorithms a card signature may use: asymmetric only. `none` signs nothing and an HMAC
 * (HS256...) would need the verifier's key to be secret, so neither is ever accepted, whatever the
 * allow-list says.
 */
import type { KeyObject } from 'node:crypto';

export const signatureAlgorithms = ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
export type SignatureAlgorithm = (typeof signatureAlgorithms)[number];

export const isSignatureAlgorithm = (alg: string): alg is SignatureAlgorithm => (signatureAlgorithms as readonly string[]).includes(alg);

const curves: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** The fully-specified names (RFC 9864) a key may give as its `alg` for what a JWS header calls EdDSA. */
const eddsaCurves: Record<string, string> = { Ed25519: 'ed25519', Ed448: 'ed448' };

/** Whether a key that names `declared` as its alg is for `alg`: the same name, or its curve's EdDSA name. */
export const declaredAlgFits = (declared: string, alg: SignatureAlgorithm, key: KeyObject): boolean =>
  declared === alg || (alg === 'EdDSA' && eddsaCurves[declared] === key.asymmetricKeyType);

/** How node:crypto verifies one algorithm: the digest and the key options. */
export interface VerifyParams {
  digest: string | null;
  dsaEncoding?: 'ieee-p1363';
  padding?: number;
  saltLength?: number;
}

/** RSA_PKCS1_PSS_PADDING and RSA_PSS_SALTLEN_DIGEST (node:crypto constants; JWS PS* salts with the digest's length). */
const PSS = { padding: 6, saltLength: -1 };

export function verifyParams(alg: SignatureAlgorithm): VerifyParams {
  if (alg === 'EdDSA') return { digest: null };
  const digest = `sha${alg.slice(2)}`;
  if (alg.startsWith('ES')) return { digest, dsaEncoding: 'ieee-p1363' };
  return alg.startsWith('PS') ? { digest, ...PSS } : { digest };
}

/**
 * RSA keys verified: weaker ones are breakable, and larger ones (or a public exponent beyond what any
 * real key uses, 65537) make each verification cost far more, which a fetched key must not be able to buy.
 */
const RSA_BITS = { min: 2048, max: 8192 };
const MAX_RSA_EXPONENT = 2n ** 64n;

/** Why a key cannot verify this algorithm, or undefined when it can. */
export function keyMismatch(alg: SignatureAlgorithm, key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  if (alg === 'EdDSA') return type === 'ed25519' || type === 'ed448' ? undefined : `an EdDSA signature needs an Ed25519 or Ed448 key, not ${type}`;
  if (alg.startsWith('ES')) {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return type === 'ec' && curve === curves[alg] ? undefined : `${alg} needs an EC key on ${curves[alg]}, not ${type}${curve ? ` ${curve}` : ''}`;
  }
  if (type !== 'rsa') return `${alg} needs an RSA key, not ${type}`;
  const { modulusLength = 0, publicExponent = 0n } = key.asymmetricKeyDetails ?? {};
  if (modulusLength < RSA_BITS.min || modulusLength > RSA_BITS.max) return `${alg} needs an RSA key of ${RSA_BITS.min} to ${RSA_BITS.max} bits, not ${modulusLength} bits`;
  return publicExponent > MAX_RSA_EXPONENT ? `${alg} needs an RSA key whose public exponent is at most 2^64 (a public exponent above 2^64 makes each verification as costly as signing)` : undefined;
}
