/**
 * What a probe sends to an interface, per binding and version: read-only requests (a task id that
 * cannot exist, an unknown method, invalid JSON, the extended card) and, only when asked, one
 * marked message. Method names and routes: 0.3 `tasks/get`, `GET /v1/tasks/{id}`; 1.0 `GetTask`,
 * `GET /tasks/{id}` (1.0 §5.3; 0.3 §3.5).
 */
import { isV1, type DeclaredInterface } from './interfaces.ts';

export interface ProbeRequest {
  method: 'GET' | 'POST' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The text of the message sent with --send-message, and the prefix of its id. */
export const PROBE_MESSAGE_TEXT = 'cardgate probe, safe to ignore';
export const PROBE_ID_PREFIX = 'cardgate-probe-';

/** A version 1.0 interfaces are asked for to see VersionNotSupported. */
export const UNSUPPORTED_VERSION = '99.0';

const jsonType = 'application/json';

const versionHeader = (iface: DeclaredInterface, version = iface.version): Record<string, string> => (isV1(iface.version) ? { 'a2a-version': version } : {});

const rpc = (iface: DeclaredInterface, body: string, headers: Record<string, string> = {}): ProbeRequest => ({
  method: 'POST',
  url: iface.url,
  headers: { 'content-type': jsonType, accept: jsonType, ...versionHeader(iface), ...headers },
  body,
});

const rpcCall = (id: string, method: string, params: Record<string, unknown> | undefined) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** The HTTP+JSON base of an interface: its URL without a trailing slash, `/v1` for 0.3, the tenant for 1.0. */
const restBase = (iface: DeclaredInterface): string => {
  const base = iface.url.replace(/\/+$/, '');
  if (!isV1(iface.version)) return `${base}/v1`;
  return iface.tenant === undefined ? base : `${base}/${encodeURIComponent(iface.tenant)}`;
};

const rest = (iface: DeclaredInterface, method: 'GET' | 'POST', route: string, body?: string, headers: Record<string, string> = {}): ProbeRequest => ({
  method,
  url: `${restBase(iface)}${route}`,
  headers: { accept: jsonType, ...(body === undefined ? {} : { 'content-type': jsonType }), ...versionHeader(iface), ...headers },
  ...(body === undefined ? {} : { body }),
});

/** The get-task method of a version: what "speaks that version" is judged by. */
export const getTaskMethod = (version: string): string => (isV1(version) ? 'GetTask' : 'tasks/get');

/** Get a task that cannot exist, in the interface's version (or `asVersion`'s method names, same headers). */
export const getTask = (iface: DeclaredInterface, taskId: string, asVersion = iface.version, headers: Record<string, string> = {}): ProbeRequest => {
  if (iface.binding === 'HTTP+JSON') return rest({ ...iface, version: asVersion }, 'GET', `/tasks/${encodeURIComponent(taskId)}`, undefined, headers);
  const params = { id: taskId, ...(iface.tenant !== undefined && isV1(asVersion) ? { tenant: iface.tenant } : {}) };
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}get`, getTaskMethod(asVersion), params), headers);
};

/** The same get with an A2A-Version the agent cannot support (1.0 interfaces). */
export const getTaskUnsupportedVersion = (iface: DeclaredInterface, taskId: string, headers: Record<string, string> = {}): ProbeRequest =>
  getTask(iface, taskId, iface.version, { ...headers, 'a2a-version': UNSUPPORTED_VERSION });

/** Invalid JSON: JSON-RPC to the endpoint, HTTP+JSON to message:send (nothing can be sent by it). */
export const invalidJson = (iface: DeclaredInterface, headers: Record<string, string> = {}): ProbeRequest => {
  const broken = '{"jsonrpc": "2.0", "id": "cardgate-probe-parse", "method": ';
  return iface.binding === 'HTTP+JSON' ? rest(iface, 'POST', '/message:send', '{"message": ', headers) : rpc(iface, broken, headers);
};

/** A method (JSON-RPC) or route (HTTP+JSON) no agent has. */
export const unknownMethod = (iface: DeclaredInterface, headers: Record<string, string> = {}): ProbeRequest =>
  iface.binding === 'HTTP+JSON'
    ? rest(iface, 'GET', '/cardgate-probe-unknown-route', undefined, headers)
    : rpc(iface, rpcCall(`${PROBE_ID_PREFIX}method`, 'cardgate.probe/unknownMethod', {}), headers);

/** The authenticated extended card: `agent/getAuthenticatedExtendedCard`, `GET /v1/card` (0.3); `GetExtendedAgentCard`, `GET /extendedAgentCard` (1.0). */
export const extendedCard = (iface: DeclaredInterface, headers: Record<string, string> = {}): ProbeRequest => {
  const v1 = isV1(iface.version);
  if (iface.binding === 'HTTP+JSON') return rest(iface, 'GET', v1 ? '/extendedAgentCard' : '/card', undefined, headers);
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}card`, v1 ? 'GetExtendedAgentCard' : 'agent/getAuthenticatedExtendedCard', v1 && iface.tenant !== undefined ? { tenant: iface.tenant } : undefined), headers);
};

/** The marked message, in the version's JSON: 0.3 JSON-RPC `kind`/`role: user`; 0.3 HTTP+JSON and 1.0 the proto form (`ROLE_USER`). */
const probeMessage = (iface: DeclaredInterface, messageId: string): Record<string, unknown> => {
  if (isV1(iface.version)) return { messageId, role: 'ROLE_USER', parts: [{ text: PROBE_MESSAGE_TEXT }] };
  if (iface.binding === 'HTTP+JSON') return { messageId, role: 'ROLE_USER', content: [{ text: PROBE_MESSAGE_TEXT }] };
  return { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: PROBE_MESSAGE_TEXT }] };
};

/** One message (opt-in only: it may create a task): `message/send`, `SendMessage`, `POST …/message:send`; streaming: `message/stream`, `SendStreamingMessage`, `POST …/message:stream`. */
export const sendMessage = (iface: DeclaredInterface, messageId: string, streaming: boolean, headers: Record<string, string> = {}): ProbeRequest => {
  const params = { message: probeMessage(iface, messageId), ...(iface.tenant !== undefined && isV1(iface.version) ? { tenant: iface.tenant } : {}) };
  const sse: Record<string, string> = streaming ? { accept: 'text/event-stream' } : {};
  if (iface.binding === 'HTTP+JSON') return rest(iface, 'POST', streaming ? '/message:stream' : '/message:send', JSON.stringify(params), { ...headers, ...sse });
  const method = isV1(iface.version) ? (streaming ? 'SendStreamingMessage' : 'SendMessage') : streaming ? 'message/stream' : 'message/send';
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}send`, method, params), { ...headers, ...sse });
};
