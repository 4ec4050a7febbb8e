/** The MCP SDK's own client, connected to cardgate over Streamable HTTP or to `cardgate mcp` over stdio. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const root = new URL('../..', import.meta.url).pathname;

/** A client of the service's /mcp, with the key given (if any); `seen` collects each answer's headers. */
export const httpClient = async (serverUrl: string, key?: string): Promise<{ client: Client; seen: Headers[] }> => {
  const seen: Headers[] = [];
  const fetchSeen: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    seen.push(res.headers);
    return res;
  };
  const client = new Client({ name: 'cardgate-tests', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), { fetch: fetchSeen, ...(key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}) }));
  return { client, seen };
};

/** A client of `cardgate mcp` run from the sources (args after `mcp`), in `cwd`. */
export const stdioClient = async (args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ client: Client; transport: StdioClientTransport }> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', import.meta.resolve('tsx'), join(root, 'src/main.ts'), 'mcp', ...args],
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cardgate-tests', version: '1' });
  await client.connect(transport);
  return { client, transport };
};

/** A tool's call, its structured content and its text. */
export const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { result, text, structured: result.structuredContent as Record<string, any> | undefined, isError: result.isError === true };
};
