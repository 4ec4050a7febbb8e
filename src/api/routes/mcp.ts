/**
 * POST /mcp: cardgate's MCP server over Streamable HTTP (docs/mcp.md), stateless: each request is
 * answered by a server made for it and its caller (a session would hold state no instance shares),
 * in JSON. The caller is identified as for /v1/validate (a key's plan and account, else the
 * address's anonymous quota; unmetered in sidecar mode), and each tool call that validates is
 * charged and stored as a validation of its. The body is read within four times
 * http.maxBodyBytes (diff_cards carries two cards, JSON-escaped in their strings), and nests at most
 * http.maxJsonDepth levels beyond the JSON-RPC message's own three.
 */
import { createRoute } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import * as z from 'zod';
import type { AppDeps } from '../../deps.ts';
import { mcpServer } from '../../features/mcp/server.ts';
import { serviceDoor } from '../../features/mcp/service-door.ts';
import { nestsDeeperThan } from '../../lib/json.ts';
import { readBodyText } from '../body.ts';
import { callerOf, identifyCaller } from '../middleware/caller.ts';
import { apiRoutes, type ApiRoutes, bodyErrors, errors, rateLimitHeaders, requestBody, security } from '../openapi.ts';

/** A JSON-RPC message's levels around a tool's arguments: the message, params, arguments. */
const ENVELOPE_DEPTH = 3;

const jsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().meta({ description: '`initialize`, `tools/list`, `tools/call`, `ping`, or a notification.' }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'McpMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol (one a request: no batch).' });

const jsonRpcAnswer = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).nullable(), result: z.unknown().optional(), error: z.unknown().optional() })
  .meta({ id: 'McpAnswer' });

const route = createRoute({
  method: 'post',
  path: '/mcp',
  tags: ['mcp'],
  summary: 'The MCP server for coding assistants (Streamable HTTP, stateless): validate_card, diff_cards, probe_agent, explain_rule, list_rules',
  description:
    'Send `Accept: application/json, text/event-stream`; answers are JSON. Keyed like POST /v1/validate (anonymous callers under the address\'s daily quota; unmetered in sidecar mode): each card a tool validates counts as one validation and its report is stored. A tool\'s failure (a card too large, a URL refused, the quota spent) is a tool result with `isError`. No file is read: `path` is for `cardgate mcp` over stdio. See docs/mcp.md.',
  security: security.optionalKey,
  request: { body: requestBody(jsonRpcRequest) },
  responses: {
    200: { description: 'The JSON-RPC answer.', headers: rateLimitHeaders, content: { 'application/json': { schema: jsonRpcAnswer } } },
    202: { description: 'A notification or a response of the client: nothing to answer.', headers: rateLimitHeaders },
    ...errors({ 401: 'The key is malformed, unknown, deleted or expired.', 403: 'The key may not be used from this IP.', 413: `${bodyErrors[413]} Here: four times \`http.maxBodyBytes\`.`, 415: bodyErrors[415] }, true),
    400: { description: 'Not one JSON-RPC message: JSON-RPC error -32700 (parse error), or -32600 (a batch, an invalid request).', content: { 'application/json': { schema: jsonRpcAnswer } } },
    406: { description: 'The Accept header does not take application/json and text/event-stream.', content: { 'application/json': { schema: jsonRpcAnswer } } },
  },
});

const refused = (code: number, message: string) => Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status: 400 });
const parseError = (message: string) => refused(-32700, message);

export const mcpRoutes = (deps: AppDeps): ApiRoutes => {
  const { http } = deps.config;
  return apiRoutes().openapi({ ...route, middleware: identifyCaller(deps) }, async (c) => {
    const text = await readBodyText(c, { maxBytes: 4 * http.maxBodyBytes });
    if (nestsDeeperThan(text, http.maxJsonDepth + ENVELOPE_DEPTH)) return parseError(`the message nests arrays and objects more than ${http.maxJsonDepth + ENVELOPE_DEPTH} levels deep (http.maxJsonDepth and the message's own ${ENVELOPE_DEPTH})`);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return parseError(`Parse error: ${(e as Error).message}`);
    }
    // One message a request: a batch (which the protocol no longer has) would make one request of up to a hundred tool calls.
    if (Array.isArray(message)) return refused(-32600, 'Invalid Request: send one JSON-RPC message per request (batches are not accepted)');
    const server = mcpServer(serviceDoor(deps, callerOf(c)));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: message });
    } finally {
      await server.close();
    }
  });
};
