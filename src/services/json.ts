/** JSON request bodies: the object check and the parse every endpoint shares (400 messages included). */

export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a request body's text as a JSON object; the problem is what the 400 says. */
export const parseJsonObject = (
  text: string,
): { value: Record<string, unknown> } | { problem: string; kind: 'syntax' | 'not-an-object' } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `request body is not valid JSON: ${(e as Error).message}`, kind: 'syntax' };
  }
  return isJsonObject(value) ? { value } : { problem: 'request body must be a JSON object', kind: 'not-an-object' };
};
