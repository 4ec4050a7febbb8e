/**
 * Likely credentials anywhere in the card (0.x §5.4, 1.0 §14.3). Walks every string with a depth and
 * node budget, so deep or huge input cannot overflow the stack or run unbounded.
 */
import { fieldName, formatPath, type PathSegment } from '../paths.ts';
import type { RuleContext } from './context.ts';

const MAX_DEPTH = 32;
const MAX_NODES = 10_000;

/** Last words of a field name that name a credential ("apiToken", "client_secret", "AGENT_PRIVATE_KEY"). */
const credentialWords = new Set(['key', 'apikey', 'token', 'secret', 'password', 'passwd', 'pwd', 'passphrase', 'credential', 'credentials']);
/** Names that are a credential whatever their value looks like: by their last word, or their last two. */
const credentialLastWords = new Set(['apikey', 'secret', 'password', 'passwd', 'pwd', 'passphrase', 'credential', 'credentials']);
const credentialPairs = new Set([
  'api key', 'api token', 'access key', 'access token', 'auth token', 'refresh token', 'bearer token', 'id token',
  'session token', 'private key', 'secret key', 'client secret',
]);
/** Keys that are not secret: "publicKey", "idempotencyKey", "sortKey"... */
const publicKeyKinds = new Set(['public', 'idempotency', 'primary', 'foreign', 'sort', 'partition', 'cache']);

/** Longer keys are no field name of a credential (and splitting one into words costs its length, per string). */
const MAX_NAME = 64;
/** A cheap first test on the name: most are cleared without being split into words. */
const credentialHint = /key|token|secret|passw|pwd|passphrase|credential/i;

/** The words of a field name, lower case: camelCase, snake_case, kebab-case split ("X-Api-Key" → x, api, key). */
const wordsOf = (name: string): string[] =>
  name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '');

/**
 * What a field name says about its value: `credential` (apiToken, password, client_secret, token),
 * `mentions` (a key or token of some kind, "playerKey", "sessionKey": a credential only when its value
 * looks random) or nothing. The credential word must be the name's last word: "tokenType",
 * "keyFormat" or "secretsHandling" describe a credential, they do not hold one.
 */
function credentialNaming(name: string): 'credential' | 'mentions' | undefined {
  if (name.length > MAX_NAME || !credentialHint.test(name)) return undefined;
  const words = wordsOf(name);
  const last = words[words.length - 1];
  if (last === undefined || !credentialWords.has(last)) return undefined;
  const before = words[words.length - 2];
  if (last === 'key' && before !== undefined && publicKeyKinds.has(before)) return undefined;
  if (credentialLastWords.has(last) || credentialPairs.has(`${before} ${last}`) || (last === 'token' && words.length === 1)) return 'credential';
  return 'mentions';
}

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
/**
 * Values in a credential-named field that are clearly not a credential: prose (any whitespace), a
 * placeholder, a word that documents the field, a URL or path (where to get one), a public address.
 */
const notACredential = new RegExp([
  String.raw`^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|\$[A-Z_]+|%[A-Z_]+%|x+|\*+)$`,
  String.raw`^(?:none|null|true|false|header|query|cookie|bearer|basic|optional|required|string|redacted)$`,
  String.raw`xxxx|\*\*\*|\.\.\.|…|^your[-_]|replace[-_]?me|changeme|placeholder`,
  String.raw`://|^/`,
  String.raw`^0x[0-9a-f]{40}$`,
  String.raw`\s`,
].join('|'), 'i');
/** A value with a letter and a digit: how generated keys and tokens look, unlike names and words (two linear tests). */
const randomLooking = (value: string): boolean => /[A-Za-z]/.test(value) && /\d/.test(value);

const mask = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;

function looksLikeSecret(value: string, key: string): boolean {
  if (value.length >= 16 && secretMarker.test(value) && secretValue.test(value)) return true;
  if (value.length < 8) return false;
  const naming = credentialNaming(key);
  if (naming === undefined || notACredential.test(value)) return false;
  return naming === 'credential' || randomLooking(value);
}

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
