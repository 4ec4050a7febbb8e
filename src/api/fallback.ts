/**
 * 404 vs 405: a path that exists under another method is METHOD_NOT_ALLOWED
 * (with an Allow header), anything else NOT_FOUND. Both in the nested shape
 * `{error: {code, message}}`.
 */
import type { Hono } from 'hono';
import { ApiError } from '../lib/errors.ts';

const patternToRegExp = (path: string): RegExp => {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
};

export const methodNotAllowedOrNotFound = (app: Hono<any>) => {
  let table: Array<{ re: RegExp; method: string }> | undefined;
  return (path: string, method: string): ApiError => {
    table ??= app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'))
      .map((r) => ({ re: patternToRegExp(r.path), method: r.method }));
    const allowed = [...new Set(table.filter((r) => r.re.test(path)).map((r) => r.method))];
    if (allowed.length > 0 && !allowed.includes(method)) {
      return new ApiError('METHOD_NOT_ALLOWED', `method ${method} is not allowed on ${path}`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    return new ApiError('NOT_FOUND', `no resource at ${path}`);
  };
};
