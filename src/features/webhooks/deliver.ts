/**
 * One callback delivery: POST the exact body once (the synchronous result's body),
 * with a time limit, no retries, no redirects followed, and the SSRF policy
 * applied to the address actually connected to (src/lib/pinned-lookup.ts).
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy, PolicyUse } from '../../lib/address-policy.ts';
import { checkedLookup, describeConnectError } from '../../lib/pinned-lookup.ts';
import { systemScheduler, type Scheduler } from '../../lib/scheduler.ts';
import { signWebhook } from './signing.ts';

/** How the address policy speaks of callbacks. */
export const callbackUse: PolicyUse = { field: 'callback_url', connections: 'callbacks', setting: 'webhooks.allowedHosts' };

export interface Delivery {
  url: string;
  /** `webhook-id`: the validation id, stable across redeliveries. */
  id: string;
  /** The exact bytes sent (and signed). */
  body: string;
  timestampSeconds: number;
  signingSecret?: string;
  timeoutMs: number;
  userAgent: string;
  policy: AddressPolicy;
  /** Resolver; default dns.lookup. */
  lookup?: LookupFunction;
  /** Aborts the delivery (shutdown deadline): the outcome is then `aborted`, unless the receiver already answered. */
  signal?: AbortSignal;
  /** Runs the time limit; default the system's. */
  scheduler?: Scheduler;
}

/** What is stored on the job. */
export interface DeliveryOutcome {
  state: 'delivered' | 'failed';
  status_code?: number;
  error?: string;
}

/** Stopped by the signal before the receiver answered: not an outcome to store (the delivery runs again). */
export interface AbortedDelivery {
  state: 'aborted';
  error: string;
}

/** The receiver's answer is read up to this size and discarded. */
const maxResponseBytes = 64 * 1024;

const outcomeOf = (status: number): DeliveryOutcome => {
  if (status >= 200 && status < 300) return { state: 'delivered', status_code: status };
  if (status >= 300 && status < 400) {
    return { state: 'failed', status_code: status, error: `receiver redirected (HTTP ${status}); redirects are not followed` };
  }
  return { state: 'failed', status_code: status, error: `receiver answered HTTP ${status}` };
};

export const deliverCallback = (delivery: Delivery): Promise<DeliveryOutcome | AbortedDelivery> => {
  const refusal = delivery.policy.refuseUrl(delivery.url);
  if (refusal) return Promise.resolve({ state: 'failed', error: refusal });
  const url = new URL(delivery.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(delivery.body)),
    'user-agent': delivery.userAgent,
    'webhook-id': delivery.id,
    'webhook-timestamp': String(delivery.timestampSeconds),
  };
  if (delivery.signingSecret) {
    headers['webhook-signature'] = signWebhook(delivery.signingSecret, delivery.id, delivery.timestampSeconds, delivery.body);
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let status: number | undefined;
    let settled = false;
    const finish = (outcome: DeliveryOutcome | AbortedDelivery) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      delivery.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(outcome);
    };
    // Once the status line arrived, it decides the outcome whatever happens to the body.
    const stop = (error: string) => finish(status === undefined ? { state: 'failed', error } : outcomeOf(status));

    const req = send(
      url,
      {
        method: 'POST',
        headers,
        agent: false, // a fresh connection: nothing pooled bypasses the address check
        // Checked with the entries of the URL's port (a `host:port` entry admits that port only).
        lookup: checkedLookup(delivery.policy.forUrl(url, false), delivery.lookup ?? (dnsLookup as LookupFunction)),
      },
      (res: IncomingMessage) => {
        status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > maxResponseBytes) stop('response body over 64 KiB (ignored)');
        });
        res.on('end', () => stop('response ended'));
        res.on('error', () => stop('response aborted'));
      },
    );
    req.on('error', (err) => stop(describeConnectError(err, url)));
    const timer = (delivery.scheduler ?? systemScheduler).timeout(() => stop(`no response within ${delivery.timeoutMs} ms`), delivery.timeoutMs);
    const onAbort = () => {
      const reason = delivery.signal?.reason;
      finish(status === undefined ? { state: 'aborted', error: reason instanceof Error ? reason.message : String(reason ?? 'aborted') } : outcomeOf(status));
    };
    if (delivery.signal?.aborted) return onAbort();
    delivery.signal?.addEventListener('abort', onAbort);
    req.end(delivery.body);
  });
};
