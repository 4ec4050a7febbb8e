/**
 * Verifies a card's JWS signatures (RFC 7515, the A2A AgentCardSignature: `protected` + `signature`
 * over the canonical card as a detached payload) against the keys the caller trusts. Synchronous
 * (node:crypto), so it runs inside validateCard; the keys arrive as data, nothing is fetched here.
 */
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ruleInfo, type RuleId } from '../catalogue.ts';
import type { Report } from '../report.ts';
import { clip, someOf } from '../paths.ts';
import { isRecord } from '../versions.ts';
import type { CanonicalForm, SignatureCheck, SignaturePolicy } from '../types.ts';
import { declaredAlgFits, isSignatureAlgorithm, keyMismatch, signatureAlgorithms, verifyParams, type SignatureAlgorithm } from './algorithms.ts';
import { canonicalForms, canonicalPayload, formFor } from './canonical.ts';
import { base64urlBytes, decodeProtectedHeader, missingHeaderMembers } from './protected-header.ts';
import { sdkVariants, sharedDifference, unsignedFields, type SdkVariant } from './sdk-variants.ts';
import type { TrustedKey } from './trusted-key.ts';

/** One signature's outcome before it is reported: the rule and the reason, the form that verified, or the SDKs whose form did. */
type FailedRule = Exclude<RuleId, 'signature.verified' | 'signature.sdk-variant'>;
/** `shapeChecked`: a header fault the 1.0 shape rule (checkSignatures) reports already. */
type Outcome =
  | { rule: FailedRule; reason: string; shapeChecked?: boolean }
  | { rule: 'signature.verified'; form: CanonicalForm }
  | { rule: 'signature.sdk-variant'; variants: readonly SdkVariant[] };

const fail = (rule: FailedRule, reason: string): Outcome => ({ rule, reason });
const shapeFault = (reason: string): Outcome => ({ rule: 'signature.protected-header', reason, shapeChecked: true });
const stringOr = (v: unknown): string | null => (typeof v === 'string' ? clip(v) : null);

/**
 * Signatures verified per card at most: real cards carry one or two (key rotation), and each costs
 * a public-key operation per canonical form, so a card of thousands must not buy that much work.
 */
export const MAX_SIGNATURES = 16;

