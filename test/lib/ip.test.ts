import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipMatcher, normalizeIp, parseIpRule, resolveClientIp, UNKNOWN_IP } from '../../src/lib/ip.ts';

test('normalizeIp strips ports, brackets and zones, unmaps IPv4-mapped IPv6, rejects non-IPs', () => {
  assert.equal(normalizeIp('1.2.3.4'), '1.2.3.4');
  assert.equal(normalizeIp(' 1.2.3.4:8080 '), '1.2.3.4');
  assert.equal(normalizeIp('[2001:DB8::1]:443'), '2001:db8::1');
  assert.equal(normalizeIp('fe80::1%eth0'), 'fe80::1');
  assert.equal(normalizeIp('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(normalizeIp('::ffff:c000:201'), '192.0.2.1');
  for (const bad of [undefined, '', 'example.com', '1.2.3', '1.2.3.4.5', 'unknown']) assert.equal(normalizeIp(bad), undefined, String(bad));
});

test('parseIpRule accepts IPs and CIDRs and names what is wrong otherwise', () => {
  assert.equal(parseIpRule('10.0.0.0/8').text, '10.0.0.0/8');
  assert.equal(parseIpRule('192.0.2.7/32').text, '192.0.2.7');
  assert.equal(parseIpRule('2001:db8::/32').text, '2001:db8::/32');
  assert.equal(parseIpRule('::ffff:10.0.0.0/104').text, '10.0.0.0/8');
  assert.throws(() => parseIpRule('10.0.0.0/33'), /prefix length outside 0\.\.32/);
  assert.throws(() => parseIpRule('10.0.0.0/x'), /invalid prefix length/);
  assert.throws(() => parseIpRule('example.com'), /not an IP address or CIDR/);
  assert.throws(() => parseIpRule('1.2.3.4:80'), /not an IP address or CIDR/);
  assert.throws(() => parseIpRule('1.2.3.4/8/9'), /not an IP address or CIDR/);
});

test('ipMatcher matches v4 and v6 subnets and IPv4-mapped addresses', () => {
  const inList = ipMatcher(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
  assert.ok(inList('10.200.0.1'));
  assert.ok(inList('::ffff:10.0.0.1'));
  assert.ok(inList('2001:db8:ffff::1'));
  assert.ok(inList('192.0.2.7'));
  assert.ok(!inList('192.0.2.8'));
  assert.ok(!inList('2001:db9::1'));
  assert.ok(!inList(UNKNOWN_IP));
  assert.ok(!ipMatcher([])('10.0.0.1'));
});

test('resolveClientIp trusts X-Forwarded-For only behind trusted proxies', () => {
  const trusted = ipMatcher(['127.0.0.1', '10.0.0.0/8']);
  assert.equal(resolveClientIp(undefined, '1.1.1.1', trusted), UNKNOWN_IP);
  assert.equal(resolveClientIp('198.51.100.1', '1.1.1.1', trusted), '198.51.100.1');
  assert.equal(resolveClientIp('127.0.0.1', undefined, trusted), '127.0.0.1');
  assert.equal(resolveClientIp('127.0.0.1', '5.5.5.5, 1.1.1.1, 10.1.1.1', trusted), '1.1.1.1');
  assert.equal(resolveClientIp('127.0.0.1', '10.2.2.2, 10.1.1.1', trusted), '10.2.2.2', 'all hops trusted: the leftmost');
  assert.equal(resolveClientIp('127.0.0.1', 'garbage, 10.1.1.1', trusted), '10.1.1.1', 'a malformed hop ends the walk');
});
