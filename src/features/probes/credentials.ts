/**
 * The headers a caller gives a probe (its credentials, `--header 'Name: value'`, `options.headers`):
 * bounded, and none that would change how the request is framed or who it claims to be. They are
 * used for that run only: sent to the card's https interfaces, never stored, logged or echoed.
 */

export const MAX_HEADERS = 16;
export const MAX_HEADER_VALUE = 4096;

/** Headers the probe sets itself, or that frame the request. */
const reserved = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'user-agent', 'accept', 'origin', 'a2a-version', 'proxy-authorization', 'proxy-connection']);

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** Why a header cannot be given; undefined when it can. */
export const headerProblem = (name: string, value: string): string | undefined => {
  if (!token.test(name)) return `"${name.slice(0, 64)}" is not a header name (letters, digits and !#$%&'*+.^_\`|~-, at most 64)`;
  if (reserved.has(name.toLowerCase())) return `${name} is set by the probe itself and cannot be given`;
  if (value.length > MAX_HEADER_VALUE) return `the value of ${name} is longer than ${MAX_HEADER_VALUE} characters`;
  // Its value is not quoted back: it may be a credential.
  if (/[\r\n\0]/.test(value)) return `the value of ${name} holds a line break or NUL`;
  return undefined;
};

/** The headers, lower-case names, or why they cannot be used. */
export const readHeaders = (entries: ReadonlyArray<readonly [string, string]>): { headers: Record<string, string> } | { problem: string } => {
  if (entries.length > MAX_HEADERS) return { problem: `at most ${MAX_HEADERS} headers` };
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    const problem = headerProblem(name, value);
    if (problem) return { problem };
    headers[name.toLowerCase()] = value.trim();
  }
  return { headers };
};

/** `Name: value` as given on the command line. */
export const splitHeaderLine = (line: string): readonly [string, string] | undefined => {
  const colon = line.indexOf(':');
  return colon <= 0 ? undefined : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
};
