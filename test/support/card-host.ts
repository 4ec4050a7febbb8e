/** A web server on 127.0.0.1 (port 0) that serves agent cards by path, for the fetch-by-URL tests. */
import type { ServerResponse } from 'node:http';
import { startReceiver } from './receiver.ts';

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (time-limit tests). */
  silent?: boolean;
}

/** Serves `routes` (path → answer; anything else 404) and records the paths asked for. */
export const startCardHost = async (routes: Record<string, Served | ((base: string) => Served)>) => {
  let base = '';
  const host = await startReceiver((res: ServerResponse, req) => {
    const route = routes[req.url];
    const served = typeof route === 'function' ? route(base) : route;
    if (served?.silent) return;
    res.writeHead(served?.status ?? (served ? 200 : 404), served?.headers ?? { 'content-type': 'application/json' });
    res.end(served?.body ?? (served ? '' : 'not found'));
  });
  base = host.url;
  return { ...host, paths: () => host.received.map((r) => r.url) };
};
