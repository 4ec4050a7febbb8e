/**
 * Real A2A agents on loopback for the live-check tests: a hand-written one (node:http, http or
 * https) whose versions, bindings and faults are chosen per test (1.0 or 0.3 methods, JSON-RPC at
 * /a2a and HTTP+JSON at /rest, its card's media type, caching and CORS, an extended card behind a
 * token, an endless stream), one built on @a2a-js/sdk 0.3 (JSON-RPC and HTTP+JSON), a server that
 * never answers. Each counts the messages it accepted (the requests with side effects) and keeps
 * what it was sent. The hand-written one can change while it runs: the versions it speaks, and,
 * with its interfaces on a listener of their own, whether they answer at all.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { AgentCard } from '@a2a-js/sdk';
import type { KeyAndCert } from './tls-certs.ts';

export interface AgentOptions {
  /** The version the card declares (default 1.0). */
  declares?: '1.0' | '0.3';
  /** The versions whose methods and routes the agent answers (default: what it declares). */
  speaks?: Array<'1.0' | '0.3'>;
  /** The interfaces the card declares (default JSONRPC). */
  bindings?: Array<'JSONRPC' | 'HTTP+JSON'>;
  /** The card's Content-Type (default application/json). */
  cardType?: string;
  /** Cache-Control max-age, ETag and 304 (default true). */
  caching?: boolean;
  /** Access-Control-Allow-Origin and the preflight (default true). */
  cors?: boolean;
  /** An extended card declared, served to `Authorization: Bearer <token>` only. */
  extendedCardToken?: string;
  /** capabilities.streaming: streams that end (`ok`) or never do (`endless`). */
  streaming?: 'ok' | 'endless';
  /** Answers an unsupported A2A-Version as any other (default false). */
  ignoresVersion?: boolean;
  /** The card's GET answered with this redirect instead. */
  cardRedirect?: string;
  /** Serve over https with this key and certificate. */
  tls?: KeyAndCert;
  /** Errors in no binding's form: invalid JSON and unknown methods answered wrongly. */
  sloppyErrors?: boolean;
  /** The declared extended card served to anyone. */
  extendedCardOpen?: boolean;
  /** Messages refused with an internal error (and streams answered as plain JSON). */
  rejectsMessages?: boolean;
  /** Interfaces the card declares besides its own (another host's URL). */
  extraInterfaces?: Array<Record<string, unknown>>;
  /** Its interfaces served on a port of their own (the card stays at the first): see RunningAgent.interfaces. */
  separateInterfaces?: boolean;
}

export interface RunningAgent {
  url: string;
  /** The card's URL (its well-known path). */
  cardUrl: string;
  card: Record<string, unknown>;
  /** Messages accepted: the requests with side effects. */
  messages: () => number;
  /** Every request: method, path, headers. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  close: () => Promise<void>;
}

/** The hand-written agent, which can change while it runs. */
export interface ChangingAgent extends RunningAgent {
  /** Speaks these versions' methods and routes from now on. */
  speak: (versions: Array<'1.0' | '0.3'>) => void;
  /** With separateInterfaces: closes their listener (connections are refused) or opens it again on its port. */
  interfaces: (up: boolean) => Promise<void>;
}

const skills = [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['echo'] }];

/** The card of an agent whose interfaces are at `base`. */
const cardOf = (base: string, o: AgentOptions): Record<string, unknown> => {
  const declares = o.declares ?? '1.0';
  const bindings = o.bindings ?? ['JSONRPC'];
  const where = (b: string) => `${base}${b === 'JSONRPC' ? '/a2a' : '/rest'}`;
  const capabilities = { streaming: o.streaming !== undefined, ...(o.extendedCardToken && declares === '1.0' ? { extendedAgentCard: true } : {}) };
  const security = o.extendedCardToken
    ? declares === '1.0'
      ? { securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] }
      : { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }], supportsAuthenticatedExtendedCard: true }
    : {};
  const common = { name: 'Probe target', description: 'An agent for the live checks.', version: '1.0.0', provider: { organization: 'Acme', url: 'https://acme.net' }, capabilities, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills, ...security };
  if (declares === '1.0') {
    return { ...common, supportedInterfaces: [...bindings.map((b) => ({ url: where(b), protocolBinding: b, protocolVersion: '1.0' })), ...(o.extraInterfaces ?? [])] };
  }
  const [first, ...rest] = bindings;
  return { protocolVersion: '0.3.0', ...common, url: where(first!), preferredTransport: first, ...(rest.length || o.extraInterfaces ? { additionalInterfaces: [...rest.map((b) => ({ url: where(b), transport: b })), ...(o.extraInterfaces ?? [])] } : {}) };
};

const json = (res: ServerResponse, status: number, body: unknown, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(JSON.stringify(body));
};

