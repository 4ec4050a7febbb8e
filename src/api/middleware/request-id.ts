import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { setResponseHeader } from '../response-headers.ts';

/** A caller's id the service keeps: short and plain (word characters, `-`, `=`, `.`, `:`). */
const plainId = /^[\w.:=-]{1,128}$/;

/**
 * Gives every request an id (`c.var.requestId`), echoed in the X-Request-Id response header. A
 * caller's own id is kept when it is short and plain, so logs can be joined across services.
 */
export const requestId = (): MiddlewareHandler<AppEnv> =>
  async function requestId(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && plainId.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    setResponseHeader(c, 'X-Request-Id', id);
    await next();
  };
