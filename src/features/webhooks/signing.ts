/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, v1 = HMAC-SHA256).
 * The signed content is `<webhook-id>.<webhook-timestamp>.<body>` over the exact
 * body bytes sent; the key is the base64 part of `whsec_<base64>`.
 */
import { createHmac } from 'node:crypto';

const secretKey = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/** The `webhook-signature` header value: `v1,<base64 signature>`. */
export const signWebhook = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
