/** 1.0 §8.4.2: each signature's `protected` is a base64url JSON header that carries `alg` and `kid`. */
import { arrayOf, recordOf, type RuleContext } from './context.ts';

const base64url = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The decoded header object, or a reason it cannot be read. */
function decodeHeader(text: string): Record<string, unknown> | string {
  if (!base64url.test(text) || text.length % 4 === 1) return 'is not base64url';
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(bytes));
  } catch {
    return 'does not decode to JSON';
  }
  return recordOf(header) ?? 'does not decode to a JSON object';
}

export function checkSignatures(ctx: RuleContext): void {
  if (ctx.version !== '1.0') return;
  arrayOf(ctx.card.signatures).forEach((s, i) => {
    const value = recordOf(s)?.protected;
    if (typeof value !== 'string') return; // the schema reports it
    const at = `signatures[${i}].protected`;
    const header = decodeHeader(value);
    if (typeof header === 'string') {
      ctx.report.add('signature.protected-header', at, `protected ${header}`);
      return;
    }
    const missing = ['alg', 'kid'].filter((k) => typeof header[k] !== 'string' || header[k] === '');
    if (missing.length) ctx.report.add('signature.protected-header', at, `protected header lacks ${missing.join(' and ')}`);
  });
}