const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
const status10 = (code: number, status: string, reason: string) => ({ error: { code, status, message: reason, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }] } });

/** Writes SSE events: three then the end, or one every 5 ms until the client goes. */
const stream = (res: ServerResponse, event: () => unknown, endless: boolean) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!endless) {
    for (let i = 0; i < 3; i++) res.write(`data: ${JSON.stringify(event())}\n\n`);
    return res.end();
  }
  const timer = setInterval(() => res.write(`data: ${JSON.stringify(event())}\n\n`), 5);
  res.on('close', () => clearInterval(timer));
};

export const startAgent = async (o: AgentOptions = {}): Promise<ChangingAgent> => {
  let speaks = new Set(o.speaks ?? [o.declares ?? '1.0']);
  let messages = 0;
  const requests: RunningAgent['requests'] = [];
  let card: Record<string, unknown> = {};
  const authorized = (req: IncomingMessage) => o.extendedCardToken !== undefined && req.headers.authorization === `Bearer ${o.extendedCardToken}`;

  const serveCard = (req: IncomingMessage, res: ServerResponse) => {
    if (o.cardRedirect) {
      res.writeHead(302, { location: o.cardRedirect });
      return res.end();
    }
    const cors = o.cors === false ? {} : { 'access-control-allow-origin': '*' };
    if (req.method === 'OPTIONS') {
      res.writeHead(o.cors === false ? 404 : 204, o.cors === false ? {} : { ...cors, 'access-control-allow-methods': 'GET, OPTIONS', 'access-control-allow-headers': 'a2a-version' });
      return res.end();
    }
    const caching = o.caching === false ? {} : { 'cache-control': 'public, max-age=300', etag: '"card-v1"' };
    if (o.caching !== false && req.headers['if-none-match'] === '"card-v1"') {
      res.writeHead(304, { ...caching, ...cors });
      return res.end();
    }
    res.writeHead(200, { 'content-type': o.cardType ?? 'application/json', ...caching, ...cors });
    res.end(JSON.stringify(card));
  };

  const jsonRpc = (req: IncomingMessage, res: ServerResponse, body: string) => {
    let call: { id?: unknown; method?: unknown; params?: { message?: unknown } };
    try {
      call = JSON.parse(body);
    } catch {
      return o.sloppyErrors ? json(res, 500, 'oops', 'text/plain') : json(res, 200, rpcError(null, -32700, 'Invalid JSON payload'));
    }
    const version = req.headers['a2a-version'];
    if (speaks.has('1.0') && typeof version === 'string' && version !== '1.0' && version !== '0.3' && !o.ignoresVersion) return json(res, 200, rpcError(call.id, -32009, `version ${version} is not supported`));
    const v1 = speaks.has('1.0');
    const v03 = speaks.has('0.3');
    switch (call.method) {
      case v1 && 'GetTask':
      case v03 && 'tasks/get':
        return json(res, 200, rpcError(call.id, -32001, 'Task not found'));
      case v1 && 'GetExtendedAgentCard':
      case v03 && 'agent/getAuthenticatedExtendedCard':
        if (!o.extendedCardToken) return json(res, 200, rpcError(call.id, -32004, 'no extended card'));
        if (!authorized(req) && !o.extendedCardOpen) return json(res, 401, rpcError(call.id, -32600, 'authentication required'));
        return json(res, 200, { jsonrpc: '2.0', id: call.id, result: { ...card, description: 'The extended card.' } });
      case v1 && 'SendMessage':
      case v03 && 'message/send':
        if (o.rejectsMessages) return json(res, 200, rpcError(call.id, -32603, 'internal error'));
        messages++;
        return json(res, 200, { jsonrpc: '2.0', id: call.id, result: v1 ? { message: { messageId: 'reply', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } } : { kind: 'message', messageId: 'reply', role: 'agent', parts: [{ kind: 'text', text: 'ok' }] } });
      case v1 && 'SendStreamingMessage':
      case v03 && 'message/stream':
        if (o.rejectsMessages) return json(res, 200, rpcError(call.id, -32603, 'internal error'));
        messages++;
        return stream(res, () => ({ jsonrpc: '2.0', id: call.id, result: v1 ? { message: { messageId: 'reply', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } } : { kind: 'message', messageId: 'reply', role: 'agent', parts: [{ kind: 'text', text: 'ok' }] } }), o.streaming === 'endless');
      default:
        return json(res, 200, rpcError(call.id, o.sloppyErrors ? -32603 : -32601, 'Method not found'));
    }
  };

  const rest = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
    const v1Route = speaks.has('1.0') && !path.startsWith('/v1/');
    const v03Route = speaks.has('0.3') && path.startsWith('/v1/');
    if (!v1Route && !v03Route) return json(res, 404, 'Cannot ' + req.method + ' ' + path, 'text/html');
    const route = v03Route ? path.slice(3) : path;
    const version = req.headers['a2a-version'];
    if (v1Route && typeof version === 'string' && version !== '1.0' && !o.ignoresVersion) return json(res, 400, status10(400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'));
    if (req.method === 'GET' && route.startsWith('/tasks/')) return json(res, 404, v1Route ? status10(404, 'NOT_FOUND', 'TASK_NOT_FOUND') : { code: -32001, message: 'Task not found' });
    if (req.method === 'GET' && (route === '/extendedAgentCard' || route === '/card')) {
      if (!o.extendedCardToken) return json(res, 400, v1Route ? status10(400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION') : { code: -32004, message: 'no extended card' });
      return authorized(req) || o.extendedCardOpen ? json(res, 200, card) : json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'authentication required' } });
    }
    if (req.method === 'POST' && (route === '/message:send' || route === '/message:stream')) {
      try {
        JSON.parse(body);
      } catch {
        if (o.sloppyErrors) return json(res, 500, 'oops', 'text/plain');
        return json(res, 400, v1Route ? { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'invalid JSON' } } : { code: -32700, message: 'Invalid JSON payload' });
      }
      if (o.rejectsMessages) return json(res, 500, { error: { code: 500, status: 'INTERNAL', message: 'internal error' } });
      messages++;
      const reply = { message: { messageId: 'reply', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } };
      return route === '/message:send' ? json(res, 200, reply) : stream(res, () => reply, o.streaming === 'endless');
    }
    if (o.sloppyErrors) return json(res, 200, {});
    return json(res, 404, v1Route ? status10(404, 'NOT_FOUND', 'NOT_FOUND') : { code: -32601, message: 'not found' });
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (path === '/.well-known/agent-card.json') return serveCard(req, res);
      if (path === '/a2a' && req.method === 'POST') return jsonRpc(req, res, body);
      if (path.startsWith('/rest/')) return rest(req, res, path.slice(5), body);
      json(res, 404, 'not found', 'text/plain');
    });
  };
  const newServer = (): Server => (o.tls ? createHttpsServer({ key: o.tls.key, cert: o.tls.cert }, handle) : createHttpServer(handle));
  const listen = async (server: Server, port = 0) => {
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return `${o.tls ? 'https' : 'http'}://${o.tls ? 'localhost' : '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  };
  const server = newServer();
  const url = await listen(server);
  let interfaceServer = o.separateInterfaces ? newServer() : undefined;
  const interfacesUrl = interfaceServer ? await listen(interfaceServer) : url;
  card = cardOf(interfacesUrl, o);
  return {
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    card,
    messages: () => messages,
    requests,
    speak: (versions) => void (speaks = new Set(versions)),
    interfaces: async (up) => {
      if (!o.separateInterfaces) throw new Error('interfaces(up) needs separateInterfaces');
      if (!up && interfaceServer) await closeServer(interfaceServer);
      if (up && !interfaceServer) await listen((interfaceServer = newServer()), Number(new URL(interfacesUrl).port));
      if (!up) interfaceServer = undefined;
    },
    close: async () => {
      await Promise.all([closeServer(server), interfaceServer && closeServer(interfaceServer)]);
    },
  };
};

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** An agent built on @a2a-js/sdk 0.3: JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, the SDK's own card handler. */
export const startSdkAgent = async (): Promise<RunningAgent> => {
  let messages = 0;
  const requests: RunningAgent['requests'] = [];
  const executor: AgentExecutor = {
    execute: async (context, bus) => {
      messages++;
      bus.publish({ kind: 'message', messageId: `reply-${messages}`, role: 'agent', parts: [{ kind: 'text', text: 'ok' }], contextId: context.contextId });
      bus.finished();
    },
    cancelTask: async () => {},
  };
  const app = express();
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.path, headers: req.headers, body: '' });
    next();
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: 'SDK agent',
    description: 'An @a2a-js/sdk 0.3 agent.',
    version: '1.0.0',
    url: `${url}/a2a/jsonrpc`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: `${url}/a2a/jsonrpc`, transport: 'JSONRPC' }, { url: `${url}/a2a/rest`, transport: 'HTTP+JSON' }],
    provider: { organization: 'Acme', url: 'https://acme.net' },
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills,
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return { url, cardUrl: `${url}/.well-known/agent-card.json`, card: card as unknown as Record<string, unknown>, messages: () => messages, requests, close: () => closeServer(server) };
};

/** A server that accepts connections and never answers. */
export const startSilentServer = async () => {
  const sockets = new Set<Socket>();
  let heldOne!: () => void;
  const connected = new Promise<void>((resolve) => (heldOne = resolve));
  const server = createNetServer((socket) => {
    sockets.add(socket);
    heldOne();
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Settles once a client has connected (and is being kept waiting). */
    connected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};
