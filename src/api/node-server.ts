/**
 * The Node HTTP server around the app. What Node or the adapter refuses before the app sees a
 * request (the HTTP parser's errors, a bad Host, an unknown expectation, CONNECT) is answered in
 * the documented JSON error shape too, never as Node's bare text.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { ApiError } from '../errors/api-error.ts';

type FetchCallback = Parameters<typeof getRequestListener>[0];

/** What a parser error means for the caller; `reason` is llhttp's fixed text, never request bytes. */
const parserError = (err: NodeJS.ErrnoException & { reason?: string }): ApiError => {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('REQUEST_HEADER_FIELDS_TOO_LARGE', 'the request line and headers are larger than the server accepts');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('PAYLOAD_TOO_LARGE', 'the chunk extensions are larger than the server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'the request was not received in time');
    default: {
      return new ApiError('INVALID_REQUEST', err.reason ? `malformed HTTP request: ${err.reason}` : 'malformed HTTP request');
    }
  }
};

/** The response a socket is busy with (Node's own bookkeeping; not in its types). */
type ServerSocket = Duplex & { _httpMessage?: ServerResponse | null };

/**
 * Writes `error` as a complete HTTP/1.1 response, unless the socket cannot take one or a response
 * on it has already started (bytes of ours would corrupt it); then closes the connection.
 */
const answerOnSocket = (socket: ServerSocket, error: ApiError): void => {
  if (socket.writable && !socket._httpMessage?.headersSent) {
    const body = JSON.stringify(error.body());
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
};

/**
 * The adapter's refusal of a request it cannot turn into a URL (missing or bad Host, `*`, a
 * backslash...); anything else reaching here escaped the app's own error handler.
 */
const adapterError = (err: unknown): Response => {
  const error =
    err instanceof RequestError
      ? new ApiError('INVALID_REQUEST', `malformed HTTP request: ${err.message}`)
      : new ApiError('INTERNAL_ERROR', 'internal server error');
  return Response.json(error.body(), { status: error.status });
};

/** Installs the answers on a server (exported for tests that need Node's timers shortened). */
export const answerProtocolErrors = (server: Server): void => {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerOnSocket(socket, parserError(err)));
  // No proxying here: CONNECT gets a refusal instead of a silently closed connection.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
    answerOnSocket(socket, new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not supported')),
  );
  // An expectation other than 100-continue may be ignored: the request is answered as usual instead of a bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
};

export const createNodeServer = (fetch: FetchCallback): Server => {
  // Without Node's own Host check, a missing Host reaches the adapter, which refuses it through adapterError.
  const server = createServer({ requireHostHeader: false }, getRequestListener(fetch, { errorHandler: adapterError }));
  answerProtocolErrors(server);
  return server;
};
