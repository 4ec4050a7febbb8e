/**
 * The before/after summary of an audit record: what changed, never a secret, always small. Fields
 * named like secrets are left out whatever the caller passed, strings and lists are cut, nesting is
 * cut, and a summary still over its size is replaced by a note saying so: an entry stays a few KB
 * whatever the input (a 1 MB account name is kept as its first characters and its length).
 */

/** Fields never recorded: key secrets and their hashes, tokens, client and webhook secrets, passwords. */
const SECRET_FIELD = /secret|token|password|passphrase|^key$|^hash$|private|credential|^d$|^p$|^q$|^dp$|^dq$|^qi$/i;

const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 3;
/** The longest summary kept, as JSON text. */
export const MAX_SUMMARY_CHARS = 4096;

const cutString = (text: string): string => (text.length <= MAX_STRING ? text : `${text.slice(0, MAX_STRING)}… (${text.length} characters)`);

const bounded = (value: unknown, depth: number): unknown => {
  if (typeof value === 'string') return cutString(value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return typeof value === 'object' ? '…' : String(value);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => bounded(item, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `… (${value.length} items)`] : items;
  }
  const out: Record<string, unknown> = {};
  let fields = 0;
  for (const [name, field] of Object.entries(value)) {
    if (SECRET_FIELD.test(name) || field === undefined) continue;
    if (++fields > MAX_ITEMS) {
      out['…'] = 'more fields left out';
      break;
    }
    out[cutString(name)] = bounded(field, depth + 1);
  }
  return out;
};

/** `value` as an audit summary: secrets left out, bounded (see above); null stays null. */
export const auditSummary = (value: object | null | undefined): Record<string, unknown> | null => {
  if (value === null || value === undefined) return null;
  const summary = bounded(value, 0) as Record<string, unknown>;
  const chars = JSON.stringify(summary).length;
  return chars <= MAX_SUMMARY_CHARS ? summary : { summary_left_out: `${chars} characters, over ${MAX_SUMMARY_CHARS}` };
};