/** The trusted key as a node:crypto public key, or why it is none. */
function publicKey(key: TrustedKey): KeyObject | string {
  if (key.jwk.kty === 'oct') return 'the trusted key is a symmetric (oct) key';
  try {
    return createPublicKey({ key: key.jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return 'the trusted key is not a usable public JWK';
  }
}

/** Whether the signature verifies over one payload with one key. */
function verifies(alg: SignatureAlgorithm, key: KeyObject, protectedText: string, payload: string, signature: Uint8Array): boolean {
  const { digest, ...options } = verifyParams(alg);
  const input = Buffer.from(`${protectedText}.${Buffer.from(payload, 'utf8').toString('base64url')}`, 'ascii');
  try {
    return verify(digest, input, { key, ...options }, signature);
  } catch {
    return false;
  }
}

/** Why this trusted key cannot verify `alg`, or undefined when it can. */
function unusable(alg: SignatureAlgorithm, trusted: TrustedKey, key: KeyObject | string): string | undefined {
  if (typeof key === 'string') return key;
  const declared = trusted.jwk.alg;
  return keyMismatch(alg, key) ?? (typeof declared === 'string' && !declaredAlgFits(declared, alg, key) ? `the trusted key is for ${declared}, not ${alg}` : undefined);
}

/**
 * The payloads to try, computed on first use, once per card: the specification's forms, the card's
 * own generation's first; then the SDKs' (sdk-variants.ts), those of identical bytes together.
 */
interface Payloads {
  spec: () => ReadonlyArray<readonly [CanonicalForm, string | undefined]>;
  sdks: () => ReadonlyArray<readonly [readonly SdkVariant[], string]>;
}

/**
 * Keys named by the header: same `kid`, and the same `jku` where both the key and the header give one. A key
 * fetched from a jku needs the header to name it: otherwise a card could have a key it published verify a
 * signature that looks like one by the trusted key of that kid.
 */
const keysFor = (keys: readonly TrustedKey[], kid: string, jku: string | null): TrustedKey[] =>
  keys.filter((k) => k.kid === kid && (jku === null ? k.fetchedFromJku !== true : k.jku === undefined || k.jku === jku));

type Settings = Required<SignaturePolicy>;

/** The trusted keys as node:crypto keys, each made once per card. */
type KeyObjects = (key: TrustedKey) => KeyObject | string;

function checkOne(entry: unknown, policy: Settings, payloads: Payloads, keyObject: KeyObjects): { header: Record<string, unknown> | undefined; outcome: Outcome } {
  const protectedText = isRecord(entry) ? entry.protected : undefined;
  const signatureText = isRecord(entry) ? entry.signature : undefined;
  if (typeof protectedText !== 'string') return { header: undefined, outcome: shapeFault('the signature has no protected header') };
  const header = decodeProtectedHeader(protectedText);
  if (typeof header === 'string') return { header: undefined, outcome: shapeFault(`protected ${header}`) };
  const missing = missingHeaderMembers(header);
  if (missing.length) return { header, outcome: shapeFault(`protected header lacks ${missing.join(' and ')}`) };
  // No JWS extension is understood, so a header that makes one critical must be refused (RFC 7515 §4.1.11).
  if (header.crit !== undefined) return { header, outcome: fail('signature.protected-header', 'protected header lists critical extensions (crit), which are not supported') };
  if (header.jku !== undefined && typeof header.jku !== 'string') return { header, outcome: fail('signature.protected-header', 'protected header jku is not a string') };
  const alg = header.alg as string;
  const kid = header.kid as string;
  const jku = typeof header.jku === 'string' ? header.jku : null; // whole: it is clipped only where it is shown
  if (!isSignatureAlgorithm(alg)) return { header, outcome: fail('signature.algorithm', `alg "${alg}" is never accepted: only ${signatureAlgorithms.join(', ')} are`) };
  if (!policy.allowedAlgorithms.includes(alg)) return { header, outcome: fail('signature.algorithm', `alg "${alg}" is not in the allowed algorithms (${policy.allowedAlgorithms.join(', ')})`) };
  const named = keysFor(policy.keys, kid, jku);
  if (named.length === 0) {
    return { header, outcome: jku === null
      ? fail('signature.unknown-key', `no trusted key has kid "${kid}"`)
      : fail('signature.jku-untrusted', `no trusted key has kid "${kid}" at jku ${clip(jku)}`) };
  }
  const inForce = named.filter((k) => k.revokedAt === null || Date.parse(k.revokedAt) > Date.parse(policy.at));
  if (inForce.length === 0) return { header, outcome: fail('signature.key-revoked', `the trusted key "${kid}" is revoked since ${named.map((k) => k.revokedAt).sort()[0]}`) };
  const signature = typeof signatureText === 'string' ? base64urlBytes(signatureText) : undefined;
  if (signature === undefined) return { header, outcome: fail('signature.invalid', 'the signature value is not base64url') };
  if (payloads.spec().every(([, payload]) => payload === undefined) && payloads.sdks().length === 0) {
    return { header, outcome: fail('signature.invalid', 'the card cannot be canonicalized (a string holds a lone surrogate)') };
  }
  const problems: string[] = [];
  const usable: KeyObject[] = [];
  for (const trusted of inForce) {
    const key = keyObject(trusted);
    const problem = unusable(alg, trusted, key);
    if (problem !== undefined || typeof key === 'string') {
      problems.push(problem ?? '');
      continue;
    }
    usable.push(key);
    for (const [form, payload] of payloads.spec()) {
      if (payload !== undefined && verifies(alg, key, protectedText, payload, signature)) return { header, outcome: { rule: 'signature.verified', form } };
    }
  }
  // None of the specification's forms: an SDK's, so that its signature is told from a forged one.
  for (const key of usable) {
    for (const [variants, payload] of payloads.sdks()) {
      if (verifies(alg, key, protectedText, payload, signature)) return { header, outcome: { rule: 'signature.sdk-variant', variants } };
    }
  }
  const why = problems.length === inForce.length ? problems.join('; ') : 'the signature does not match the card (changed since it was signed, or signed by another key), as the specification canonicalizes it nor as the A2A SDKs do';
  return { header, outcome: fail('signature.invalid', why) };
}

/** The SDKs' payloads for the card, each once: SDKs that write the same bytes are one payload (a card they cannot read is none). */
const sdkPayloads = (card: Record<string, unknown>): Array<readonly [readonly SdkVariant[], string]> => {
  const byPayload = new Map<string, SdkVariant[]>();
  for (const variant of sdkVariants) {
    const payload = variant.canonicalize(card);
    if (payload !== undefined) byPayload.set(payload, [...(byPayload.get(payload) ?? []), variant]);
  }
  return [...byPayload].map(([payload, variants]) => [variants, payload] as const);
};

/** The finding of a signature an SDK's form verifies: which SDKs, how their form differs, what it leaves unsigned. */
const variantMessage = (card: Record<string, unknown>, variants: readonly SdkVariant[]): string => {
  const unsigned = unsignedFields(card);
  const names = variants.map((v) => v.sdk);
  const differs = variants.length === 1 ? variants[0]!.differs : sharedDifference;
  return `verifies as ${names.join(' and ')} canonicalize${variants.length === 1 ? 's' : ''} the card, which differs from §8.4.1 in ${differs}; verifiers of the specification's form reject it${
    unsigned.length > 0 ? `. Fields the signature does not cover: ${someOf(unsigned)}` : ''}`;
};

/**
 * Checks the card's signatures (the first MAX_SIGNATURES), reports the failures and returns one verdict per signature checked.
 * A header fault the 1.0 shape rules already report is not reported twice.
 */
export function verifySignatures(card: Record<string, unknown>, version: string, policy: SignaturePolicy, report: Report): SignatureCheck[] {
  const settings: Settings = {
    keys: policy.keys,
    allowedAlgorithms: policy.allowedAlgorithms ?? signatureAlgorithms,
    requireSignature: policy.requireSignature ?? false,
    at: policy.at ?? new Date().toISOString(),
  };
  const first = formFor(version);
  let spec: ReturnType<Payloads['spec']> | undefined;
  let sdks: ReturnType<Payloads['sdks']> | undefined;
  const payloads: Payloads = {
    spec: () => (spec ??= [first, ...canonicalForms.filter((f) => f !== first)].map((form) => [form, canonicalPayload(card, form)] as const)),
    sdks: () => (sdks ??= sdkPayloads(card)),
  };
  const keyObjects = new Map<TrustedKey, KeyObject | string>();
  const keyObject: KeyObjects = (key) => keyObjects.get(key) ?? keyObjects.set(key, publicKey(key)).get(key)!;
  const entries = Array.isArray(card.signatures) ? card.signatures : [];
  const checks = entries.slice(0, MAX_SIGNATURES).map((entry, index): SignatureCheck => {
    const { header, outcome } = checkOne(entry, settings, payloads, keyObject);
    const base = { index, kid: stringOr(header?.kid), alg: stringOr(header?.alg), jku: stringOr(header?.jku) };
    if (outcome.rule === 'signature.verified') return { ...base, verified: true, rule: outcome.rule, form: outcome.form };
    if (outcome.rule === 'signature.sdk-variant') {
      const reason = variantMessage(card, outcome.variants);
      report.add(outcome.rule, `signatures[${index}]`, reason);
      return { ...base, verified: true, rule: outcome.rule, reason, variants: outcome.variants.map((v) => v.id) };
    }
    const at = outcome.rule === 'signature.protected-header' ? `signatures[${index}].protected` : `signatures[${index}]`;
    if (!(outcome.shapeChecked && version === '1.0')) report.add(outcome.rule, at, outcome.reason);
    return { ...base, verified: false, rule: outcome.rule, reason: outcome.reason };
  });
  if (entries.length > MAX_SIGNATURES) {
    report.add('signature.invalid', 'signatures', `${entries.length - MAX_SIGNATURES} signatures past the first ${MAX_SIGNATURES} were not checked (nor listed in the result)`);
  }
  if (settings.requireSignature && !checks.some((c) => c.verified)) {
    report.add('signature.required', 'signatures', entries.length === 0
      ? 'the card is not signed, and a signature by a trusted key is required'
      : 'no signature of the card verifies with a trusted key, and one is required');
  } else if (entries.length === 0 && ruleInfo('signature.missing').versions.includes(version)) {
    // One finding for one missing signature: signature.required above when one is required.
    report.add('signature.missing', 'signatures', 'the card is not signed, though signatures are verified');
  }
  return checks;
}
