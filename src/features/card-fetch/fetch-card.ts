/**
 * Fetching an agent card by URL (`cardgate validate https://...`, `{"agent_url": ...}` on the API).
 * A bare origin (`https://agent.example`, no path) means its well-known card: `/.well-known/agent-card.json`,
 * then `/.well-known/agent.json` when the first answers 4xx. Any other URL is fetched as given.
 * Every connection goes through an address policy with the pinned lookup; the whole fetch (fallback and
 * redirects included) has one time limit, and the body one size limit, checked while it arrives.
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { portOf, type AddressPolicy } from '../../lib/address-policy.ts';
import { checkedLookup, describeConnectError } from '../../lib/pinned-lookup.ts';

/** Where a card came from and what the server answered: recorded with the result. */
export interface CardSource {
  /** The URL as given. */
  agent_url: string;
  /** Where the card was read: the well-known path of a bare origin, after redirects. */
  url: string;
  status: number;
  content_type: string | null;
  /** Size of the body, bytes. */
  bytes: number;
  /** The CORS header a browser client needs to read the card (`*` for a public card); null when absent. */
  access_control_allow_origin: string | null;
}

export interface CardFetchOptions {
  policy: AddressPolicy;
  /** For the whole fetch, fallback and redirects included. */
  timeoutMs: number;
  /** Largest body accepted. */
  maxBytes: number;
  userAgent: string;
  /** Follow a redirect to another host (the CLI, run by its user) or refuse it (the service, an SSRF guard). */
  redirectsToOtherHosts: boolean;
  /** Resolver; default dns.lookup. */
  lookup?: LookupFunction;
}

export type FetchedCard = { text: string; source: CardSource } | { problem: string };

const maxRedirects = 5;
const wellKnownPaths = ['/.well-known/agent-card.json', '/.well-known/agent.json'];

/** Whether `text` starts like a URL this module fetches (the CLI's test for an operand). */
export const looksLikeUrl = (text: string): boolean => /^https?:\/\//i.test(text);

/** The URLs tried for `agentUrl`, in order: the two well-known paths for a bare origin, else the URL itself. */
export const cardUrls = (agentUrl: URL): URL[] =>
  agentUrl.pathname === '/' && agentUrl.search === '' && agentUrl.hash === '' ? wellKnownPaths.map((path) => new URL(path, agentUrl)) : [agentUrl];

/**
 * Whether a bare origin's card was found only at the legacy `/.well-known/agent.json` (its
 * agent-card.json answered 4xx): what the engine reports as discovery.legacy-path.
 */
export const foundOnlyAtLegacyPath = (source: CardSource): boolean =>
  URL.canParse(source.agent_url) && cardUrls(new URL(source.agent_url)).length > 1 && URL.canParse(source.url) && new URL(source.url).pathname === wellKnownPaths[1];

type Answer = { status: number; headers: IncomingHttpHeaders; body?: Buffer } | { problem: string };

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
};

/** One GET: the status and headers, and the body of a 2xx answer (read up to the size limit). */
const getOnce = (url: URL, options: CardFetchOptions, deadline: number): Promise<Answer> =>
  new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(answer);
    };
    const req = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': options.userAgent },
        agent: false, // a fresh connection: nothing pooled bypasses the address check
        lookup: checkedLookup(options.policy, options.lookup ?? (dnsLookup as LookupFunction)),
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) return finish({ status, headers: res.headers });
        const declared = Number(res.headers['content-length']);
        const tooBig = `${url.href} sent more than ${options.maxBytes} bytes, the size limit for a card`;
        if (declared > options.maxBytes) return finish({ problem: tooBig });
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > options.maxBytes) finish({ problem: tooBig });
          else chunks.push(chunk);
        });
        res.on('end', () => finish({ status, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', () => finish({ problem: `${url.href}: the answer broke off` }));
      },
    );
    req.on('error', (err) => finish({ problem: `${url.href}: ${describeConnectError(err, url)}` }));
    const timer = setTimeout(() => finish({ problem: `${url.href}: no complete answer within ${options.timeoutMs} ms` }), Math.max(0, deadline - Date.now()));
    req.end();
  });

const isRedirect = (status: number): boolean => [301, 302, 303, 307, 308].includes(status);

/** One URL, following redirects as the options allow: the final answer, or why there is none. */
const getFollowing = async (start: URL, options: CardFetchOptions, deadline: number): Promise<{ url: URL; answer: Answer }> => {
  let url = start;
  for (let hops = 0; ; hops++) {
    // Away from the host and port given, only what the list names with its port (or public) is admitted.
    const policy = options.policy.forUrl(url, url.hostname !== start.hostname || portOf(url) !== portOf(start));
    const refusal = policy.refuseUrl(url.href);
    if (refusal) return { url, answer: { problem: refusal } };
    const answer = await getOnce(url, { ...options, policy }, deadline);
    const location = 'status' in answer && isRedirect(answer.status) ? header(answer.headers, 'location') : null;
    if (location === null) return { url, answer };
    if (hops === maxRedirects) return { url, answer: { problem: `${start.href}: more than ${maxRedirects} redirects` } };
    const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      return { url, answer: { problem: `${url.href} redirected to ${JSON.stringify(location)}, not an http(s) URL` } };
    }
    if (!options.redirectsToOtherHosts && next.hostname !== url.hostname) {
      return { url, answer: { problem: `${url.href} redirected to ${next.href}, another host: not followed` } };
    }
    url = next;
  }
};

/** Fetches the card named by `agentUrl`: its text and where it came from, or what went wrong (with what each URL tried answered). */
export const fetchCard = async (agentUrl: string, options: CardFetchOptions): Promise<FetchedCard> => {
  const refusal = options.policy.refuseUrl(agentUrl);
  if (refusal) return { problem: refusal };
  const deadline = Date.now() + options.timeoutMs;
  const answered: string[] = [];
  for (const url of cardUrls(new URL(agentUrl))) {
    const { url: finalUrl, answer } = await getFollowing(url, options, deadline);
    if ('problem' in answer) return { problem: [...answered, answer.problem].join('; ') };
    if (answer.body) {
      const source: CardSource = {
        agent_url: agentUrl,
        url: finalUrl.href,
        status: answer.status,
        content_type: header(answer.headers, 'content-type'),
        bytes: answer.body.length,
        access_control_allow_origin: header(answer.headers, 'access-control-allow-origin'),
      };
      return { text: answer.body.toString('utf8'), source };
    }
    answered.push(`${finalUrl.href} answered HTTP ${answer.status}`);
    if (answer.status < 400 || answer.status >= 500) break; // only a client error (404, 403, 410) sends us to the next well-known path
  }
  return { problem: answered.join('; ') };
};
