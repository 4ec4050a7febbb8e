/**
 * A known path under another method is a 405 with Allow, not a 404. Asked by the not-found handler
 * (the only answer such a request gets), not run as middleware around every request.
 */
import type { RouterRoute } from 'hono/types';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * The methods each path is served under (HEAD with GET; catch-all middleware serves none), `[]`
 * for a path no route serves. Built from the app's routes when first asked, when every route is in.
 */
export const routeMethods = (app: { routes: RouterRoute[] }): ((path: string) => string[]) => {
  let router: TrieRouter<Set<string>> | undefined;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of app.routes) {
      if (route.method === 'ALL' || route.method === 'HEAD') continue;
      const methods = byPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
      byPath.set(route.path, methods);
    }
    const built = new TrieRouter<Set<string>>();
    for (const [path, methods] of byPath) built.add('ALL', path, methods);
    return built;
  };
  return (path) => {
    router ??= build();
    const allowed = new Set<string>();
    for (const [methods] of router.match('ALL', path)[0]) for (const method of methods) allowed.add(method);
    return [...allowed];
  };
};
