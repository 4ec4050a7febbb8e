/**
 * The checks of each interface the card declares, in rounds across the interfaces so that the
 * request budget, when it runs out, leaves the least telling checks unsent: (1) reachability,
 * HTTPS, TLS and the declared version (read-only get of a task that cannot exist), (2) 1.0's
 * version negotiation, (3) the error shapes of invalid JSON and an unknown method, (4) the
 * extended card, (5) only when asked, one marked message and one streaming request.
 * Credentials given for the run go only to https interfaces, never to a redirect.
 */
import { randomUUID } from 'node:crypto';
import { liveCheck, type LiveCheck, type LiveRuleId } from '../../engine/live/checks.ts';
import { declaresExtendedCard, declaresStreaming, isV1, type DeclaredInterface } from '../../engine/live/interfaces.ts';
import { judgeExpiry, judgeHttps, judgeReachable, judgeTls, type CapturedConnection } from '../../engine/live/judge-connection.ts';
import { judgeExtendedCard, judgeNegotiation, judgeParseError, judgeSendMessage, judgeStream, judgeUnknownMethod, judgeVersion, type CapturedAnswer, type Judgement } from '../../engine/live/judge-interface.ts';
import { extendedCard, getTask, getTaskUnsupportedVersion, invalidJson, PROBE_ID_PREFIX, sendMessage, unknownMethod, type ProbeRequest } from '../../engine/live/requests.ts';
import type { NotSent, ProbeSession, Sent } from './client.ts';

/** Bounds of the opt-in stream: events and bytes read at most. */
const STREAM_BOUNDS = { maxEvents: 20, maxBytes: 256 * 1024 };

export interface InterfaceOptions {
  card: Record<string, unknown>;
  sendMessage: boolean;
  /** Credentials for this run (https interfaces only). */
  headers: Record<string, string>;
  now: number;
}

/** One interface as the rounds go: its checks so far, and whether the later rounds may send to it. */
interface State {
  iface: DeclaredInterface;
  checks: LiveCheck[];
  /** Why the later rounds skip it (unreachable, another binding, the version not spoken). */
  blocked?: string;
  versionSpoken: boolean;
  credentials: Record<string, string>;
}

const check = (state: State, id: LiveRuleId, j: Judgement): void => void state.checks.push(liveCheck(id, j.status, j.message, j.evidence, state.iface.path));
const skip = (state: State, id: LiveRuleId, message: string): void => void state.checks.push(liveCheck(id, 'skip', message, {}, state.iface.path));

/** The connection checks from what the first request's connection showed. */
const connectionChecks = (state: State, connection: CapturedConnection, now: number): void => {
  check(state, 'live.interface.reachable', judgeReachable(connection));
  const url = new URL(connection.url);
  if (state.iface.binding !== 'GRPC') check(state, 'live.interface.https', judgeHttps(connection.url));
  if (url.protocol === 'https:' || connection.tlsVersion !== undefined || connection.outcome === 'tls-refused') {
    check(state, 'live.interface.tls', judgeTls(connection));
    if (connection.outcome === 'answered') check(state, 'live.interface.certificate-expiry', judgeExpiry(connection, now));
  }
  if (connection.outcome !== 'answered') state.blocked = connection.outcome === 'tls-refused' ? 'not sent: the TLS handshake failed' : 'not sent: the interface is not reachable';
};

/** A gRPC interface: `host:port` (or a URL); its RPCs are not probed, its reachability and TLS are. */
const grpcUrl = (url: string): URL | undefined => {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return URL.canParse(url) ? new URL(url) : undefined;
  return URL.canParse(`https://${url}`) ? new URL(`https://${url}`) : undefined;
};

const roundOne = async (session: ProbeSession, state: State, options: InterfaceOptions, taskId: string): Promise<void> => {
  const { iface } = state;
  if (iface.binding === 'other') {
    state.blocked = `not probed: ${iface.declaredBinding} is a custom binding`;
    return skip(state, 'live.interface.reachable', state.blocked);
  }
  if (iface.binding === 'GRPC') {
    const url = grpcUrl(iface.url);
    if (!url) return skip(state, 'live.interface.reachable', 'not probed: the gRPC address is not host:port');
    const tls = url.protocol !== 'http:';
    const connected = await session.connect(url, tls);
    state.blocked = 'not probed: gRPC RPCs are not probed (reachability and TLS only)';
    if ('skipped' in connected) return skip(state, 'live.interface.reachable', connected.skipped);
    connectionChecks(state, 'failed' in connected ? connected.failed : connected.connection, options.now);
    return skip(state, 'live.version', state.blocked);
  }
  if (!/^https?:\/\//i.test(iface.url) || !URL.canParse(iface.url)) {
    state.blocked = 'not probed: the url is not an absolute http(s) URL';
    return skip(state, 'live.interface.reachable', state.blocked);
  }
  const sent = await session.send(getTask(iface, taskId, iface.version, state.credentials));
  if ('skipped' in sent) {
    state.blocked = sent.skipped;
    return skip(state, 'live.interface.reachable', sent.skipped);
  }
  connectionChecks(state, 'failed' in sent ? sent.failed : sent.connection, options.now);
  if ('failed' in sent) return skip(state, 'live.version', state.blocked!);
  let judgement = judgeVersion(iface, sent.answer);
  if (judgement.status === 'fail') {
    // Which version it speaks instead: the other generation's get, when the budget allows.
    const otherVersion = isV1(iface.version) ? '0.3' : '1.0';
    const other = await session.send(getTask({ ...iface, version: otherVersion }, taskId, otherVersion, state.credentials));
    if ('answer' in other) judgement = judgeVersion(iface, sent.answer, { version: otherVersion, answer: other.answer });
  }
  check(state, 'live.version', judgement);
  state.versionSpoken = judgement.status !== 'fail';
};

