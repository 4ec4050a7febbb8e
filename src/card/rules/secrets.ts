/**
 * Likely credentials anywhere in the card (0.x §5.4, 1.0 §14.3). Walks every string iteratively with a
 * depth and node budget, so deep or huge input cannot overflow the stack or run unbounded.
 */
import { formatPath, type PathSegment } from '../paths.ts';
import type { RuleContext } from './context.ts';

const MAX_DEPTH = 32;
const MAX_NODES = 10_000;

/** Field names whose string value is a credential when it looks like one. */
const secretKey = /^(?:x[-_]?)?(?:api[-_]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|token|secret|client[-_]?secret|password|passwd|private[-_]?key|bearer[-_]?token)$/i;
/**
 * Values that look like a credential whatever the field: vendor key formats, JWTs, PEM keys, credentials in URLs.
 * Every alternative must stay linear in the value's length (test/card/redos.test.ts): a repeated part
 * may not be able to restart inside its own run. The JWT starts where a run of its characters starts
 * (a lookbehind, not `\b`): with `\b`, `"-eyJ".repeat(n)` restarted after every `-` and rescanned the
 * rest of the run each time (quadratic: 9 s for 160 KB). Being linear, the whole value is scanned, with
 * no length cap: a credential at the end of a long description is still found.
 */
const secretValue = new RegExp([
  String.raw`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{30,}`,
  String.raw`\bAKIA[0-9A-Z]{16}\b`,
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
  String.raw`\bAIza[0-9A-Za-z_-]{35}`,
  String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----`,
  String.raw`://[^/\s:@]+:[^/\s@]{3,}@`,
  String.raw`[?&](?:api[_-]?key|access_token|token|secret|password)=[^&\s]{8,}`,
].join('|'));
/** Values in a secret-named field that are clearly not a credential. */
const notACredential = /^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|x+|\*+|none|null|true|false|header|query|cookie|bearer|basic)$|\s/i;

const mask = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;

/** A node still to visit; its path is only spelled out for a finding (most cards have none). */
interface Visit {
  value: unknown;
  parent: Visit | null;
  segment: PathSegment;
  /** The nearest object key above (array items inherit it): what names the value. */
  key: string;
  depth: number;
}

const pathOf = (visit: Visit): string => {
  const segments: PathSegment[] = [];
  for (let v: Visit | null = visit; v?.parent; v = v.parent) segments.push(v.segment);
  return formatPath(segments.reverse());
};

export function checkSecrets(ctx: RuleContext): void {
  const stack: Visit[] = [{ value: ctx.card, parent: null, segment: '', key: '', depth: 0 }];
  let nodes = 0;
  while (stack.length > 0 && nodes < MAX_NODES) {
    const visit = stack.pop()!;
    const { value, key, depth } = visit;
    nodes++;
    if (typeof value === 'string') {
      const byKey = value.length >= 8 && secretKey.test(key) && !notACredential.test(value);
      if (byKey || (value.length >= 16 && secretValue.test(value))) {
        const path = pathOf(visit);
        ctx.report.add('content.secret', path, `${path} looks like a credential (${mask(value)}); cards are public`, `remove the value of ${path} from the card and rotate the credential`);
      }
    } else if (typeof value === 'object' && value !== null && depth < MAX_DEPTH) {
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: visit, segment: i, key, depth: depth + 1 });
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i]!;
          stack.push({ value: (value as Record<string, unknown>)[k], parent: visit, segment: k, key: k, depth: depth + 1 });
        }
      }
    }
  }
}
