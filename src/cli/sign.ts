/**
 * `cardgate sign` and `cardgate keygen`: a CI pipeline makes a key pair once, signs the card it
 * publishes, and the next step checks it with `cardgate validate --trust`. The signature is the
 * A2A AgentCardSignature: a JWS with protected header {alg, typ: "JOSE", kid, jku?} over the card's
 * canonical form (1.0 cards with their default-valued fields removed), the payload left out.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, FlattenedSign, generateKeyPair, importJWK, type JWK } from 'jose';
import { validateCard } from '../engine/index.ts';
import { isSignatureAlgorithm, signatureAlgorithms, type SignatureAlgorithm } from '../engine/signatures/algorithms.ts';
import { canonicalPayload, formFor } from '../engine/signatures/canonical.ts';
import { decodeProtectedHeader } from '../engine/signatures/protected-header.ts';
import { isRecord } from '../engine/versions.ts';
import { jkuSchema } from '../features/trust/managed-keys.ts';
import { keyFileBound } from '../features/trust/trust-files.ts';
import { nestsDeeperThan } from '../lib/json.ts';
import { describeOutOfRange, outOfRangeNumber } from '../lib/json-numbers.ts';
import type { ReadBound } from '../lib/read-file.ts';
import { describeSyntaxProblem, jsonSyntaxProblem } from '../lib/text-position.ts';
import { readCommandLine } from './args.ts';
import { readOperand, type CliIO } from './io.ts';
import { withSignaturesText } from './signatures-edit.ts';

const signHelp = `Usage: cardgate sign CARD|- --key PRIVATE.jwk [--kid K] [--jku URL] [--alg A] [-o OUT]

Adds a JWS signature to an A2A agent card's "signatures" (replacing one with the same kid),
changing nothing else of its text (indentation, order, line ends kept), over the card's canonical form: RFC 8785 (JCS) without "signatures"; for a 1.0 card the fields
left at their protocol buffer defaults are removed first.

Options:
  --key FILE     the private key as a JWK (cardgate keygen writes NAME.private.jwk)
  --kid K        key id in the protected header (default: the JWK's kid)
  --jku URL      https URL of the JWKS that publishes the public key, put in the protected header
  --alg A        ${signatureAlgorithms.join(', ')} (default and only choice: the JWK's alg, if it has one; else by its key type)
  -o, --output FILE   write the signed card there (default: standard output)
  -h, --help     show this help

Exit codes: 0 signed; 1 the card or the key cannot be read or used; 2 usage error.
`;

const keygenHelp = `Usage: cardgate keygen --out NAME [--alg A] [--kid K]

Makes a signing key pair: NAME.private.jwk (the private JWK, mode 0600, for cardgate sign)
and NAME.jwks (the public key as a JWKS, for cardgate validate --trust and the trust store).
Existing files are never overwritten.

Options:
  -o, --out NAME  path and name of the two files
  --alg A         ${signatureAlgorithms.join(', ')} (default ES256); EdDSA makes an Ed25519 key
  --kid K         key id (default: the key's RFC 7638 thumbprint)
  -h, --help      show this help

Exit codes: 0 written; 1 a file exists or cannot be written; 2 usage error.
`;

/** The largest card `sign` reads: far above any real card (the service takes 1 MiB by default). */
const cardBound: ReadBound = { maxBytes: 16 * 1024 * 1024, what: 'a card to sign' };

/** The deepest card `sign` takes: the most any server may be set to accept (http.maxJsonDepth); the walks below recurse. */
const MAX_CARD_DEPTH = 1000;

/** The algorithm a key signs with when none is asked for: the JWK's `alg`, else the usual one of its type. */
function defaultAlg(jwk: JWK): string | undefined {
  if (typeof jwk.alg === 'string') return jwk.alg;
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'RSA') return 'RS256';
  return jwk.kty === 'EC' ? ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[jwk.crv ?? ''] : undefined;
}

/** The text of a FILE or `-` and its JSON value; throws an Error saying what is wrong. */
const readJson = async (file: string, bound: ReadBound, io: CliIO): Promise<{ text: string; value: unknown }> => {
  const read = await readOperand(file, bound, io.readStdin);
  if ('problem' in read) throw new Error(read.problem);
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (e) {
    throw new Error(`not JSON: ${describeSyntaxProblem(jsonSyntaxProblem(read.text, e as SyntaxError))}`);
  }
  return { text: read.text, value };
};

/** The card with one more signature: the given kid's earlier one (if any) replaced. */
export async function signCard(card: Record<string, unknown>, privateJwk: JWK, header: { alg: SignatureAlgorithm; kid: string; jku?: string }): Promise<Record<string, unknown>> {
  const payload = canonicalPayload(card, formFor(validateCard(card).version));
  if (payload === undefined) throw new Error('the card cannot be canonicalized (a string holds a lone surrogate)');
  const key = await importJWK(privateJwk, header.alg);
  const jws = await new FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: header.alg, typ: 'JOSE', kid: header.kid, ...(header.jku ? { jku: header.jku } : {}) }).sign(key);
  const others = (Array.isArray(card.signatures) ? card.signatures : []).filter((s) => {
    const decoded = isRecord(s) && typeof s.protected === 'string' ? decodeProtectedHeader(s.protected) : undefined;
    return !isRecord(decoded) || decoded.kid !== header.kid;
  });
  return { ...card, signatures: [...others, { protected: jws.protected!, signature: jws.signature }] };
}

