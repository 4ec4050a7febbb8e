/**
 * POST /v1/validate with `agent_url`: the service fetches the card itself, under the same SSRF
 * policy as webhook callbacks but with an allow-list of its own (`cardFetch.allowedHosts`): a card
 * fetch shows the caller what the target answered, so letting callbacks reach a LAN must not let
 * callers read it. No redirect to another host is followed; time (`cardFetch.timeoutMs`) and size
 * (`http.maxBodyBytes`, as for a card sent in the body) are bounded. A URL that cannot give a card
 * is the request's 400, at `agent_url`, saying what the server answered.
 */
import type { LookupFunction } from 'node:net';
import type { Config } from '../../config.ts';
import { createAddressPolicy, type PolicyUse } from '../../lib/address-policy.ts';
import { fetchCard, type CardSource } from '../card-fetch/fetch-card.ts';
import { version } from '../../lib/version.ts';
import { unusable } from './validation.ts';

/** How the address policy speaks of card fetches. */
export const cardFetchUse: PolicyUse = { field: 'agent_url', connections: 'card fetches', setting: 'cardFetch.allowedHosts' };

export interface CardFetcher {
  /** Throws the 400 of a URL refused before any connection (not http(s), too long, a refused literal address). */
  check(agentUrl: string): void;
  /** The card's text and where it came from; throws the 400 saying why there is none. */
  fetch(agentUrl: string): Promise<{ text: string; source: CardSource }>;
}

const refusedAt = (message: string) => unusable([{ path: 'agent_url', message }]);

export const cardFetcher = (config: Config, lookup?: LookupFunction): CardFetcher => {
  const policy = createAddressPolicy(config.cardFetch.allowedHosts, cardFetchUse);
  const options = {
    policy,
    timeoutMs: config.cardFetch.timeoutMs,
    maxBytes: config.http.maxBodyBytes,
    userAgent: `${config.serviceName}/${version}`,
    redirectsToOtherHosts: false,
    lookup,
  };
  return {
    check: (agentUrl) => {
      const refusal = policy.refuseUrl(agentUrl);
      if (refusal) throw refusedAt(refusal);
    },
    fetch: async (agentUrl) => {
      const fetched = await fetchCard(agentUrl, options);
      if ('problem' in fetched) throw refusedAt(`no card fetched: ${fetched.problem}`);
      return fetched;
    },
  };
};
