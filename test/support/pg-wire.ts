/**
 * A TCP proxy between cardgate and PostgreSQL that counts what crosses it, read off the wire
 * protocol (so that no code of the server is changed to count):
 *   - round trips: on each connection, every time the client sends after the server has (or
 *     first): what the client waits for, however many messages a burst pipelines;
 *   - statements: the client's Query ('Q') and Execute ('E') messages;
 *   - transactions: ReadyForQuery ('Z') messages that end a cycle with status idle ('I') after at
 *     least one statement since the one before: an autocommit statement, or a block's COMMIT.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface WireCounts {
  roundTrips: number;
  statements: number;
  transactions: number;
}

/** The SSLRequest and GSSENCRequest codes: the server answers them with one untyped byte. */
const ENCRYPTION_REQUESTS = new Set([80877103, 80877104]);

type Kind = 'typed' | 'untyped' | 'byte';

/**
 * Splits a stream of protocol messages and hands each on (its type byte; 0 when untyped). `next`
 * says what the next one is: typed (type byte + int32 length), untyped (int32 length first: the
 * start-up messages) or one bare byte (the answer to an encryption request).
 */
const messageReader = (next: () => Kind, onMessage: (type: number, body: Buffer) => void) => {
  let pending: Buffer = Buffer.alloc(0);
  let kind: Kind | undefined;
  return (chunk: Buffer): void => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length > 0) {
      kind ??= next();
      if (kind === 'byte') {
        pending = pending.subarray(1);
        kind = undefined;
        continue;
      }
      const typed = kind === 'typed';
      const header = typed ? 5 : 4;
      if (pending.length < header) return;
      const total = (typed ? 1 : 0) + pending.readInt32BE(typed ? 1 : 0);
      if (pending.length < total) return;
      onMessage(typed ? pending[0]! : 0, pending.subarray(header, total));
      pending = pending.subarray(total);
      kind = undefined;
    }
  };
};

export interface CountingProxy {
  url: string;
  counts(): WireCounts;
  close(): Promise<void>;
}

/** Starts the proxy on a free local port in front of the database at `databaseUrl`; `url` is the same URL through it. */
export const countingProxy = async (databaseUrl: string): Promise<CountingProxy> => {
  const target = new URL(databaseUrl);
  const totals: WireCounts = { roundTrips: 0, statements: 0, transactions: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let lastFromServer = true;
    let statementsInCycle = 0;
    // The client's first message is the untyped start-up one; an encryption request adds another after the server's bare byte.
    let clientUntyped = 1;
    let serverBareBytes = 0;
    const fromClient = messageReader(
      () => (clientUntyped > 0 ? 'untyped' : 'typed'),
      (type, body) => {
        if (type === 0) {
          clientUntyped -= 1;
          if (body.length >= 4 && ENCRYPTION_REQUESTS.has(body.readInt32BE(0))) {
            clientUntyped += 1;
            serverBareBytes += 1;
          }
        } else if (type === 0x51 /* Q */ || type === 0x45 /* E */) {
          totals.statements++;
          statementsInCycle++;
        }
      },
    );
    const fromServer = messageReader(
      () => (serverBareBytes > 0 ? (serverBareBytes--, 'byte') : 'typed'),
      (type, body) => {
        if (type !== 0x5a /* Z */ || body[0] !== 0x49 /* I */) return;
        if (statementsInCycle > 0) totals.transactions++;
        statementsInCycle = 0;
      },
    );
    client.on('data', (chunk: Buffer) => {
      if (lastFromServer) totals.roundTrips++;
      lastFromServer = false;
      fromClient(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      lastFromServer = true;
      fromServer(chunk);
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.href,
    counts: () => ({ ...totals }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
