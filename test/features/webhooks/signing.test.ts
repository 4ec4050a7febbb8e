import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { signWebhook } from '../../../src/features/webhooks/signing.ts';

it('matches the Standard Webhooks reference vector', () => {
  // From the standard-webhooks JS library tests (libraries/javascript/src/index.test.ts).
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const body = '{"test": 2432232314}';
  assert.equal(signWebhook(secret, id, 1614265330, body), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

it('signs id.timestamp.body with the decoded secret', () => {
  const key = Buffer.from('0123456789abcdef0123456789abcdef');
  const expected = createHmac('sha256', key).update('val_1.42.{}').digest('base64');
  assert.equal(signWebhook(`whsec_${key.toString('base64')}`, 'val_1', 42, '{}'), `v1,${expected}`);
});
