/** The settings that bound what callers may send and how often: daily quotas, webhook rates, body sizes, batches. */
import * as z from 'zod';
import { parseIpRule } from '../lib/ip.ts';
import { section, setting } from './setting.ts';
import { positiveInt } from './values.ts';

/** A daily limit; -1 means unlimited. */
const dailyLimit = () => z.number().int().min(-1);

/** An IP or CIDR (v4/v6); the issue says what is wrong with it. */
const ipRule = () =>
  z.string().superRefine((value, ctx) => {
    try {
      parseIpRule(value);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });

export const limits = section({
  daily: section({
    anonymous: setting({ type: 'number', schema: dailyLimit, default: 5, env: 'CARDGATE_LIMIT_ANONYMOUS', doc: 'validations per UTC day without a key (-1 = unlimited)' }),
    free: setting({ type: 'number', schema: dailyLimit, default: 10, env: 'CARDGATE_LIMIT_FREE', doc: 'per day, free plan' }),
    pro: setting({ type: 'number', schema: dailyLimit, default: -1, env: 'CARDGATE_LIMIT_PRO', doc: 'per day, pro plan' }),
    team: setting({ type: 'number', schema: dailyLimit, default: -1, env: 'CARDGATE_LIMIT_TEAM', doc: 'per day, team plan' }),
  }),
  webhookPerIpPerMinute: setting({ type: 'number', schema: positiveInt, default: 100, env: 'CARDGATE_WEBHOOK_PER_IP_PER_MINUTE', doc: 'webhook calls per client IP per minute' }),
  webhookGlobalPerHour: setting({ type: 'number', schema: positiveInt, default: 10000, env: 'CARDGATE_WEBHOOK_GLOBAL_PER_HOUR', doc: 'webhook calls per hour, all clients' }),
  trustedProxies: setting({
    type: 'list',
    schema: () => z.array(ipRule()),
    default: [],
    env: 'CARDGATE_TRUSTED_PROXIES',
    doc: 'proxies (socket addresses: IPs or CIDRs) whose `X-Forwarded-For` is believed',
  }),
});

export const http = section({
  maxBodyBytes: setting({ type: 'number', schema: positiveInt, default: 1024 * 1024, env: 'CARDGATE_MAX_BODY_BYTES', doc: 'largest request body on single endpoints, bytes' }),
  maxBatchBodyBytes: setting({ type: 'number', schema: positiveInt, default: 10 * 1024 * 1024, env: 'CARDGATE_MAX_BATCH_BODY_BYTES', doc: 'largest request body on the batch endpoint, bytes' }),
  // Real cards are under 20 deep; at most 1000, a depth every recursive reader of a stored body
  // (serializer, cloner, report page) handles with room to spare.
  maxJsonDepth: setting({
    type: 'number',
    schema: () => z.number().int().min(4).max(1000),
    default: 64,
    env: 'CARDGATE_MAX_JSON_DEPTH',
    doc: 'deepest nesting of arrays and objects in any JSON body (the card and its wrapper); see [Limits](limits.md#limits)',
  }),
});

export const batch = section({
  maxCards: setting({ type: 'number', schema: positiveInt, default: 100, env: 'CARDGATE_BATCH_MAX_CARDS', doc: 'cards per batch' }),
});
