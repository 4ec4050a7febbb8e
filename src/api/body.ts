/**
 * Reading a JSON object body with a size limit. Every failure is an ApiError in
 * the documented shape: 413 PAYLOAD_TOO_LARGE, 415 for a non-JSON Content-Type or a charset
 * other than UTF-8 (US-ASCII is UTF-8),
 * 400 for unparsable JSON or a root that is not an object. On /v1/validate the
 * 400 body is `{valid:false, errors:[{path,message}]}`; elsewhere it is the flat
 * `{error, code: "INVALID_REQUEST"}`.
 */
import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { ApiError } from '../errors/api-error.ts';
import { badBody, jsonBody, type JsonBodyOptions } from '../errors/bad-input.ts';
import { utf8Text } from '../lib/read-file.ts';

export interface ReadJsonOptions extends JsonBodyOptions {
  maxBytes: number;
}

const isJsonContentType = (value: string | undefined): boolean => {
  if (!value) return false;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
};

/** The charsets a body may declare: UTF-8, and US-ASCII, which is a part of it. */
const utf8Charsets: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/** The charset a Content-Type declares (lower-cased, unquoted), if any. */
const declaredCharset = (value: string): string | undefined => {
  for (const parameter of value.split(';').slice(1)) {
    const at = parameter.indexOf('=');
    if (at >= 0 && parameter.slice(0, at).trim().toLowerCase() === 'charset') return parameter.slice(at + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
};

const tooLarge = (maxBytes: number) =>
  new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${maxBytes} bytes`);

/**
 * The body of a Node request, copied as each chunk arrives into one buffer of its declared length:
 * a 10 MB body costs one copy spread over its arrival, where the Request's arrayBuffer() joins the
 * chunks and then copies the result again, each step over the whole body at once.
 */
const readIncoming = (incoming: IncomingMessage, length: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const body = Buffer.allocUnsafe(length);
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.copy(body, received);
    };
    const onEnd = () => settle(() => resolve(body.subarray(0, received)));
    const onError = (err: Error) => settle(() => reject(err));
    const onClose = () => settle(() => reject(new Error('the client closed the connection before the body was complete')));
    const settle = (then: () => void) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      then();
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });

/**
 * Reads the raw body within `maxBytes`. With a Content-Length, the HTTP parser frames the body
 * to exactly that length, so checking the header suffices; served by Node (the adapter hands the
 * app its IncomingMessage) the body is read from it (see readIncoming), else through the
 * adapter's whole-body fast path (a web-stream reader costs ~3x the throughput of this endpoint).
 * Without one (chunked), the stream is read and cut off as soon as it passes the limit.
 */
const readLimited = async (c: Context, maxBytes: number): Promise<Buffer> => {
  const request = c.req.raw;
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
    const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
    // Read from the Node request only while nothing else has started reading it (else its end may have passed).
    return incoming instanceof IncomingMessage && !incoming.readableDidRead ? readIncoming(incoming, Number(declared)) : Buffer.from(await request.arrayBuffer());
  }
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
};

const yamlTypes: ReadonlySet<string> = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);
const isYamlContentType = (value: string | undefined): boolean => value !== undefined && yamlTypes.has(value.split(';')[0]!.trim().toLowerCase());

/**
 * The body's text: a JSON Content-Type (`yaml`: or a YAML one), within the size limit, not empty,
 * valid UTF-8.
 */
export const readBodyText = async (c: Context, options: Pick<ReadJsonOptions, 'maxBytes' | 'validationShape'> & { yaml?: boolean }): Promise<string> => {
  const unsupported = (message: string) => new ApiError('UNSUPPORTED_MEDIA_TYPE', message, options.validationShape ? { validationBody: [{ path: 'body', message }] } : {});
  const contentType = c.req.header('content-type');
  if (!isJsonContentType(contentType) && !(options.yaml && isYamlContentType(contentType))) {
    throw unsupported(options.yaml ? 'Content-Type must be application/json or application/yaml' : 'Content-Type must be application/json');
  }
  const charset = declaredCharset(contentType!);
  // Read as UTF-8 whatever it said, a UTF-16 body was refused as invalid UTF-8 or, worse, misread.
  if (charset !== undefined && !utf8Charsets.has(charset)) throw unsupported(`charset ${JSON.stringify(charset)} is not supported: send the body as UTF-8 (charset=utf-8, or no charset)`);
  const bytes = await readLimited(c, options.maxBytes);
  if (bytes.byteLength === 0) throw badBody(`request body is empty; expected ${options.yaml ? 'a ruleset (JSON or YAML)' : 'a JSON object'}`, options.validationShape);
  const text = utf8Text(bytes);
  if (text === undefined) throw badBody(`request body is not valid ${options.yaml ? 'JSON or YAML' : 'JSON'}: body is not valid UTF-8`, options.validationShape);
  return text;
};

export const readJsonObject = async (c: Context, options: ReadJsonOptions): Promise<Record<string, unknown>> =>
  jsonBody(await readBodyText(c, options), options);

/**
 * A JSON object body that may be left out ({} then). An HTTP/1.1 request with neither
 * Content-Length nor Transfer-Encoding has none (curl -X POST sends such), though the request
 * object still offers a stream.
 */
const readOptionalJsonObject = async (c: Context, options: ReadJsonOptions): Promise<Record<string, unknown>> => {
  const length = c.req.header('content-length');
  const none = c.req.raw.body === null || length === '0' || (length === undefined && c.req.header('transfer-encoding') === undefined);
  return none ? {} : readJsonObject(c, options);
};

/**
 * An admin write's body: a JSON object within the service's body size and nesting limits
 * (`http.maxBodyBytes`, `http.maxJsonDepth`), left out where `optional` (then {}). Every admin
 * route reads its body here and its use case parses it (parseInput), so a bad body is the same
 * 400 on every one: `{error, code: "INVALID_REQUEST"}`, the error naming each bad field by its path.
 */
export const adminBody = (c: Context, http: { maxBodyBytes: number; maxJsonDepth: number }, options: { optional?: boolean } = {}): Promise<Record<string, unknown>> =>
  (options.optional ? readOptionalJsonObject : readJsonObject)(c, { maxBytes: http.maxBodyBytes, maxDepth: http.maxJsonDepth });
