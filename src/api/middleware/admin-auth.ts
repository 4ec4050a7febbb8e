/** `Authorization: Bearer <admin token>` on the admin API; anything else is 401 (nested). */
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../deps.ts';
import { ApiError } from '../../errors/api-error.ts';
import { isAdminToken } from '../../features/accounts/admin-token.ts';
import { adminTokenActor } from '../../features/audit/audit.ts';
import { clientIpResolver } from '../client-ip.ts';
import type { AppEnv } from '../env.ts';

/** Sets the request's audit context (`c.get('audit')`): the admin token's actor and the client IP. */
export const adminAuth = (deps: AppDeps): MiddlewareHandler<AppEnv> => {
  const clientIp = clientIpResolver(deps.config);
  return async (c, next) => {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(c.req.header('authorization')?.trim() ?? '');
    if (!m || !(await isAdminToken(deps.store, deps.config, m[1]!))) {
      const problem = deps.config.auth.adminToken ? 'missing or invalid admin token: send "Authorization: Bearer <admin token>"' : 'the admin token is switched off (auth.adminToken: false): sign in';
      throw new ApiError('UNAUTHORIZED', problem, {
        headers: { 'WWW-Authenticate': 'Bearer realm="cardgate admin"' },
      });
    }
    c.set('audit', { actor: adminTokenActor, ip: clientIp(c) });
    return next();
  };
};
