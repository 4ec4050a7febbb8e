/**
 * The canonical forms the A2A SDKs sign and verify, which differ from the specification's (§8.4.1:
 * RFC 8785 over the card without `signatures`, protocol buffer defaults removed but REQUIRED and
 * `optional` fields kept, other fields as sent). Each SDK reads the card through its protobuf codec
 * (fields outside the 1.0 proto dropped, defaults omitted), then drops every empty value ("", null,
 * [], {}) whatever the field, REQUIRED ones included, then writes JSON with sorted keys:
 *
 * - @a2a-js/sdk 1.0.1 to 1.3.0 (`canonicalizeAgentCard`): ts-proto's `AgentCard.fromJSON` and
 *   `toJSON` (values coerced: a number where a string belongs becomes its text), `cleanEmpty`, and
 *   its own JCS writer (the same bytes as RFC 8785 for a card's values);
 * - a2a-python (a2a-sdk) 1.0.0 to 1.1.0 (`_canonicalize_agent_card`): `ParseDict(...,
 *   ignore_unknown_fields=True)` (strict: a value of another type, or two members of a oneof,
 *   cannot be read, so no signature of such a card verifies for it), `MessageToDict` (a Struct's
 *   numbers are doubles: 1 is written 1.0), `_clean_empty`, and `json.dumps(sort_keys=True,
 *   separators=(',', ':'))`, which is not RFC 8785: non-ASCII characters are written as \u escapes
 *   and keys are sorted by code point.
 *
 * Each is written here from the SDK's published source (test/engine/fixtures/signatures/ names the
 * releases and commits); the tests check it against the real @a2a-js/sdk and against vectors made
 * by following a2a-python's source.
 */
import { fieldOf, protoMessages, protoName, type ProtoField } from './proto-card.ts';

export interface SdkVariant {
  /** Its id in a result's signatures entry (`variant`). */
  id: 'a2a-js-1' | 'a2a-python-1';
  /** The SDK and the releases that canonicalize so. */
  sdk: string;
  /** How it differs from §8.4.1, ending a sentence "which differs from §8.4.1 in ...". */
  differs: string;
  /** The payload it signs for `card` (without its signatures), or undefined when it cannot read the card. */
  canonicalize: (card: Record<string, unknown>) => string | undefined;
}

/** A value the codec cannot read: the SDK fails on the card (and so verifies none of its signatures). */
class Unreadable extends Error {}

/** A Struct number as a2a-python holds it (a double), to be written as Python writes a float. */
class PyFloat {
  constructor(readonly value: number) {}
}

type Mode = 'coerce' | 'strict';

const isSet = (v: unknown): boolean => v !== null && v !== undefined;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** What the JS codec takes a field's value from: a list where it wants one, an object for a map or Struct, anything set otherwise. */
const readable = (field: ProtoField): ((v: unknown) => boolean) => {
  const { kind } = field;
  if (kind.type === 'strings' || (kind.type === 'message' && kind.holds === 'list')) return Array.isArray;
  if (kind.type === 'struct' || kind.type === 'scopes' || (kind.type === 'message' && kind.holds === 'map')) return isObject;
  return isSet;
};

/** A field's value in the card: its JSON name's, else its proto name's (both given: the strict codec refuses the card). */
const valueOf = (obj: Record<string, unknown>, name: string, field: ProtoField, mode: Mode): unknown => {
  const snake = protoName(name);
  const camel = Object.hasOwn(obj, name) ? obj[name] : undefined;
  const other = snake !== name && Object.hasOwn(obj, snake) ? obj[snake] : undefined;
  if (mode === 'strict' && camel !== undefined && other !== undefined) throw new Unreadable();
  return readable(field)(camel) || other === undefined ? camel : other;
};

const scalar = (v: unknown, type: 'string' | 'bool', mode: Mode): unknown => {
  if (mode === 'strict' && typeof v !== (type === 'string' ? 'string' : 'boolean')) throw new Unreadable();
  return type === 'string' ? String(v) : Boolean(v);
};

/** A Struct value as the SDK holds it: kept as it is (JS), or numbers as doubles (Python). */
const structValue = (v: unknown, mode: Mode): unknown => {
  if (mode === 'coerce') return v;
  if (typeof v === 'number') return new PyFloat(v);
  if (Array.isArray(v)) return v.map((item) => structValue(item, mode));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, structValue(item, mode)]));
  return v;
};

const messageValue = (v: unknown, message: string, mode: Mode): Record<string, unknown> => {
  // JS reads members off anything but null (TypeError there); Python wants an object.
  if (!isSet(v) || (mode === 'strict' && (!isObject(v) || Array.isArray(v)))) throw new Unreadable();
  return project(isObject(v) ? v : {}, message, mode);
};

/** One field as the codec reads it and writes it back: undefined when it writes nothing. */
const projectField = (v: unknown, field: ProtoField, mode: Mode): unknown => {
  const { kind, presence } = field;
  const kept = presence === 'O';
  if (!isSet(v)) return undefined;
  switch (kind.type) {
    case 'string':
    case 'bool': {
      const value = scalar(v, kind.type, mode);
      return kept || (value !== '' && value !== false) ? value : undefined;
    }
    case 'strings': {
      if (!Array.isArray(v)) return strictly(mode);
      const items = v.map((item) => scalar(item, 'string', mode));
      return items.length > 0 ? items : undefined;
    }
    case 'struct':
      if (!isObject(v) || (mode === 'strict' && Array.isArray(v))) return strictly(mode);
      return structValue(v, mode);
    case 'scopes': {
      if (!isObject(v) || (mode === 'strict' && Array.isArray(v))) return strictly(mode);
      const entries = Object.entries(v).map(([k, s]) => [k, scalar(s, 'string', mode)]);
      return entries.length > 0 ? Object.fromEntries(entries) : undefined;
    }
    case 'message': {
      const { message, holds } = kind;
      if (holds === 'one') return messageValue(v, message, mode);
      if (holds === 'list') {
        if (!Array.isArray(v)) return strictly(mode);
        return v.length > 0 ? v.map((item) => messageValue(item, message, mode)) : undefined;
      }
      if (!isObject(v) || (mode === 'strict' && Array.isArray(v))) return strictly(mode);
      const entries = Object.entries(v).map(([k, item]) => [k, messageValue(item, message, mode)]);
      return entries.length > 0 ? Object.fromEntries(entries) : undefined;
    }
  }
};

