/**
 * The 1.0 canonicalization's first step: an AgentCard's JSON with the fields that hold their protocol
 * buffer default ("", false, 0, an empty list or map) removed, unless the field is REQUIRED or declared
 * `optional` (explicit presence: kept as sent). Singular message fields have presence too, so they stay
 * and only their own fields are pruned. Fields the proto does not define are kept untouched. The
 * fields and their presence: proto-card.ts.
 */
import { isRecord } from '../versions.ts';
import { fieldOf, type ProtoField } from './proto-card.ts';

/** The proto3 default of a field as JSON: "", false, 0, an empty list or map; null is how JSON writes an unset field. */
const isDefault = (v: unknown): boolean =>
  v === null || v === '' || v === false || v === 0 ||
  (Array.isArray(v) ? v.length === 0 : isRecord(v) && Object.keys(v).length === 0);

/** A field's value with the defaults of the messages it holds removed. */
function pruneField(value: unknown, field: ProtoField): unknown {
  const { kind } = field;
  if (kind.type !== 'message') return value;
  const { message, holds } = kind;
  if (holds === 'list') return Array.isArray(value) ? value.map((v) => pruneMessage(v, message)) : value;
  if (holds === 'map') return isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pruneMessage(v, message)])) : value;
  return pruneMessage(value, message);
}

function pruneMessage(value: unknown, message: string): unknown {
  if (!isRecord(value)) return value;
  // Built with fromEntries, not `out[key] = v`: assigning a `__proto__` member would set the prototype and
  // drop the member from the payload, so a member of that name could be added to a signed card unnoticed.
  return Object.fromEntries(Object.entries(value).flatMap(([key, v]) => {
    const field = fieldOf(message, key);
    if (field === undefined) return [[key, v]]; // not in the proto: kept as sent
    return field.presence !== '-' || !isDefault(v) ? [[key, pruneField(v, field)]] : [];
  }));
}

/** The card with its 1.0 default-valued fields removed (a new object; the card is not changed). */
export const withoutProtoDefaults = (card: Record<string, unknown>): Record<string, unknown> =>
  pruneMessage(card, 'AgentCard') as Record<string, unknown>;
