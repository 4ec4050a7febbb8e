/**
 * The card as its agent serves it: fetched at its well-known path (agent-card.json, else the
 * legacy agent.json; redirects followed, each hop checked) with `Origin` set, then a conditional
 * request (caching) and a CORS preflight. Checks: live.card.delivery, .media-type, .caching,
 * .cors, and .matches when a card was given to compare.
 */
import { cardUrls } from '../card-fetch/fetch-card.ts';
import { liveCheck, type LiveCheck } from '../../engine/live/checks.ts';
import { conditionalHeaders, judgeCaching, judgeCors, judgeDelivery, judgeMatches, judgeMediaType, PROBE_ORIGIN, type CardAnswer } from '../../engine/live/judge-card.ts';
import { parseJsonObject } from '../../lib/json.ts';
import { MAX_ANSWER_BYTES, type ProbeSession, type Sent } from './client.ts';

export interface ServedCard {
  text: string;
  value: Record<string, unknown>;
  /** Where it was read, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  bytes: number;
  legacyPath: boolean;
  accessControlAllowOrigin: string | null;
}

export interface CardProbe {
  checks: LiveCheck[];
  card?: ServedCard;
  /** Why no card was read (the probe could not go on without one). */
  problem?: string;
}

const accept = 'application/json, application/a2a+json';

/** The card's GET at each well-known path in turn (only a 4xx sends it to the next): the answer read, or why none. */
const fetchServed = async (session: ProbeSession, cardUrl: string): Promise<{ sent: Sent; legacyPath: boolean } | { problem: string; skipped: boolean }> => {
  const urls = cardUrls(new URL(cardUrl));
  const answered: string[] = [];
  for (const [i, url] of urls.entries()) {
    const sent = await session.send({ method: 'GET', url: url.href, headers: { accept, origin: PROBE_ORIGIN } }, true);
    if ('skipped' in sent) return { problem: [...answered, sent.skipped].join('; '), skipped: answered.length === 0 };
    if ('failed' in sent) return { problem: [...answered, `${sent.failed.url}: ${sent.failed.problem ?? 'no answer'}`].join('; '), skipped: false };
    const status = sent.answer.status;
    if (status >= 200 && status < 300) return { sent, legacyPath: i > 0 };
    answered.push(`${sent.url} answered HTTP ${status}`);
    if (status < 400 || status >= 500) break;
  }
  return { problem: answered.join('; '), skipped: false };
};

const cardAnswerOf = (sent: Sent, legacyPath: boolean, isJsonObject: boolean): CardAnswer => ({
  url: sent.url,
  status: sent.answer.status,
  headers: sent.answer.headers,
  bytes: Buffer.byteLength(sent.answer.body),
  timeMs: sent.answer.timeMs,
  redirects: sent.redirects,
  legacyPath,
  isJsonObject,
});

/** The conditional GET (If-None-Match, else If-Modified-Since): its status, or null when there is no validator to send or it was not sent. */
const conditionalStatus = async (session: ProbeSession, answer: CardAnswer): Promise<number | null> => {
  const headers = conditionalHeaders(answer);
  if (!headers) return null;
  const sent = await session.send({ method: 'GET', url: answer.url, headers: { accept, ...headers } });
  return 'answer' in sent ? sent.answer.status : null;
};

/** The CORS preflight a browser client sends before a GET with A2A-Version. */
const preflight = async (session: ProbeSession, url: string) => {
  const sent = await session.send({ method: 'OPTIONS', url, headers: { origin: PROBE_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'a2a-version' } });
  return 'answer' in sent ? { status: sent.answer.status, headers: sent.answer.headers } : null;
};

const fromJudgement = (id: Parameters<typeof liveCheck>[0], j: { status: LiveCheck['status']; message: string; evidence: LiveCheck['evidence'] }): LiveCheck => liveCheck(id, j.status, j.message, j.evidence);

/** Probes the card at `cardUrl` (a bare origin means its well-known paths); `given`: the card validated, compared with the one served. */
export const probeCard = async (session: ProbeSession, cardUrl: string, maxDepth: number, given?: Record<string, unknown>): Promise<CardProbe> => {
  const fetched = await fetchServed(session, cardUrl);
  if ('problem' in fetched) {
    return { checks: [liveCheck('live.card.delivery', fetched.skipped ? 'skip' : 'fail', fetched.skipped ? fetched.problem : `no card: ${fetched.problem}`, { url: cardUrl })], problem: fetched.problem };
  }
  const { sent, legacyPath } = fetched;
  const text = sent.answer.body;
  const tooBig = Buffer.byteLength(text) >= MAX_ANSWER_BYTES;
  const parsed = tooBig ? { problem: `the card is larger than ${MAX_ANSWER_BYTES} bytes` } : parseJsonObject(text, maxDepth, `the card at ${sent.url}`);
  const answer = cardAnswerOf(sent, legacyPath, 'value' in parsed);
  const delivery = judgeDelivery(answer);
  const checks = [fromJudgement('live.card.delivery', 'value' in parsed ? delivery : { ...delivery, message: `${delivery.message}: ${parsed.problem}` }), fromJudgement('live.card.media-type', judgeMediaType(answer))];
  checks.push(fromJudgement('live.card.caching', judgeCaching(answer, await conditionalStatus(session, answer))));
  checks.push(fromJudgement('live.card.cors', judgeCors(answer, await preflight(session, answer.url))));
  if (!('value' in parsed)) return { checks, problem: parsed.problem };
  if (given) checks.push(fromJudgement('live.card.matches', judgeMatches(given, parsed.value, answer.url)));
  return {
    checks,
    card: { text, value: parsed.value, url: answer.url, status: answer.status, contentType: answer.headers['content-type'] ?? null, bytes: answer.bytes, legacyPath, accessControlAllowOrigin: answer.headers['access-control-allow-origin'] ?? null },
  };
};
