/** The client IP of a request: the socket address, or X-Forwarded-For when the socket is a trusted proxy. */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Config } from '../config.ts';
import { ipMatcher, resolveClientIp } from '../lib/ip.ts';

/**
 * The peer address from @hono/node-server's bindings. `app.request()` has no socket
 * unless the test passes `{ incoming: { socket: { remoteAddress } } }` as its env.
 */
const socketAddress = (c: Context): string | undefined => {
  const env = c.env as { server?: { incoming?: unknown }; incoming?: unknown } | undefined;
  if (!env?.server?.incoming && !env?.incoming) return undefined;
  return getConnInfo(c).remote.address;
};

/** Builds the resolver once per app (the config schema has already checked the trusted-proxy entries). */
export const clientIpResolver = (config: Config): ((c: Context) => string) => {
  const isTrusted = ipMatcher(config.limits.trustedProxies);
  return (c) => resolveClientIp(socketAddress(c), c.req.header('x-forwarded-for'), isTrusted);
};
