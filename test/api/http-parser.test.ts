/**
 * Requests Node's HTTP parser (or the adapter) refuses before the app sees them, sent as raw bytes
 * to the real server: each gets a complete JSON error response in the flat shape, then the
 * connection is closed by the server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerProtocolErrors } from '../../src/api/node-server.ts';
import { startServer, type RunningServer } from '../support/server.ts';

interface RawAnswer {
  raw: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (rather than the client giving up after `waitMs`). */
  closedByServer: boolean;
}

/**
 * Writes `bytes` on a fresh connection, and `onceAnswering` when the first answer bytes arrive;
 * reads until the server closes the connection (or `waitMs` pass).
 */
const exchange = (port: number, bytes: string, options: { onceAnswering?: string; waitMs?: number } = {}): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    if (options.onceAnswering) socket.once('data', () => socket.write(options.onceAnswering!));
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, options.waitMs ?? 5000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = raw.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ raw, status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(split + 4), closedByServer });
    });
  });

/** The flat error shape, exactly; one complete, closed HTTP/1.1 response. */
const assertFlatError = (answer: RawAnswer, status: number, code: string, message: RegExp) => {
  assert.equal(answer.status, status, answer.raw);
  assert.match(answer.raw, /^HTTP\/1\.1 \d{3} [A-Za-z ]+\r\n/);
  assert.equal(answer.headers['content-type'], 'application/json');
  assert.equal(answer.headers.connection, 'close');
  assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body, 'latin1'));
  const body = JSON.parse(answer.body);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error']);
  assert.equal(body.code, code);
  assert.match(body.error, message);
  assert.ok(answer.closedByServer, 'the server closes the connection');
};

const big = 'a'.repeat(20_000); // over Node's 16 KiB header limit

const anomalies: Array<{ name: string; bytes: string; status: number; code: string; message: RegExp }> = [
  { name: 'an unknown method', bytes: 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request: Invalid method/ },
  { name: 'binary garbage', bytes: '\u0000\u0001\u0002 hello\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
  { name: 'an unknown HTTP version', bytes: 'GET / HTTP/9.9\r\nHost: x\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /HTTP version/ },
  { name: 'a request line ending in a bare LF', bytes: 'GET / HTTP/1.1\nHost: x\n\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
  { name: 'a control character in the request target', bytes: 'GET /\u007f HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
  { name: 'a space in a header name', bytes: 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /header/i },
  { name: 'one header over 16 KiB', bytes: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`, status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: /headers are larger/ },
  { name: 'a request target over 16 KiB', bytes: `GET /${big} HTTP/1.1\r\nHost: x\r\n\r\n`, status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: /headers are larger/ },
  {
    name: 'Content-Length together with Transfer-Encoding',
    bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    status: 400,
    code: 'INVALID_REQUEST',
    message: /Transfer-Encoding can't be present with Content-Length/,
  },
  { name: 'two different Content-Lengths', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', status: 400, code: 'INVALID_REQUEST', message: /Duplicate Content-Length/ },
  { name: 'a non-numeric Content-Length', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /Content-Length/ },
  { name: 'a negative Content-Length', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /Content-Length/ },
  { name: 'an unknown Transfer-Encoding', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /Transfer-Encoding/ },
  { name: 'chunked not last in Transfer-Encoding', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /Transfer-Encoding/ },
  { name: 'a bad chunk size', bytes: 'POST /v1/validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /chunk size/ },
  {
    name: 'chunk extensions over 16 KiB',
    bytes: `POST /v1/validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;${big}\r\n{}\r\n0\r\n\r\n`,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /chunk extensions/,
  },
  { name: 'HTTP/1.1 without Host', bytes: 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /Missing host header/ },
  { name: 'an HTTP/0.9 request line', bytes: 'GET /\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
  { name: 'a Host with a space', bytes: 'GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
  { name: 'an asterisk target', bytes: 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', status: 400, code: 'INVALID_REQUEST', message: /^malformed HTTP request/ },
];

describe('requests the HTTP parser refuses (real server, raw sockets)', () => {
  let server: RunningServer;
  before(async () => (server = await startServer()));
  after(() => server.stop());

  for (const anomaly of anomalies) {
    it(`${anomaly.name}: ${anomaly.status} ${anomaly.code}`, async () => {
      assertFlatError(await exchange(server.port, anomaly.bytes), anomaly.status, anomaly.code, anomaly.message);
    });
  }

  it('CONNECT is refused with 405 in its code\'s shape, not a silently closed connection', async () => {
    const answer = await exchange(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(answer.status, 405);
    assert.equal(answer.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(answer.body), { error: { code: 'METHOD_NOT_ALLOWED', message: 'CONNECT is not supported' } });
    assert.ok(answer.closedByServer);
  });

  it('an expectation other than 100-continue is ignored (the request is answered), not a bare 417', async () => {
    const answer = await exchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n');
    assert.equal(answer.status, 200, answer.raw);
    assert.deepEqual(JSON.parse(answer.body), { status: 'ok' });
  });

  it('a client that closes mid-body is logged as a client abort (info, status 499), not as a 500 with a stack', async () => {
    const paths = ['/v1/validate', '/v1/webhook'];
    const logStart = server.stdout().length; // earlier tests of this server logged these paths too
    for (const path of paths) {
      const answer = await exchange(server.port, `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"agent`, { waitMs: 300 });
      assert.equal(answer.raw, '', 'nothing written');
    }
    const lines = () => server.stdout().slice(logStart).split('\n').filter((l) => paths.some((p) => l.includes(`"path":"${p}"`)));
    const until = Date.now() + 5000;
    while (lines().filter((l) => l.includes('"msg":"request"')).length < paths.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const logged = lines();
    assert.ok(!logged.some((l) => /"level":"error"|"status":500|"stack"/.test(l)), logged.join('\n'));
    for (const path of paths) {
      assert.ok(logged.some((l) => l.includes(`"path":"${path}"`) && l.includes('"msg":"request"') && l.includes('"status":499')), `${path}\n${logged.join('\n')}`);
      assert.ok(logged.some((l) => l.includes(`"path":"${path}"`) && l.includes('"level":"info"') && l.includes('client closed')), `${path}\n${logged.join('\n')}`);
    }
  });

  it('the server keeps serving after every anomaly', async () => {
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
  });
});

describe('the protocol error answers on a plain node:http server', () => {
  /** A server with the answers installed and Node's timers shortened, whose handler starts a response and never ends it. */
  const startPlain = async (): Promise<{ server: Server; port: number }> => {
    const server = createServer({ connectionsCheckingInterval: 100, headersTimeout: 400, requestTimeout: 400 }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
    });
    answerProtocolErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  };
  let plain: { server: Server; port: number };
  before(async () => (plain = await startPlain()));
  after(() => {
    plain.server.closeAllConnections();
    plain.server.close();
  });

  it('headers not received in time: 408 REQUEST_TIMEOUT', async () => {
    const answer = await exchange(plain.port, 'GET / HTTP/1.1\r\nHost: x\r\n');
    assertFlatError(answer, 408, 'REQUEST_TIMEOUT', /not received in time/);
  });

  it('after a response has started, a parse error writes nothing more and only closes the connection', async () => {
    const answer = await exchange(plain.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { onceAnswering: 'FROB / HTTP/1.1\r\n\r\n' });
    assert.equal(answer.status, 200);
    assert.ok(answer.closedByServer);
    assert.doesNotMatch(answer.raw, /INVALID_REQUEST|HTTP\/1\.1 400/);
  });
});
