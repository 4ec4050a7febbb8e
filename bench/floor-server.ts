/**
 * The floors cardgate is judged against, started by floor.ts (which prints its URL):
 * `floor-server.ts node-http DIR`: plain node:http, nothing else:
 *   GET  /hello    a fixed JSON answer (what a request that does nothing costs Node itself)
 *   POST /ajv      read the body, JSON.parse, ajv on the official 0.3.0 schema (allErrors), answer
 *                  {"valid":…} (what a validator that does no more than the schema costs)
 *   POST /durable  the same, plus its report (~3 KB: id, time, verdict, the card) appended as one
 *                  JSON line to DIR/reports.jsonl and fdatasync'd before answering: one write and
 *                  one fdatasync per event-loop turn for the requests read in it (the durable floor;
 *                  DIR is on the disk of cardgate's data dir)
 * `floor-server.ts hono`: a bare Hono app on @hono/node-server, GET /hello answering fixed JSON
 *   (the Hono floor: what the framework cardgate is built on costs by itself).
 */
import { randomUUID } from 'node:crypto';
import { fdatasync, openSync, write } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { officialValidators } from './engine.ts';

const hello = { status: 'ok' };
const helloText = JSON.stringify(hello);

const answer = (res: ServerResponse, text: string): void => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

const readJson = (req: IncomingMessage, then: (body: { agent_card?: unknown }) => void): void => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { agent_card?: unknown }));
};

/** Group commit: the reports of one event-loop turn in one write and one fdatasync, then their answers. */
const durableLog = (file: string) => {
  const fd = openSync(file, 'a');
  let queued: Array<{ line: string; done: () => void }> = [];
  let busy = false;
  const flush = (): void => {
    const group = queued;
    queued = [];
    busy = true;
    write(fd, group.map((g) => g.line).join(''), (writeError) => {
      if (writeError) throw writeError;
      fdatasync(fd, (syncError) => {
        if (syncError) throw syncError;
        for (const g of group) g.done();
        busy = false;
        if (queued.length > 0) setImmediate(flush);
      });
    });
  };
  return (line: string, done: () => void): void => {
    queued.push({ line, done });
    if (queued.length === 1 && !busy) setImmediate(flush);
  };
};

const nodeHttpFloor = (dir: string): Server => {
  const ajvCard = officialValidators().get('0.3.0')!;
  const append = durableLog(join(dir, 'reports.jsonl'));
  const verdict = (card: unknown) => ({ valid: ajvCard(card), errors: ajvCard.errors ?? [] });
  return createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/hello') return answer(res, helloText);
    if (req.method === 'POST' && req.url === '/ajv') return readJson(req, (body) => answer(res, JSON.stringify(verdict(body.agent_card))));
    if (req.method === 'POST' && req.url === '/durable') {
      return readJson(req, (body) => {
        const result = verdict(body.agent_card);
        const text = JSON.stringify(result);
        const report = JSON.stringify({ id: randomUUID(), created_at: new Date().toISOString(), result, card: body.agent_card });
        append(`${report}\n`, () => answer(res, text));
      });
    }
    res.writeHead(404).end();
  });
};

const honoFloor = (): Server => {
  const app = new Hono().get('/hello', (c) => c.json(hello));
  return serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
};

const [mode, dir] = process.argv.slice(2);
const server = mode === 'hono' ? honoFloor() : nodeHttpFloor(dir ?? '.');
const announce = () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`floor server on http://127.0.0.1:${address.port} pid ${process.pid}`);
};
if (mode === 'hono') server.once('listening', announce);
else server.listen(0, '127.0.0.1', announce);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
