/** A real HTTP callback receiver on loopback (port 0) that records what it gets. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export const startReceiver = async (respond: (res: ServerResponse, req: Received) => void = (res) => res.end('ok')) => {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() };
      received.push(entry);
      for (const wake of waiters.splice(0)) wake();
      respond(res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once `n` requests arrived. */
    waitFor: async (n: number) => {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
