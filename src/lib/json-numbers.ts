/**
 * Numbers JSON text may write but a JavaScript number cannot hold: `1e400` parses to Infinity,
 * which no JSON text can write back (JSON.stringify makes it null, JCS refuses it). A card holding
 * one cannot be signed or stored as sent, so it is named with its place.
 */
import { visit } from 'jsonc-parser';
import { LineIndex, type TextPosition } from './text-position.ts';

/** Only a literal with an exponent of 3+ digits, or 300+ digits in a row, can pass ±1.8e308 (a run is tried from its first digit only: linear time). */
const mayOverflow = /[eE][+-]?\d{3}|(?<!\d)\d{300}/;

/** The first number literal of `text` (JSON) beyond the range of a double, with its place; undefined when none. */
export const outOfRangeNumber = (text: string): (TextPosition & { literal: string }) | undefined => {
  if (!mayOverflow.test(text)) return undefined;
  let found: { offset: number; length: number } | undefined;
  visit(text, {
    onLiteralValue: (value, offset, length) => {
      if (found === undefined && typeof value === 'number' && !Number.isFinite(value)) found = { offset, length };
    },
  });
  if (found === undefined) return undefined;
  const literal = text.slice(found.offset, found.offset + Math.min(found.length, 40));
  return { literal: found.length > 40 ? `${literal}…` : literal, ...new LineIndex(text).position(found.offset) };
};

/** How messages name it: `the number 1e400 is beyond what a JSON number can hold (±1.8e308)`, with `at line 3, column 9` when asked. */
export const describeOutOfRange = (n: TextPosition & { literal: string }, { withPlace = true } = {}): string =>
  `the number ${n.literal}${withPlace ? ` at line ${n.line}, column ${n.column}` : ''} is beyond what a JSON number can hold (±1.8e308)`;
