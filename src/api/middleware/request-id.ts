import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { requestId as honoRequestId } from 'hono/request-id';

/** What the service always kept of a caller's id besides what Hono keeps (word characters, `-`, `=`): `.` and `:`. */
const plainId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (`c.var.requestId`), echoed in the X-Request-Id response header. A
 * caller's own id is kept when it is short and plain, so logs can be joined across services.
 */
export const requestId = () =>
  honoRequestId({
    limitLength: 128,
    generator: (c: Context) => {
      const incoming = c.req.header('x-request-id');
      return incoming && plainId.test(incoming) ? incoming : randomUUID();
    },
  });
