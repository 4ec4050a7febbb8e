import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ipLimitKey } from '../../../src/features/limits/ip-limit-key.ts';

test('ipLimitKey counts IPv6 per /56 and IPv4 per address', () => {
  assert.equal(ipLimitKey('192.0.2.1'), '192.0.2.1');
  assert.equal(ipLimitKey('2001:db8:1:ff42::1'), '2001:db8:1:ff00::/56');
  assert.equal(ipLimitKey('2001:db8:1:ffff:ffff:ffff:ffff:ffff'), '2001:db8:1:ff00::/56');
  assert.equal(ipLimitKey('::1'), '0:0:0:0::/56');
});