/** A value of the wrong shape: JS reads it as the field's default, Python cannot read it. */
const strictly = (mode: Mode): undefined => {
  if (mode === 'strict') throw new Unreadable();
  return undefined;
};

/** A message read by the codec and written back: its proto fields only, defaults omitted; a oneof keeps its first member set. */
function project(obj: Record<string, unknown>, message: string, mode: Mode): Record<string, unknown> {
  const out: Array<[string, unknown]> = [];
  let oneofSet = false;
  for (const name of Object.keys(protoMessages[message]!)) {
    const field = fieldOf(message, name)!;
    const raw = valueOf(obj, name, field, mode);
    if (field.oneof && isSet(raw)) {
      if (oneofSet && mode === 'strict') throw new Unreadable();
      if (oneofSet) continue;
      oneofSet = true;
    }
    const value = projectField(raw, field, mode);
    if (value !== undefined) out.push([name, value]);
  }
  return Object.fromEntries(out);
}

/** Every empty value removed, depth first: "", null, and lists and objects left empty (false and 0 stay). */
const cleanEmpty = (v: unknown): unknown => {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const items = v.map(cleanEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isObject(v) && !(v instanceof PyFloat)) {
    const entries = Object.entries(v).flatMap(([k, item]) => {
      const cleaned = cleanEmpty(item);
      return cleaned === undefined ? [] : [[k, cleaned] as const];
    });
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return v;
};

/** JSON with keys sorted by UTF-16 code units and values as JSON.stringify writes them (@a2a-js/sdk's jcsStringify; RFC 8785's bytes for a card). */
const jsJson = (v: unknown): string => {
  if (!isObject(v)) return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(jsJson).join(',')}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${jsJson(v[k])}`).join(',')}}`;
};

const pyEscapes: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A string as Python's json.dumps writes it with ensure_ascii: only printable ASCII as it is. */
const pyString = (s: string): string => {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    out += pyEscapes[c] ?? (code < 0x20 || code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : c);
  }
  return `${out}"`;
};

/** A double as Python's repr writes it: shortest digits, fixed notation from 1e-4 up to 1e16, `.0` on a whole number. */
export const pyFloat = (n: number): string => {
  if (!Number.isFinite(n)) throw new Unreadable(); // MessageToDict refuses them
  if (Object.is(n, -0)) return '-0.0';
  const [mantissa, exp] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exp);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${shown}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
};

/** Code point order, as Python sorts str keys (UTF-16 order differs past U+FFFF). */
const byCodePoint = (a: string, b: string): number => {
  const [x, y] = [Array.from(a), Array.from(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

/** json.dumps(v, separators=(',', ':'), sort_keys=True). */
const pyJson = (v: unknown): string => {
  if (v instanceof PyFloat) return pyFloat(v.value);
  if (typeof v === 'string') return pyString(v);
  if (!isObject(v)) return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(pyJson).join(',')}]`;
  return `{${Object.keys(v).sort(byCodePoint).map((k) => `${pyString(k)}:${pyJson(v[k])}`).join(',')}}`;
};

/** The card as an SDK signs it: projected through its codec without `signatures`, emptied values removed, written by `write`. */
const canonicalizeBy = (mode: Mode, write: (v: unknown) => string) => (card: Record<string, unknown>): string | undefined => {
  try {
    const { signatures: _excluded, ...projected } = project(card, 'AgentCard', mode);
    return write(cleanEmpty(projected) ?? (mode === 'coerce' ? {} : null));
  } catch (e) {
    if (e instanceof Unreadable || e instanceof RangeError) return undefined; // RangeError: nested past the stack
    throw e;
  }
};

/** How every SDK's form differs from §8.4.1 (a2a-python's also in how it writes JSON). */
export const sharedDifference = 'dropping the fields outside the 1.0 proto and every empty value ("", null, [], {}), REQUIRED fields included (the specification keeps REQUIRED and `optional` fields as sent)';

export const sdkVariants: readonly SdkVariant[] = [
  { id: 'a2a-js-1', sdk: '@a2a-js/sdk 1.0.1 to 1.3.0', differs: sharedDifference, canonicalize: canonicalizeBy('coerce', jsJson) },
  {
    id: 'a2a-python-1',
    sdk: 'a2a-python (a2a-sdk) 1.0.0 to 1.1.0',
    differs: `${sharedDifference}, and in writing JSON with Python's json.dumps instead of RFC 8785 (non-ASCII characters as \\u escapes, keys sorted by code point, a parameter's whole number as 1.0)`,
    canonicalize: canonicalizeBy('strict', pyJson),
  },
];

/** The card's top-level fields outside the 1.0 proto, which an SDK's signature does not cover (`signatures` aside). */
export const unsignedFields = (card: Record<string, unknown>): string[] =>
  Object.keys(card).filter((k) => k !== 'signatures' && fieldOf('AgentCard', k) === undefined && fieldOf('AgentCard', k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())) === undefined);
