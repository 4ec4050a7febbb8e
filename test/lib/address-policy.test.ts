import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { callbackUse, deliverCallback } from '../../src/features/webhooks/deliver.ts';
import { createAddressPolicy, parseAllowedHosts } from '../../src/lib/address-policy.ts';
import { postJson, testApp } from '../support/app.ts';
import { minimalCard } from '../support/cards.ts';

const createCallbackPolicy = (allowedHosts: string[]) => createAddressPolicy(allowedHosts, callbackUse);

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

/**
 * Every IPv6 form that embeds an IPv4 address, with refused addresses (the IPv4 address named) and
 * allowed ones (only public IPv4 addresses inside).
 */
const embeddingForms: Array<{ form: string; refused: Array<[string, string]>; allowed: string[] }> = [
  { form: 'IPv4-mapped', refused: [['::ffff:127.0.0.1', '127.0.0.1'], ['::ffff:a9fe:a9fe', '169.254.169.254']], allowed: ['::ffff:8.8.8.8', '::ffff:808:808'] },
  {
    form: 'IPv4-translated',
    refused: [['::ffff:0:7f00:1', '127.0.0.1'], ['::ffff:0:a9fe:a9fe', '169.254.169.254'], ['::ffff:0:10.0.0.1', '10.0.0.1']],
    allowed: ['::ffff:0:8.8.8.8', '::ffff:0:808:808'],
  },
  { form: 'IPv4-compatible', refused: [['::127.0.0.1', '127.0.0.1'], ['::a9fe:a9fe', '169.254.169.254']], allowed: ['::8.8.8.8', '::808:808'] },
  { form: 'NAT64', refused: [['64:ff9b::127.0.0.1', '127.0.0.1'], ['64:ff9b::a9fe:a9fe', '169.254.169.254']], allowed: ['64:ff9b::808:808'] },
  {
    form: 'local-use NAT64 with a /96 prefix',
    refused: [['64:ff9b:1:808:808:808:7f00:1', '127.0.0.1']],
    allowed: ['64:ff9b:1:808:808:808:808:808'],
  },
  // 169.254 at bits 48-63 and 72-87: the /48 placement.
  { form: 'local-use NAT64 with a /48 prefix', refused: [['64:ff9b:1:a9fe:a9:fe08:808:808', '169.254.169.254']], allowed: ['64:ff9b:1:808:8:808:808:808'] },
  { form: '6to4', refused: [['2002:7f00:1::1', '127.0.0.1'], ['2002:a9fe:a9fe::', '169.254.169.254']], allowed: ['2002:808:808::1'] },
  // Teredo 2001:0:<server>:<flags>:<port>:<client, bit-inverted>; 80ff:fffe is 127.0.0.1 inverted.
  { form: 'Teredo client', refused: [['2001:0:808:808::80ff:fffe', '127.0.0.1'], ['2001:0:808:808:8000:ffff:5601:5601', '169.254.169.254']], allowed: ['2001:0:808:808::f7f7:f7f7'] },
  { form: 'Teredo server', refused: [['2001:0:a9fe:a9fe::f7f7:f7f7', '169.254.169.254'], ['2001:0:a00:1::f7f7:f7f7', '10.0.0.1']], allowed: ['2001:0:4136:e378:8000:63bf:f7f7:f7f7'] },
  {
    form: 'ISATAP',
    refused: [['2606:4700::5efe:7f00:1', '127.0.0.1'], ['2606:4700::200:5efe:169.254.169.254', '169.254.169.254'], ['2002:808:808::5efe:a00:1', '10.0.0.1']],
    allowed: ['2606:4700::5efe:808:808', '2606:4700::200:5efe:8.8.8.8'],
  },
];

/** A resolver whose every answer is `address`. */
const resolvesTo = (address: string): LookupFunction => (_hostname, _options, callback) => callback(null, [{ address, family: 6 }]);

