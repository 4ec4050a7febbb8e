/** The settings of a validation: its time and workers, fetching cards by URL, signatures, the server's ruleset. */
import * as z from 'zod';
import { signatureAlgorithms } from '../engine/signatures/algorithms.ts';
import { optionalSetting, section, setting } from './setting.ts';
import { positiveInt } from './values.ts';

export const validation = section({
  timeoutMs: setting({
    type: 'number',
    schema: positiveInt,
    default: 30000,
    env: 'CARDGATE_VALIDATION_TIMEOUT_MS',
    doc: 'validation time limit, ms, every endpoint and webhook job; a worker past it is stopped',
  }),
  maxFindings: setting({
    type: 'number',
    schema: () => z.number().int().min(1).max(100000),
    default: 200,
    env: 'CARDGATE_MAX_FINDINGS',
    doc: 'errors, warnings and suggestions kept per card, each; the answer counts the rest in `truncated`',
  }),
  workers: optionalSetting({
    type: 'number',
    schema: () => z.number().int().min(0).max(64),
    unsetMeans: 'cores − 1 (1 to 4)',
    env: 'CARDGATE_VALIDATION_WORKERS',
    doc: 'worker threads that validate request bodies and webhook jobs; `0` = in the event loop',
  }),
  maxWorkersPerCaller: optionalSetting({
    type: 'number',
    schema: () => z.number().int().min(1).max(64),
    unsetMeans: 'all workers but one (1 with one worker)',
    env: 'CARDGATE_VALIDATION_MAX_WORKERS_PER_CALLER',
    doc: 'the most workers one caller\'s tasks hold at once: an account\'s (its keys, monitors and webhook jobs), a keyless caller\'s address (IPv6 per /56); waiting tasks are served one caller at a time in turn (see [limits.md](limits.md))',
  }),
});

export const cardFetch = section({
  timeoutMs: setting({
    type: 'number',
    schema: positiveInt,
    default: 10000,
    env: 'CARDGATE_CARD_FETCH_TIMEOUT_MS',
    doc: 'longest fetch of a card by URL (`agent_url`, `cardgate validate URL`), ms, fallback and redirects included',
  }),
  allowedHosts: setting({
    type: 'list',
    schema: () => z.array(z.string().min(1)),
    default: [],
    env: 'CARDGATE_CARD_FETCH_ALLOWED_HOSTS',
    doc: 'hosts `agent_url` may be fetched from beyond public addresses (same vocabulary as `webhooks.allowedHosts`, `host:port` included); a redirect is followed only on the same host, and to another port only when a `host:port` entry names it (or the address is public)',
  }),
});

export const signatures = section({
  trustFiles: setting({
    type: 'list',
    schema: () => z.array(z.string().min(1)),
    default: [],
    env: 'CARDGATE_SIGNATURE_TRUST_FILES',
    doc: 'JWKS files of trusted signing keys, read at start (and on SIGHUP) with `<dataDir>/trust/*.jwks` ([Signed cards](signing.md#signed-cards))',
  }),
  allowedAlgorithms: setting({
    type: 'list',
    schema: () => z.array(z.enum(signatureAlgorithms)).min(1),
    default: [...signatureAlgorithms],
    env: 'CARDGATE_SIGNATURE_ALGORITHMS',
    doc: 'signature algorithms accepted; `none` and HMAC are not signature algorithms here, so never accepted',
  }),
  requireSignature: setting({
    type: 'boolean',
    schema: () => z.boolean(),
    default: false,
    env: 'CARDGATE_REQUIRE_SIGNATURE',
    doc: 'a card without a signature that verifies with a trusted key is an error',
  }),
  fetchJku: setting({
    type: 'boolean',
    schema: () => z.boolean(),
    default: false,
    env: 'CARDGATE_FETCH_JKU',
    doc: 'fetch the JWKS a signature\'s `jku` names (public addresses only, as callbacks), cached; see [Signed cards](signing.md#signed-cards)',
  }),
});

export const rules = section({
  ruleset: optionalSetting({
    type: 'string',
    schema: () => z.string().min(1).max(4096),
    unsetMeans: 'the catalogue\'s severities',
    env: 'CARDGATE_RULESET',
    doc: 'the server\'s default ruleset: a ruleset file (YAML or JSON, read at start and on SIGHUP) or a built-in name (`cardgate:strict`, `cardgate:spec`, `cardgate:recommended`). Requests are judged by it unless their key\'s account has a ruleset of its own. A bad file stops the start, each problem at `file:line:column`; a bad one on SIGHUP is logged and the one in use stays. See [Rulesets on the server](rulesets.md#rulesets-on-the-server)',
  }),
});
