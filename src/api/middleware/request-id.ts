import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';

/** A caller-supplied id is kept when it is short and plain, so logs can be joined across services. */
const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id, echoed in the X-Request-Id response header. */
export const requestId = (): MiddlewareHandler<AppEnv> =>
  async function requestId(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && acceptableId.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
