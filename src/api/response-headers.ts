import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/**
 * Sets a header every response of a kind carries (request id, rate-limit window) without turning
 * the response's headers into a `Headers` object. Under the Node server it goes straight onto
 * Node's response, which merges it with the route's own headers when they are written: the
 * adapter then keeps its fast path (the route's body and plain headers written as they are),
 * where `Headers` costs a validated copy of every header and another to write them out (measured:
 * about a fifth of a /healthz request's CPU time). Elsewhere (app.request in tests, other
 * runtimes) it goes on the response as usual.
 */
export const setResponseHeader = (c: Context, name: string, value: string): void => {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) outgoing.setHeader(name, value);
  // Once the response is made, on itself: c.header() would copy it for each header.
  else if (c.finalized) c.res.headers.set(name, value);
  else c.header(name, value);
};