describe('callback policy: IPv6 addresses embedding IPv4 are judged as the IPv4 address', () => {
  const app = testApp().app;
  for (const { form, refused, allowed } of embeddingForms) {
    describe(form, () => {
      for (const [address, ipv4] of refused) {
        const reason = new RegExp(`\\(${form}\\) stands for ${ipv4.replaceAll('.', '\\.')}, and address ${ipv4.replaceAll('.', '\\.')} is `);
        it(`refuses ${address} (${ipv4})`, () => assert.match(strict.refuseAddress(address) ?? '', reason));
        it(`400 at submission for http://[${address}]/`, async () => {
          assert.match(strict.refuseUrl(`http://[${address}]/`) ?? '', /^callback_url refused: address /);
          const res = await app.request('/v1/webhook', postJson({ agent_card: minimalCard(), callback_url: `http://[${address}]:8080/cb` }));
          assert.equal(res.status, 400);
          const body = await res.json();
          assert.equal(body.code, 'INVALID_REQUEST');
          assert.match(body.error, reason);
        });
        it(`refuses a hostname resolving to ${address} at delivery`, async () => {
          const outcome = await deliverCallback({
            url: 'http://hooks.example.com:1/', id: 'val_1', body: '{}', timestampSeconds: 0, timeoutMs: 2000, userAgent: 'test',
            policy: strict, lookup: resolvesTo(address),
          });
          assert.equal(outcome.state, 'failed');
          assert.match(outcome.error!, /^hooks\.example\.com resolves to a refused address: /);
          assert.match(outcome.error!, reason);
        });
      }
      for (const address of allowed) {
        it(`allows ${address} (public IPv4 inside), as a literal URL too`, () => {
          assert.equal(strict.refuseAddress(address), undefined);
          assert.equal(strict.refuseUrl(`https://[${address}]/cb`), undefined);
        });
      }
    });
  }

  it('::1 and :: stay IPv6 loopback and unspecified (not IPv4-compatible 0.0.0.x)', () => {
    assert.match(strict.refuseAddress('::1')!, /^address ::1 is loopback/);
    assert.match(strict.refuseAddress('::')!, /^address :: is unspecified/);
    assert.equal(createCallbackPolicy(['loopback']).refuseAddress('::1'), undefined);
  });
  it('a local-use NAT64 address is refused when any placement of its IPv4 address is refused', () => {
    // As a /96 prefix it stands for 8.8.8.8; as a /48 prefix for 0.0.0.0.
    assert.match(strict.refuseAddress('64:ff9b:1::808:808')!, /with a \/48 prefix\) stands for 0\.0\.0\.0/);
  });
  it('an allowed embedded IPv4 address allows the form', () => {
    const loopback = createCallbackPolicy(['loopback']);
    for (const a of ['::ffff:0:7f00:1', '2002:7f00:1::1', '2001:0:808:808::80ff:fffe', '64:ff9b::127.0.0.1']) assert.equal(loopback.refuseAddress(a), undefined, a);
    assert.ok(loopback.refuseAddress('::ffff:0:a9fe:a9fe'));
  });
  it('a CIDR allowing the IPv6 range does not let a refused IPv4 address through', () => {
    const p = createCallbackPolicy(['2002::/16', '2001::/32', '64:ff9b::/96']);
    for (const a of ['2002:7f00:1::1', '2001:0:808:808::80ff:fffe', '64:ff9b::a9fe:a9fe']) assert.ok(p.refuseAddress(a), a);
  });
  it('an IPv4-mapped CIDR in allowedHosts allows that IPv4 range in every form', () => {
    const p = createCallbackPolicy(['::ffff:10.0.0.0/104']);
    for (const a of ['10.1.2.3', '::ffff:10.1.2.3', '::ffff:0:10.1.2.3', '64:ff9b::a01:203']) assert.equal(p.refuseAddress(a), undefined, a);
    assert.ok(p.refuseAddress('::ffff:192.168.1.1'));
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
    assert.throws(() => parseAllowedHosts(['loopback', 'http://x/'], callbackUse), (e: unknown) => e instanceof ConfigError && /allowedHosts\.1: "http:\/\/x\/"/.test(e.message));
    assert.throws(() => parseAllowedHosts(['10.0.0.0/33'], callbackUse), ConfigError);
  });
});

describe('callback policy: host:port entries', () => {
  it('an address or hostname with a port admits that port only; a bare entry keeps every port', () => {
    const p = createCallbackPolicy(['127.0.0.1:8443', 'hooks.corp.example:9000', '[fd00::1]:8443']);
    assert.equal(p.refuseUrl('http://127.0.0.1:8443/hook'), undefined);
    assert.match(p.refuseUrl('http://127.0.0.1:8444/hook') ?? '', /loopback/);
    assert.match(p.refuseUrl('http://127.0.0.1/hook') ?? '', /loopback/);
    assert.equal(p.refuseUrl('http://[fd00::1]:8443/hook'), undefined);
    assert.ok(p.refuseUrl('http://[fd00::1]:8444/hook'));
    // A hostname's addresses are judged at connect time, by the policy of the URL's port.
    assert.equal(p.forUrl(new URL('http://hooks.corp.example:9000/'), false).refuseAddress('10.0.0.5', 'hooks.corp.example'), undefined);
    assert.ok(p.forUrl(new URL('http://hooks.corp.example:9001/'), false).refuseAddress('10.0.0.5', 'hooks.corp.example'));
    const bare = createCallbackPolicy(['127.0.0.1', 'hooks.corp.example']);
    assert.equal(bare.refuseUrl('http://127.0.0.1:1234/'), undefined);
    assert.equal(bare.forUrl(new URL('http://hooks.corp.example:4321/'), false).refuseAddress('10.0.0.5', 'hooks.corp.example'), undefined);
    // Reached by a redirect: only host:port entries (or public addresses) admit.
    assert.ok(bare.forUrl(new URL('http://127.0.0.1:1234/'), true).refuseUrl('http://127.0.0.1:1234/'));
    assert.equal(p.forUrl(new URL('http://127.0.0.1:8443/'), true).refuseUrl('http://127.0.0.1:8443/'), undefined);
    assert.equal(bare.forUrl(new URL('http://93.184.216.34:81/'), true).refuseUrl('http://93.184.216.34:81/'), undefined);
  });
  it('a bad port or a wildcard with a port is a ConfigError', () => {
    for (const entry of ['host:0', 'host:65536', 'host:', '*.corp.example:80', 'a:b:c']) {
      assert.throws(() => parseAllowedHosts([entry], callbackUse), ConfigError, entry);
    }
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
