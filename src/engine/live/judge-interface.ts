/**
 * Judging what an interface answered to the probe's requests (requests.ts): pure functions from a
 * captured answer (status, media type, body) to a check's status, message and evidence. JSON-RPC
 * errors by code (-32001 TaskNotFound, -32601 method not found, -32700 parse error, -32004
 * UnsupportedOperation, -32007 extended card not configured, -32009 VersionNotSupported); HTTP+JSON
 * by status and error body (1.0: google.rpc.Status with an ErrorInfo `reason`; 0.3 SDKs: `{code}`).
 */
import { isRecord } from '../versions.ts';
import { isV1, type DeclaredInterface } from './interfaces.ts';
import { getTaskMethod } from './requests.ts';
import type { LiveEvidence, LiveStatus } from './checks.ts';

/** What came back: the status, the media type, the body read (bounded), how long it took. */
export interface CapturedAnswer {
  status: number;
  contentType: string | null;
  body: string;
  timeMs: number;
}

export interface Judgement {
  status: LiveStatus;
  message: string;
  evidence: LiveEvidence;
}

const CODES: Record<number, string> = {
  [-32700]: 'parse error',
  [-32600]: 'invalid request',
  [-32601]: 'method not found',
  [-32602]: 'invalid params',
  [-32603]: 'internal error',
  [-32001]: 'TaskNotFound',
  [-32004]: 'UnsupportedOperation',
  [-32007]: 'extended card not configured',
  [-32009]: 'VersionNotSupported',
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A JSON-RPC answer's error code, or `result` when it has one; undefined when it is no JSON-RPC answer. */
const rpcOutcome = (answer: CapturedAnswer): { code: number } | { result: unknown } | undefined => {
  const body = parseJson(answer.body);
  if (!isRecord(body) || body.jsonrpc !== '2.0') return undefined;
  if (isRecord(body.error) && typeof body.error.code === 'number') return { code: body.error.code };
  return Object.hasOwn(body, 'result') ? { result: body.result } : undefined;
};

/** An HTTP+JSON error body's A2A reason (`TASK_NOT_FOUND`) or JSON-RPC-style code, as found. */
const restError = (answer: CapturedAnswer): { reason?: string; code?: number; form: '1.0' | '0.3' } | undefined => {
  const body = parseJson(answer.body);
  if (!isRecord(body)) return undefined;
  const error = isRecord(body.error) ? body.error : undefined;
  if (error) {
    const details = Array.isArray(error.details) ? error.details : [];
    const info = details.find((d) => isRecord(d) && typeof d.reason === 'string') as { reason: string } | undefined;
    return { form: '1.0', ...(info ? { reason: info.reason } : {}), ...(typeof error.code === 'number' ? { code: error.code } : {}) };
  }
  return typeof body.code === 'number' ? { form: '0.3', code: body.code } : undefined;
};

const evidenceOf = (answer: CapturedAnswer, more: LiveEvidence = {}): LiveEvidence => ({
  http_status: answer.status,
  content_type: answer.contentType,
  time_ms: answer.timeMs,
  ...more,
});

const described = (code: number): string => `${code}${CODES[code] ? ` (${CODES[code]})` : ''}`;

const judged = (status: LiveStatus, message: string, answer: CapturedAnswer, more: LiveEvidence = {}): Judgement => ({ status, message, evidence: evidenceOf(answer, more) });

/** What an answer is, in words, for messages that report it as is. */
export const describeAnswer = (answer: CapturedAnswer): string => {
  const rpc = rpcOutcome(answer);
  if (rpc && 'code' in rpc) return `HTTP ${answer.status}, JSON-RPC error ${described(rpc.code)}`;
  if (rpc) return `HTTP ${answer.status}, a JSON-RPC result`;
  const rest = restError(answer);
  if (rest) return `HTTP ${answer.status} with ${rest.reason ?? (rest.code === undefined ? 'an error body' : `code ${rest.code}`)}`;
  return `HTTP ${answer.status}${answer.contentType ? ` (${answer.contentType.split(';')[0]})` : ''}`;
};

const needsCredentials = (answer: CapturedAnswer): boolean => answer.status === 401 || answer.status === 403;

const credentialsSkip = (what: string, answer: CapturedAnswer): Judgement =>
  judged('skip', `${what}: the endpoint asks for credentials (HTTP ${answer.status}); give them (--header, options.headers) to check`, answer);

/** Whether an answer is the interface's TaskNotFound, and in which form. */
const taskNotFound = (iface: DeclaredInterface, answer: CapturedAnswer): 'yes' | 'other-form' | 'no' => {
  if (iface.binding !== 'HTTP+JSON') {
    const rpc = rpcOutcome(answer);
    return rpc && 'code' in rpc && rpc.code === -32001 ? 'yes' : 'no';
  }
  if (answer.status !== 404) return 'no';
  const rest = restError(answer);
  if (!rest) return 'no';
  const is1 = rest.reason === 'TASK_NOT_FOUND';
  const is03 = rest.code === -32001;
  if (!is1 && !is03) return rest.form === '1.0' && rest.code === 404 ? 'other-form' : 'no';
  return isV1(iface.version) && !is1 ? 'other-form' : 'yes';
};

/**
 * The declared version, read-only: a get of a task that cannot exist answers TaskNotFound when the
 * endpoint speaks that version; method not found (or the route's own 404) when it does not.
 * `other`: what the other version's get answered, asked only after a failure.
 */
export const judgeVersion = (iface: DeclaredInterface, answer: CapturedAnswer, other?: { version: string; answer: CapturedAnswer }): Judgement => {
  const method = iface.binding === 'HTTP+JSON' ? `GET …${isV1(iface.version) ? '' : '/v1'}/tasks/{id}` : getTaskMethod(iface.version);
  const found = taskNotFound(iface, answer);
  if (found === 'yes') return judged('pass', `speaks ${iface.version}: ${method} for a task that cannot exist answered TaskNotFound`, answer);
  if (found === 'other-form') return judged('warn', `speaks ${iface.version}, but ${method} answered TaskNotFound in another form than ${iface.version}'s (${describeAnswer(answer)})`, answer);
  if (needsCredentials(answer)) return credentialsSkip(`${method}`, answer);
  const rpc = iface.binding === 'HTTP+JSON' ? undefined : rpcOutcome(answer);
  const missing = rpc && 'code' in rpc ? rpc.code === -32601 || rpc.code === -32009 : answer.status === 404 || answer.status === 405;
  const otherSpoken = other !== undefined && taskNotFound({ ...iface, version: other.version }, other.answer) !== 'no';
  const hint = otherSpoken ? `; it answers ${other!.version}'s ${getTaskMethod(other!.version)} instead` : '';
  const more = other ? { [`answer_to_${other.version}`]: describeAnswer(other.answer) } : {};
  if (missing) return judged('fail', `does not speak the declared ${iface.version}: ${method} answered ${describeAnswer(answer)}${hint}`, answer, more);
  if (rpc === undefined && iface.binding !== 'HTTP+JSON') return judged('fail', `no JSON-RPC answer to ${method}: ${describeAnswer(answer)}${hint}`, answer, more);
  if (rpc && 'result' in rpc) return judged('warn', `${method} answered a task for an id that cannot exist`, answer);
  return judged('warn', `${method} answered ${describeAnswer(answer)}: neither TaskNotFound nor method not found`, answer, more);
};

/** 1.0: an unsupported A2A-Version must answer VersionNotSupported (-32009, or HTTP 400). */
export const judgeNegotiation = (iface: DeclaredInterface, answer: CapturedAnswer): Judgement => {
  if (needsCredentials(answer)) return credentialsSkip('A2A-Version: 99.0', answer);
  if (iface.binding === 'HTTP+JSON') {
    const reason = restError(answer)?.reason;
    if (answer.status === 400) return judged('pass', `A2A-Version: 99.0 answered HTTP 400${reason ? ` ${reason}` : ''} (VersionNotSupported)`, answer);
    return judged('fail', `A2A-Version: 99.0 answered ${describeAnswer(answer)}, not VersionNotSupported (HTTP 400)`, answer);
  }
  const rpc = rpcOutcome(answer);
  if (rpc && 'code' in rpc && rpc.code === -32009) return judged('pass', 'A2A-Version: 99.0 answered VersionNotSupported (-32009)', answer);
  return judged('fail', `A2A-Version: 99.0 answered ${describeAnswer(answer)}, not VersionNotSupported (-32009): the version asked for is ignored`, answer);
};

/** Invalid JSON must answer a parse error: -32700 (JSON-RPC), HTTP 400 with an error body (HTTP+JSON). */
export const judgeParseError = (iface: DeclaredInterface, answer: CapturedAnswer): Judgement => {
  if (needsCredentials(answer)) return credentialsSkip('invalid JSON', answer);
  if (iface.binding === 'HTTP+JSON') {
    if (answer.status !== 400) return judged('fail', `invalid JSON answered ${describeAnswer(answer)}, not HTTP 400`, answer);
    return restError(answer)
      ? judged('pass', `invalid JSON answered ${describeAnswer(answer)}`, answer)
      : judged('warn', `invalid JSON answered HTTP 400, but not with the binding's JSON error body`, answer);
  }
  const rpc = rpcOutcome(answer);
  if (rpc && 'code' in rpc && rpc.code === -32700) return judged('pass', 'invalid JSON answered -32700 (parse error)', answer);
  return judged('fail', `invalid JSON answered ${describeAnswer(answer)}, not -32700 (parse error)`, answer);
};

/** An unknown method must answer -32601 (JSON-RPC); an unknown route 404 or 405 (HTTP+JSON). */
export const judgeUnknownMethod = (iface: DeclaredInterface, answer: CapturedAnswer): Judgement => {
  if (needsCredentials(answer)) return credentialsSkip('an unknown method', answer);
  if (iface.binding === 'HTTP+JSON') {
    if (answer.status === 404 || answer.status === 405) return judged('pass', `an unknown route answered HTTP ${answer.status}`, answer);
    return judged(answer.status >= 200 && answer.status < 300 ? 'fail' : 'warn', `an unknown route answered ${describeAnswer(answer)}, not 404`, answer);
  }
  const rpc = rpcOutcome(answer);
  if (rpc && 'code' in rpc && rpc.code === -32601) return judged('pass', 'an unknown method answered -32601 (method not found)', answer);
  return judged('fail', `an unknown method answered ${describeAnswer(answer)}, not -32601 (method not found)`, answer);
};

/** Whether an answer carries an agent card (the JSON-RPC result, or the HTTP+JSON body). */
const carriesCard = (iface: DeclaredInterface, answer: CapturedAnswer): boolean => {
  if (answer.status < 200 || answer.status >= 300) return false;
  const rpc = iface.binding === 'HTTP+JSON' ? undefined : rpcOutcome(answer);
  const card = iface.binding === 'HTTP+JSON' ? parseJson(answer.body) : rpc && 'result' in rpc ? rpc.result : undefined;
  return isRecord(card) && typeof card.name === 'string';
};

/**
 * The extended card. Declared: without credentials it answers 401 or 403, with them (when given)
 * the card. Not declared: UnsupportedOperation (-32004, HTTP 400); 0.3 agents may say -32007.
 */
export const judgeExtendedCard = (iface: DeclaredInterface, declared: boolean, anonymous: CapturedAnswer, withCredentials?: CapturedAnswer): Judgement => {
  if (declared) {
    if (carriesCard(iface, anonymous)) return judged('fail', 'the extended card is served without credentials: it is meant for authenticated clients', anonymous);
    if (!needsCredentials(anonymous)) return judged('fail', `declared, but without credentials it answered ${describeAnswer(anonymous)}, not 401 or 403`, anonymous);
    if (!withCredentials) return judged('pass', `declared; without credentials it answered HTTP ${anonymous.status} (not checked with credentials: none given)`, anonymous);
    return carriesCard(iface, withCredentials)
      ? judged('pass', `declared; HTTP ${anonymous.status} without credentials, the card with them`, withCredentials, { without_credentials: anonymous.status })
      : judged('fail', `declared, but with the credentials given it answered ${describeAnswer(withCredentials)}, not the card`, withCredentials, { without_credentials: anonymous.status });
  }
  if (carriesCard(iface, anonymous)) return judged('warn', 'an extended card is served though the card does not declare one', anonymous);
  const accepted = iface.binding === 'HTTP+JSON' ? anonymous.status === 400 : (() => {
    const rpc = rpcOutcome(anonymous);
    return rpc !== undefined && 'code' in rpc && (rpc.code === -32004 || (!isV1(iface.version) && rpc.code === -32007));
  })();
  if (accepted) return judged('pass', `not declared, and the extended card answered ${describeAnswer(anonymous)}`, anonymous);
  return judged('warn', `not declared; the extended card answered ${describeAnswer(anonymous)}, not UnsupportedOperation (${iface.binding === 'HTTP+JSON' ? 'HTTP 400' : '-32004'})`, anonymous);
};

/** The opt-in message: a Task or a Message back (JSON-RPC `result`, HTTP+JSON a JSON object). */
export const judgeSendMessage = (iface: DeclaredInterface, answer: CapturedAnswer): Judgement => {
  if (needsCredentials(answer)) return credentialsSkip('the message', answer);
  if (iface.binding === 'HTTP+JSON') {
    const body = parseJson(answer.body);
    return answer.status >= 200 && answer.status < 300 && isRecord(body)
      ? judged('pass', `the marked message was answered (HTTP ${answer.status}, ${Object.keys(body).slice(0, 3).join(', ') || 'an empty object'})`, answer)
      : judged('fail', `the marked message answered ${describeAnswer(answer)}`, answer);
  }
  const rpc = rpcOutcome(answer);
  if (rpc && 'result' in rpc && isRecord(rpc.result)) return judged('pass', 'the marked message was answered with a result', answer, { result: resultKind(rpc.result) });
  return judged('fail', `the marked message answered ${describeAnswer(answer)}`, answer);
};

/** A result's kind: 0.3 `kind`, 1.0 the member it wraps (`task`, `message`). */
const resultKind = (result: Record<string, unknown>): string =>
  typeof result.kind === 'string' ? result.kind : Object.keys(result).find((k) => ['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(k)) ?? 'object';

/** What a probe saw of a stream: its media type, its events' data (as read), whether it ended, and the bounds that stopped it. */
export interface CapturedStream {
  status: number;
  contentType: string | null;
  events: string[];
  /** Text that is no SSE field line (`data:`, `event:`, `id:`, `retry:`, comments). */
  strayLines: number;
  bytes: number;
  firstEventMs: number | null;
  ended: boolean;
  /** Why reading stopped before the stream ended: events, bytes or time. */
  stoppedBy?: string;
}

/** The opt-in streaming request: SSE framing, each event a JSON object (JSON-RPC: a response), the time to the first. */
export const judgeStream = (iface: DeclaredInterface, stream: CapturedStream): Judgement => {
  const evidence: LiveEvidence = {
    http_status: stream.status,
    content_type: stream.contentType,
    events: stream.events.length,
    bytes: stream.bytes,
    first_event_ms: stream.firstEventMs,
    ended: stream.ended,
    ...(stream.stoppedBy ? { stopped_by: stream.stoppedBy } : {}),
  };
  const result = (status: LiveStatus, message: string): Judgement => ({ status, message, evidence });
  if (stream.status === 401 || stream.status === 403) return result('skip', `the stream asks for credentials (HTTP ${stream.status})`);
  if (stream.status < 200 || stream.status >= 300) return result('fail', `the streaming request answered HTTP ${stream.status}`);
  if (!/^text\/event-stream\b/i.test(stream.contentType ?? '')) return result('fail', `the stream is ${stream.contentType ?? 'without a media type'}, not text/event-stream`);
  if (stream.events.length === 0) return result('fail', stream.ended ? 'the stream ended without an event' : `no event before the probe stopped reading (${stream.stoppedBy ?? 'time'})`);
  const bad = stream.events.findIndex((data) => {
    const event = parseJson(data);
    return !isRecord(event) || (iface.binding !== 'HTTP+JSON' && (event.jsonrpc !== '2.0' || !(Object.hasOwn(event, 'result') || Object.hasOwn(event, 'error'))));
  });
  if (bad >= 0) return result('fail', `event ${bad + 1} is not ${iface.binding === 'HTTP+JSON' ? 'a JSON object' : 'a JSON-RPC response'}`);
  if (stream.strayLines > 0) return result('warn', `${stream.strayLines} line(s) of the stream are not SSE fields`);
  if (!stream.ended) return result('warn', `the stream had not ended when the probe stopped reading (${stream.stoppedBy}); first event after ${stream.firstEventMs} ms`);
  return result('pass', `${stream.events.length} event(s) in SSE framing; the first after ${stream.firstEventMs} ms`);
};
