/** A JWS `protected` value: base64url of a JSON object (RFC 7515 §7.2.1). */
import { isRecord } from '../versions.ts';

const base64url = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The bytes of a base64url text without padding, or undefined when it is not one. */
export function base64urlBytes(text: string): Uint8Array | undefined {
  if (!base64url.test(text) || text.length % 4 === 1) return undefined;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The decoded header object, or a reason it cannot be read. */
export function decodeProtectedHeader(text: string): Record<string, unknown> | string {
  const bytes = base64urlBytes(text);
  if (bytes === undefined) return 'is not base64url';
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(bytes));
  } catch {
    return 'does not decode to JSON';
  }
  return isRecord(header) ? header : 'does not decode to a JSON object';
}

/** The members a signature's header must carry as non-empty strings that it lacks. */
export const missingHeaderMembers = (header: Record<string, unknown>): string[] =>
  ['alg', 'kid'].filter((k) => typeof header[k] !== 'string' || header[k] === '');