/** Sends one request of a later round to an interface the first round found usable: its answer, or the skip recorded. */
const sendFor = async (session: ProbeSession, state: State, id: LiveRuleId, request: ProbeRequest): Promise<CapturedAnswer | undefined> => {
  if (state.blocked) return void skip(state, id, state.blocked);
  const sent: Sent | NotSent = await session.send(request);
  if ('answer' in sent) return sent.answer;
  skip(state, id, 'skipped' in sent ? sent.skipped : `no answer: ${sent.failed.problem ?? 'the connection failed'}`);
  return undefined;
};

const roundNegotiation = async (session: ProbeSession, state: State, taskId: string): Promise<void> => {
  if (!isV1(state.iface.version) || state.iface.binding === 'GRPC' || state.iface.binding === 'other') return;
  if (!state.blocked && !state.versionSpoken) return skip(state, 'live.version.negotiation', 'not sent: the declared version is not spoken');
  const answer = await sendFor(session, state, 'live.version.negotiation', getTaskUnsupportedVersion(state.iface, taskId, state.credentials));
  if (answer) check(state, 'live.version.negotiation', judgeNegotiation(state.iface, answer));
};

const roundErrors = async (session: ProbeSession, state: State): Promise<void> => {
  if (state.iface.binding === 'GRPC' || state.iface.binding === 'other') return;
  const parse = await sendFor(session, state, 'live.errors.parse', invalidJson(state.iface, state.credentials));
  if (parse) check(state, 'live.errors.parse', judgeParseError(state.iface, parse));
  const method = await sendFor(session, state, 'live.errors.method', unknownMethod(state.iface, state.credentials));
  if (method) check(state, 'live.errors.method', judgeUnknownMethod(state.iface, method));
};

const roundExtendedCard = async (session: ProbeSession, state: State, card: Record<string, unknown>): Promise<void> => {
  if (state.iface.binding === 'GRPC' || state.iface.binding === 'other') return;
  const declared = declaresExtendedCard(card);
  const anonymous = await sendFor(session, state, 'live.extended-card', extendedCard(state.iface));
  if (!anonymous) return;
  const withCredentials = declared && Object.keys(state.credentials).length > 0 ? await sendFor(session, state, 'live.extended-card', extendedCard(state.iface, state.credentials)) : undefined;
  check(state, 'live.extended-card', judgeExtendedCard(state.iface, declared, anonymous, withCredentials));
};

/** Opt-in: one marked message and, when the card declares streaming, one streaming request, to the first interface that speaks its version. */
const roundMessages = async (session: ProbeSession, states: State[], card: Record<string, unknown>): Promise<void> => {
  const target = states.find((s) => !s.blocked && s.versionSpoken);
  if (!target) return;
  const sent = await sendFor(session, target, 'live.send-message', sendMessage(target.iface, `${PROBE_ID_PREFIX}${randomUUID()}`, false, target.credentials));
  if (sent) check(target, 'live.send-message', judgeSendMessage(target.iface, sent));
  if (!declaresStreaming(card)) return;
  const stream = await session.stream(sendMessage(target.iface, `${PROBE_ID_PREFIX}${randomUUID()}`, true, target.credentials), STREAM_BOUNDS);
  if ('skipped' in stream) return skip(target, 'live.streaming', stream.skipped);
  if ('failed' in stream) return skip(target, 'live.streaming', `no answer: ${stream.failed.problem ?? 'the connection failed'}`);
  check(target, 'live.streaming', judgeStream(target.iface, stream));
};

/** Every interface's checks, in the order of the interfaces. */
export const probeInterfaces = async (session: ProbeSession, interfaces: DeclaredInterface[], options: InterfaceOptions): Promise<LiveCheck[]> => {
  const taskId = `${PROBE_ID_PREFIX}${randomUUID()}`;
  const states: State[] = interfaces.map((iface) => ({
    iface,
    checks: [],
    versionSpoken: false,
    credentials: iface.url.toLowerCase().startsWith('https://') ? options.headers : {},
  }));
  for (const state of states) await roundOne(session, state, options, taskId);
  for (const state of states) await roundNegotiation(session, state, taskId);
  for (const state of states) await roundErrors(session, state);
  for (const state of states) await roundExtendedCard(session, state, options.card);
  if (options.sendMessage) await roundMessages(session, states, options.card);
  return states.flatMap((s) => s.checks);
};
