import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { createCallbackPolicy, parseAllowedHosts } from '../../src/services/callback-policy.ts';

const strict = createCallbackPolicy([]);

describe('callback policy: addresses (default policy)', () => {
  const refused = [
    '127.0.0.1', '127.9.9.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '0.1.2.3', '224.0.0.1', '255.255.255.255', '240.0.0.1', '192.0.2.10', '198.51.100.1',
    '203.0.113.5', '198.18.0.1', '192.0.0.8',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2001:db8::1', 'fe80::1%eth0', '[::1]',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => assert.ok(strict.refuseAddress(address), address));
  }
  const allowed = ['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const address of allowed) {
    it(`allows public ${address}`, () => assert.equal(strict.refuseAddress(address), undefined));
  }
  it('names the reason and the setting', () => {
    assert.match(strict.refuseAddress('169.254.169.254')!, /link-local.*webhooks\.allowedHosts/);
    assert.match(strict.refuseAddress('::ffff:127.0.0.1')!, /stands for 127\.0\.0\.1, and address 127\.0\.0\.1 is loopback/);
  });
});

describe('callback policy: allowedHosts', () => {
  it('loopback allows 127/8 and ::1 only', () => {
    const p = createCallbackPolicy(['loopback']);
    assert.equal(p.refuseAddress('127.0.0.1'), undefined);
    assert.equal(p.refuseAddress('::1'), undefined);
    assert.equal(p.refuseAddress('::ffff:127.0.0.1'), undefined);
    assert.ok(p.refuseAddress('10.0.0.1'));
    assert.ok(p.refuseAddress('169.254.169.254'));
  });
  it('private allows RFC 1918 and ULA, not link-local or CGNAT', () => {
    const p = createCallbackPolicy(['private']);
    for (const a of ['10.0.0.1', '172.20.1.1', '192.168.0.9', 'fd12::1']) assert.equal(p.refuseAddress(a), undefined, a);
    for (const a of ['127.0.0.1', '169.254.169.254', '100.64.0.1']) assert.ok(p.refuseAddress(a), a);
  });
  it('CIDRs and single addresses', () => {
    const p = createCallbackPolicy(['10.1.2.0/24', 'fd00:1::/32', '169.254.10.10']);
    assert.equal(p.refuseAddress('10.1.2.200'), undefined);
    assert.ok(p.refuseAddress('10.1.3.1'));
    assert.equal(p.refuseAddress('fd00:1:ffff::1'), undefined);
    assert.ok(p.refuseAddress('fd00:2::1'));
    assert.equal(p.refuseAddress('169.254.10.10'), undefined);
    assert.ok(p.refuseAddress('169.254.169.254'));
  });
  it('hostnames and wildcards allow whatever they resolve to', () => {
    const p = createCallbackPolicy(['hooks.corp.example', '*.ci.internal']);
    assert.equal(p.refuseAddress('10.0.0.5', 'hooks.corp.example'), undefined);
    assert.equal(p.refuseAddress('10.0.0.5', 'HOOKS.corp.example.'), undefined);
    assert.equal(p.refuseAddress('127.0.0.1', 'runner-7.ci.internal'), undefined);
    assert.ok(p.refuseAddress('127.0.0.1', 'ci.internal.evil.example'));
    assert.ok(p.refuseAddress('10.0.0.5', 'other.corp.example'));
  });
  it('* allows everything', () => assert.equal(createCallbackPolicy(['*']).refuseAddress('169.254.169.254'), undefined));
  it('a bad entry is a ConfigError naming it', () => {
    assert.throws(() => parseAllowedHosts(['loopback', 'http://x/']), (e: unknown) => e instanceof ConfigError && /allowedHosts\.1: "http:\/\/x\/"/.test(e.message));
    assert.throws(() => parseAllowedHosts(['10.0.0.0/33']), ConfigError);
  });
});

describe('callback policy: URLs at submission', () => {
  it('accepts public http(s) URLs and hostnames (checked again at delivery)', () => {
    assert.equal(strict.refuseUrl('https://hooks.example.com/cardgate?x=1'), undefined);
    assert.equal(strict.refuseUrl('http://93.184.215.14:8080/cb'), undefined);
    assert.equal(strict.refuseUrl('http://localhost:9000/'), undefined); // a hostname: refused at delivery
  });
  it('refuses other schemes and relative URLs', () => {
    for (const u of ['ftp://example.com/', 'file:///etc/passwd', '/relative', 'example.com/cb', 'javascript:alert(1)', '']) {
      assert.match(strict.refuseUrl(u)!, /absolute http\(s\) URL/, u);
    }
  });
  it('refuses literal blocked addresses, however they are spelled', () => {
    for (const u of ['http://127.0.0.1:8080/', 'http://[::1]/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data',
      'http://2130706433/', 'http://0x7f.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://0/']) {
      assert.match(strict.refuseUrl(u)!, /^callback_url refused: address .* is (loopback|private|unspecified|link-local)/, u);
    }
  });
  it('refuses over-long URLs', () => assert.match(strict.refuseUrl(`https://example.com/${'a'.repeat(2100)}`)!, /longer than 2048/));
});
