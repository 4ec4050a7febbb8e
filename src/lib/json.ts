/** JSON text: the object check, the depth check and the parse every request body passes (what the 400 says included). */
import * as z from 'zod';
import { describeSyntaxProblem, jsonSyntaxProblem } from './text-position.ts';

export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A member of a request body that must be a JSON object, any object: the schema keeps it as it is
 * (no copy: the engine reads it, the store keeps it) and the API description shows it as an object.
 * Its failure does not stop the checks of the members around it (`abort: false`), so a check across
 * members (a batch's duplicate ids) still sees the rest.
 */
export const jsonObjectSchema = <T extends Record<string, unknown> = Record<string, unknown>>(message: string, description: string) =>
  z.custom<T>(isJsonObject, { error: message, abort: false }).meta({ type: 'object', description });

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** From inside a string at `i`: the offset of its closing quote (the text's length if none), stepping over each escaped character. */
const stepToQuote = (text: string, i: number): number => {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return text.length;
};

/**
 * The offset of the quote that closes the JSON string whose opening quote is at `open` (the text's
 * length if none does). indexOf jumps to the next quote, crossing a card's strings about three
 * times faster than a loop over their characters; that quote closes the string unless an odd run
 * of backslashes precedes it, and then the rest of the string is stepped through (searching on
 * from each escaped quote cost ~5x the stepping on a body of escaped quotes; this way no text
 * costs more than about twice).
 */
export const closingQuote = (text: string, open: number): number => {
  const quote = text.indexOf('"', open + 1);
  if (quote === -1) return text.length;
  let before = quote - 1;
  while (text.charCodeAt(before) === BACKSLASH) before--; // stops at the opening quote at the latest
  return (quote - before) % 2 === 1 ? quote : stepToQuote(text, quote + 1);
};

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep, found by counting the
 * brackets outside strings in one pass: no parse, no recursion, so any text up to the body limit
 * is judged in linear time. Everything that later walks a body recursively (the engine, the
 * store's serializer and cloner, the report page) is safe within this depth.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = closingQuote(text, i);
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
};

/**
 * The offset just past the array or object that opens at `open`, in text JSON.parse accepted: the
 * brackets outside strings counted in one pass, without tokenizing what is between them.
 */
export const endOfContainer = (text: string, open: number): number => {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = closingQuote(text, i);
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) depth++;
    else if ((c === 0x5d /* ] */ || c === 0x7d /* } */) && --depth === 0) return i + 1;
  }
  return text.length;
};

export type JsonObjectProblem = { problem: string; kind: 'syntax' | 'too-deep' | 'not-an-object' };

/**
 * Parses a request body's text (or another text, named by `subject`) as a JSON object nested at
 * most `maxDepth` levels deep; the problem is what the 400 says. The one gate every body passes
 * before anything reads it.
 */
export const parseJsonObject = (text: string, maxDepth: number, subject = 'request body'): { value: Record<string, unknown> } | JsonObjectProblem => {
  if (nestsDeeperThan(text, maxDepth)) {
    return { problem: `${subject} nests arrays and objects more than ${maxDepth} levels deep`, kind: 'too-deep' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `${subject} is not valid JSON: ${describeSyntaxProblem(jsonSyntaxProblem(text, e as SyntaxError))}`, kind: 'syntax' };
  }
  return isJsonObject(value) ? { value } : { problem: `${subject} must be a JSON object`, kind: 'not-an-object' };
};
