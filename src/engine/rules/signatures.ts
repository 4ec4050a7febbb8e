/** 1.0 §8.4.2: each signature's `protected` is a base64url JSON header that carries `alg` and `kid`. */
import { decodeProtectedHeader, missingHeaderMembers } from '../signatures/protected-header.ts';
import { arrayOf, recordOf, reportedEmpty, type RuleContext } from './context.ts';

export function checkSignatures(ctx: RuleContext): void {
  if (ctx.version !== '1.0') return;
  arrayOf(ctx.card.signatures).forEach((s, i) => {
    const value = recordOf(s)?.protected;
    const at = `signatures[${i}].protected`;
    if (typeof value !== 'string' || reportedEmpty(ctx, at, value)) return; // the schema reports it
    const header = decodeProtectedHeader(value);
    if (typeof header === 'string') {
      ctx.report.add('signature.protected-header', at, `protected ${header}`);
      return;
    }
    const missing = missingHeaderMembers(header);
    if (missing.length) ctx.report.add('signature.protected-header', at, `protected header lacks ${missing.join(' and ')}`);
  });
}
