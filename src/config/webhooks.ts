/** The settings of webhook callbacks: where they may go, how they are signed, and the job queue that runs them. */
import * as z from 'zod';
import { optionalSetting, section, setting } from './setting.ts';
import { positiveInt } from './values.ts';

export const webhooks = section({
  callbackTimeoutMs: setting({ type: 'number', schema: positiveInt, default: 10000, env: 'CARDGATE_CALLBACK_TIMEOUT_MS', doc: 'callback delivery timeout, ms (no retries)' }),
  signingSecret: optionalSetting({
    type: 'string',
    schema: () => z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must look like whsec_<base64>'),
    unsetMeans: 'callbacks unsigned',
    env: 'CARDGATE_WEBHOOK_SECRET',
    doc: '`whsec_<base64>`: sign callbacks (Standard Webhooks)',
  }),
  allowedHosts: setting({
    type: 'list',
    schema: () => z.array(z.string().min(1)),
    default: [],
    env: 'CARDGATE_WEBHOOK_ALLOWED_HOSTS',
    doc: 'callback targets allowed beyond public addresses: `loopback`, `private`, CIDRs, host names (`*.corp.example`), and a host or address with a port (`hooks.corp.example:8443`, `10.1.2.3:8080`, `[fd00::1]:8443`: that port only). An entry without a port admits every port of what it names; see [Host and port in allow lists](#host-and-port-in-allow-lists)',
  }),
  concurrency: setting({ type: 'number', schema: positiveInt, default: 8, env: 'CARDGATE_WEBHOOK_CONCURRENCY', doc: 'callback jobs run at once' }),
  maxQueued: setting({ type: 'number', schema: positiveInt, default: 10000, doc: 'queued jobs beyond this are refused (503), counted over every instance sharing the store' }),
  pollIntervalMs: setting({
    type: 'number',
    schema: positiveInt,
    default: 1000,
    env: 'CARDGATE_WEBHOOK_POLL_INTERVAL_MS',
    doc: 'how often a runner with a free slot looks for jobs accepted by another instance or whose lease ended, ms',
  }),
  jobLeaseMs: setting({
    type: 'number',
    schema: positiveInt,
    default: 30000,
    env: 'CARDGATE_WEBHOOK_JOB_LEASE_MS',
    doc: 'how long a runner holds a claimed job, ms (renewed every third of it while it runs); another instance takes the job over once it ends',
  }),
});
