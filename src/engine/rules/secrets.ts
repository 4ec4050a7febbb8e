/**
 * Likely credentials anywhere in the card (0.x §5.4, 1.0 §14.3). Walks every string with a depth and
 * node budget, so deep or huge input cannot overflow the stack or run unbounded.
 */
import { fieldName, formatPath, type PathSegment } from '../paths.ts';
import type { RuleContext } from './context.ts';

const MAX_DEPTH = 32;
const MAX_NODES = 10_000;

/** Field names whose string value is a credential when it looks like one. */
const secretKey = /^(?:x[-_]?)?(?:api[-_]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|token|secret|client[-_]?secret|password|passwd|private[-_]?key|bearer[-_]?token)$/i;
/**
 * Values that look like a credential whatever the field: vendor key formats, JWTs, PEM keys, credentials in URLs.
 * Every alternative must stay linear in the value's length (test/engine/redos.test.ts): a repeated part
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
/**
 * A literal (or the URL form) that every alternative of secretValue needs: a cheap first test that
 * clears most strings, so the full pattern runs on few (it was most of the engine's time).
 */
const secretMarker = /_live_|_test_|sk-|gh[pousr]_|github_pat_|AKIA|xox[abprs]-|AIza|eyJ|-----BEGIN|:\/\/[^/\s:@]+:[^/\s@]{3,}@|[?&][a-z_-]+=/;
/** Values in a secret-named field that are clearly not a credential. */
const notACredential = /^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|x+|\*+|none|null|true|false|header|query|cookie|bearer|basic)$|\s/i;

const mask = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;

const looksLikeSecret = (value: string, key: string): boolean =>
  (value.length >= 8 && secretKey.test(key) && !notACredential.test(value)) ||
  (value.length >= 16 && secretMarker.test(value) && secretValue.test(value));

/** Depth-first in key order; the path is kept as a stack of segments and spelled out only for a finding. */
export function checkSecrets(ctx: RuleContext): void {
  const path: PathSegment[] = [];
  let budget = MAX_NODES;
  const visit = (value: unknown, key: string, depth: number): void => {
    if (budget-- <= 0) return;
    if (typeof value === 'string') {
      if (looksLikeSecret(value, key)) {
        // The fix names the field, not the whole path: the suggestion's field already gives that.
        const name = fieldName(path);
        ctx.report.add('content.secret', formatPath(path), `${name} looks like a credential (${mask(value)}); cards are public`, `remove the value of ${name} from the card and rotate the credential`);
      }
    } else if (typeof value === 'object' && value !== null && depth < MAX_DEPTH) {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          visit(value[i], key, depth + 1); // items are named by the key that holds the array
          path.pop();
        }
      } else {
        const keys = Object.keys(value);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i]!;
          path.push(k);
          visit((value as Record<string, unknown>)[k], k, depth + 1);
          path.pop();
        }
      }
    }
  };
  visit(ctx.card, '', 0);
}