/**
 * The signed card's text: the card's own text with only `signatures` changed; written anew (two
 * spaces) only when that edit would not read back as the signed card (duplicate members).
 */
const signedText = (cardText: string, signed: Record<string, unknown>): string => {
  const edited = withSignaturesText(cardText, signed.signatures as unknown[]);
  return edited !== undefined && JSON.stringify(JSON.parse(edited)) === JSON.stringify(signed) ? edited : `${JSON.stringify(signed, null, 2)}\n`;
};

export async function runSign(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('sign', signHelp, io, args, {
    key: { type: 'string' }, kid: { type: 'string' }, jku: { type: 'string' }, alg: { type: 'string' }, output: { type: 'string', short: 'o' },
  });
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  if (positionals.length !== 1 || positionals[0] === '') return usage('give one CARD file (or - for standard input)');
  if (values.key === undefined || values.key === '') return usage('--key PRIVATE.jwk is required');
  const jkuProblem = values.jku === undefined ? undefined : jkuSchema.safeParse(values.jku).error?.issues[0]?.message;
  if (jkuProblem !== undefined) return usage(`--jku ${jkuProblem}, as the trust API requires, not "${values.jku!.slice(0, 200)}"`);
  const fail = (problem: string): number => {
    io.stderr(`cardgate sign: ${problem}\n`);
    return 1;
  };
  let card: { text: string; value: unknown };
  let jwk: unknown;
  try {
    card = await readJson(positionals[0]!, cardBound, io);
  } catch (e) {
    return fail(`cannot read the card ${positionals[0]}: ${(e as Error).message}`);
  }
  if (!isRecord(card.value)) return fail('the card is not a JSON object');
  if (nestsDeeperThan(card.text, MAX_CARD_DEPTH)) return fail(`cannot sign ${positionals[0]}: it nests arrays and objects more than ${MAX_CARD_DEPTH} levels deep`);
  const overflow = outOfRangeNumber(card.text);
  if (overflow) return fail(`cannot sign ${positionals[0]}: ${describeOutOfRange(overflow)}`);
  try {
    jwk = (await readJson(values.key, keyFileBound, io)).value;
  } catch (e) {
    return fail(`cannot read the key ${values.key}: ${(e as Error).message}`);
  }
  if (!isRecord(jwk) || typeof jwk.d !== 'string') return fail(`${values.key} is not a private JWK (a JSON object with "d")`);
  const alg = values.alg ?? defaultAlg(jwk as JWK);
  if (alg === undefined || !isSignatureAlgorithm(alg)) return usage(`--alg must be one of ${signatureAlgorithms.join(', ')}${alg === undefined ? ' (the key does not say)' : `, not "${alg}"`}`);
  // A key that names its alg is trusted for that alg only (its public half carries it): any other would never verify.
  if (typeof jwk.alg === 'string' && jwk.alg !== alg) return usage(`--alg ${alg}: the key is for ${jwk.alg}, not ${alg}`);
  const kid = values.kid ?? (typeof jwk.kid === 'string' ? jwk.kid : undefined);
  if (kid === undefined || kid === '') return usage('--kid is required: the key has no kid');
  let signed: Record<string, unknown>;
  try {
    signed = await signCard(card.value, jwk as JWK, { alg, kid, ...(values.jku === undefined ? {} : { jku: values.jku }) });
  } catch (e) {
    return fail(`cannot sign with ${values.key} as ${alg}: ${(e as Error).message}`);
  }
  const text = signedText(card.text, signed);
  if (values.output === undefined) io.stdout(text);
  else {
    try {
      await writeFile(values.output, text);
    } catch (e) {
      return fail(`cannot write ${values.output}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return 0;
}

export async function runKeygen(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('keygen', keygenHelp, io, args, { out: { type: 'string', short: 'o' }, alg: { type: 'string', default: 'ES256' }, kid: { type: 'string' } }, { allowPositionals: false });
  if ('exit' in line) return line.exit;
  const { values, usage } = line;
  if (values.out === undefined || values.out === '') return usage('--out NAME is required');
  const alg = values.alg;
  if (!isSignatureAlgorithm(alg)) return usage(`--alg must be one of ${signatureAlgorithms.join(', ')}, not "${alg}"`);
  if (values.kid === '') return usage('--kid must not be empty');
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = values.kid ?? (await calculateJwkThumbprint(publicJwk));
  const about = { kid, alg, use: 'sig' };
  const files = [
    // The private key first, readable by its owner only; `wx`: an existing key is never overwritten.
    { path: `${values.out}.private.jwk`, text: `${JSON.stringify({ ...(await exportJWK(privateKey)), ...about }, null, 2)}\n`, mode: 0o600 },
    { path: `${values.out}.jwks`, text: `${JSON.stringify({ keys: [{ ...publicJwk, ...about }] }, null, 2)}\n`, mode: 0o644 },
  ];
  const existing = files.find((f) => existsSync(f.path));
  if (existing) {
    io.stderr(`cardgate keygen: ${existing.path} exists (never overwritten)\n`);
    return 1;
  }
  for (const file of files) {
    try {
      await writeFile(file.path, file.text, { mode: file.mode, flag: 'wx' });
    } catch (e) {
      io.stderr(`cardgate keygen: cannot write ${file.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      return 1;
    }
  }
  io.stdout(`${files[0]!.path}: private key (keep it secret: a CI secret, never in the repository)\n${files[1]!.path}: public key set (kid ${kid}, ${alg}) for cardgate validate --trust\n`);
  return 0;
}
