/**
 * The floor cardgate is judged against: plain node:http, nothing else. Started by floor.ts; prints its URL.
 *   GET  /hello   a fixed JSON answer (what a request that does nothing costs Node itself)
 *   POST /ajv     read the body, JSON.parse, ajv on the official 0.3.0 schema (allErrors), answer
 *                 {"valid":…} (what a validator that does no more than the schema costs)
 */
import { createServer } from 'node:http';
import { officialValidators } from './engine.ts';

const ajvCard = officialValidators().get('0.3.0')!;
const hello = JSON.stringify({ status: 'ok' });

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/hello') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(hello) });
    res.end(hello);
    return;
  }
  if (req.method === 'POST' && req.url === '/ajv') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { agent_card?: unknown };
      const answer = JSON.stringify({ valid: ajvCard(body.agent_card), errors: ajvCard.errors ?? [] });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
      res.end(answer);
    });
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`floor server on http://127.0.0.1:${address.port} pid ${process.pid}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
