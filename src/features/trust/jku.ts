/**
 * `signatures.fetchJku`: the keys published at the `jku` URLs a request's signatures name. Off by
 * default (a key found through the card itself proves only that the card's author controls that
 * URL). Fetched under the callback SSRF policy (public addresses, plus `webhooks.allowedHosts`) with
 * the pinned lookup, no redirect to another host, bounded in time and size, and cached: a JWKS for
 * JWKS_TTL_MS, a failure for FAILURE_TTL_MS, so a card cannot make the service fetch on every request.
 */
import type { LookupFunction } from 'node:net';
import type { Config } from '../../config.ts';
import { decodeProtectedHeader } from '../../engine/signatures/protected-header.ts';
import { parseJwks } from '../../engine/signatures/jwks.ts';
import type { TrustedKey } from '../../engine/signatures/trusted-key.ts';
import { createAddressPolicy } from '../../lib/address-policy.ts';
import { fetchCard } from '../card-fetch/fetch-card.ts';
import type { Logger } from '../../lib/log.ts';
import { version } from '../../lib/version.ts';

const JWKS_TTL_MS = 10 * 60_000;
const FAILURE_TTL_MS = 60_000;
/** Largest JWKS read, bytes: a few keys take a few KiB. */
const MAX_JWKS_BYTES = 64 * 1024;
/** URLs kept at most; the oldest entry goes first. */
const MAX_CACHED = 1000;
/** jku URLs fetched per request at most: the rest stay untrusted (their signatures get the jku warning). */
const MAX_PER_REQUEST = 4;

/** A signature's `protected` member in a body's text: found without parsing the body (that is the worker's job). */
const protectedMember = /"protected"\s*:\s*"([A-Za-z0-9_-]{1,4096})"/g;

/** The distinct `jku` URLs named by the protected headers in a request body's text, in order. */
export function jkusIn(text: string): string[] {
  const found = new Set<string>();
  for (const [, value] of text.matchAll(protectedMember)) {
    const header = decodeProtectedHeader(value!);
    if (typeof header !== 'string' && typeof header.jku === 'string') found.add(header.jku);
  }
  return [...found];
}

export interface JkuFetcher {
  /** The keys published at the jku URLs the body's signatures name (each key bound to its URL). */
  keysFor(text: string): Promise<TrustedKey[]>;
}

export const jkuUse = { field: 'jku', connections: 'jku fetches', setting: 'webhooks.allowedHosts' };

export function jkuFetcher(config: Config, log: Logger, now: () => number, lookup?: LookupFunction): JkuFetcher {
  const cache = new Map<string, { until: number; keys: TrustedKey[] }>();
  const options = {
    policy: createAddressPolicy(config.webhooks.allowedHosts, jkuUse),
    timeoutMs: config.cardFetch.timeoutMs,
    maxBytes: MAX_JWKS_BYTES,
    userAgent: `${config.serviceName}/${version}`,
    redirectsToOtherHosts: false,
    ...(lookup ? { lookup } : {}),
  };

  const fetchKeys = async (jku: string): Promise<{ keys: TrustedKey[]; ttl: number }> => {
    const fetched = await fetchCard(jku, options);
    let problem = 'problem' in fetched ? fetched.problem : undefined;
    let keys: TrustedKey[] = [];
    if (!('problem' in fetched)) {
      try {
        const parsed = parseJwks(JSON.parse(fetched.text), { addedAt: new Date(now()).toISOString(), jku });
        // One key per kid (the first), as kids in a set are meant to be distinct: else a set of many keys
        // under one kid would make each signature naming it cost a verification per key.
        const kids = new Set<string>();
        keys = parsed.keys.filter((k) => !kids.has(k.kid) && kids.add(k.kid));
        if (parsed.problems.length) problem = parsed.problems.join('; ');
      } catch {
        problem = 'not JSON';
      }
    }
    if (problem !== undefined) log.warn('jku keys not all taken', { jku, problem });
    return { keys, ttl: keys.length > 0 ? JWKS_TTL_MS : FAILURE_TTL_MS };
  };

  const keysAt = async (jku: string): Promise<TrustedKey[]> => {
    const cached = cache.get(jku);
    if (cached && cached.until > now()) return cached.keys;
    // A bare origin would be read as an agent card's origin (its well-known card): a jku names its JWKS.
    if (URL.canParse(jku) && new URL(jku).pathname === '/') return [];
    const { keys, ttl } = await fetchKeys(jku);
    cache.delete(jku);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(jku, { until: now() + ttl, keys });
    return keys;
  };

  return {
    keysFor: async (text) => (await Promise.all(jkusIn(text).slice(0, MAX_PER_REQUEST).map(keysAt))).flat(),
  };
}
