/**
 * Records become JSON text when they are put, never later: a record that cannot be encoded
 * (JSON.stringify throws on a value nested deeper than the stack allows) fails only the call that
 * puts it and changes nothing, and what the store holds can always be written out again from the
 * text it already has.
 */

/** A record the store refused because it cannot be written as JSON. Nothing was changed. */
export class UnstorableRecordError extends Error {
  override name = 'UnstorableRecordError';
}

/** `value` as JSON text; throws UnstorableRecordError, naming `what`, when it has none. */
export const encodeRecord = (what: string, value: unknown): string => {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw new UnstorableRecordError(`${what} cannot be stored: ${(err as Error).message}`);
  }
  if (json === undefined) throw new UnstorableRecordError(`${what} cannot be stored: it is not a JSON value`);
  return json;
};
