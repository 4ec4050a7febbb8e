/**
 * Regression test for catastrophic backtracking: every rule that runs a regex on card strings gets
 * ~1 MiB of adversarial input (the longest body a single endpoint accepts). The 2 s bound is not a
 * speed target: a linear scan takes milliseconds, while a quadratic regex takes minutes on 1 MiB
 * (9 s already on 160 KB of "-eyJ"), so only a super-linear pattern can fail it. It bounds the CPU
 * time the validation used, not the wall time: on a loaded CI machine other processes stretch the
 * wall time of a linear scan several-fold, which says nothing about the pattern.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard } from '../../src/engine/index.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

const MIB = 1024 * 1024;
const BOUND_MS = 2000;

/** Adversarial units: each repeated fills a string that a quadratic pattern would rescan from every start. */
const units = ['-eyJ', 'eyJ', '.eyJaaaaaaaa', '<', '{', '${', 'a-', '://a:', 'sk-', '?token=', '-----BEGIN ', 'x', ' ;', 'a:', 'example.', ' ', '0x', '$A', '%A', 'a1', '1a'];

const fill = (unit: string, room = MIB): string => unit.repeat(Math.floor(room / unit.length));

/** CPU milliseconds (user + system) this process spent validating `card`. */
const cpuMsOf = (card: Card): number => {
  const before = process.cpuUsage();
  validateCard(card);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

/** Where a string goes: every field a regex rule reads, in both card shapes. */
const placements: Record<string, (s: string) => Card> = {
  'description': (s) => ({ ...clean03(), description: s }),
  'url': (s) => ({ ...clean03(), url: s }),
  'url path': (s) => ({ ...clean03(), url: `https://agent.travel.test/${s}` }),
  'documentationUrl': (s) => ({ ...clean03(), documentationUrl: `https://travel.test/${s}` }),
  'iconUrl': (s) => ({ ...clean03(), iconUrl: s }),
  'provider.url': (s) => ({ ...clean03(), provider: { organization: 'Travel Co', url: `https://${s}` } }),
  'skill description and tags': (s) => {
    const card = clean03();
    const half = s.slice(0, s.length / 2);
    card.skills = [{ id: 'plan', name: 'Plan', description: half, tags: [half] }];
    return card;
  },
  'secret-named field': (s) => ({ ...clean03(), apiKey: s }),
  'key-named field (judged by its value)': (s) => ({ ...clean03(), capabilities: { extensions: [{ uri: 'https://travel.test/ext', params: { sessionKey: s } }] } }),
  'field named by a long credential-like key': (s) => ({ ...clean03(), [`${s.slice(0, 4096)}Token`]: 'Zq8pL2mN5vR1' }),
  '1.0 required strings (blank and oneof checks)': (s) => ({ ...clean10(), name: s, securitySchemes: { [s.slice(0, 4096)]: { [s.slice(0, 4096)]: {} } } }),
  'object key': (s) => ({ ...clean03(), [s]: 'value' }),
  'input mode': (s) => ({ ...clean03(), defaultInputModes: [s] }),
  'securitySchemes tokenUrl': (s) => ({
    ...clean03(),
    securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `https://auth.travel.test/${s}`, scopes: {} } } } },
  }),
  '1.0 interface url and binding': (s) => {
    const half = s.slice(0, s.length / 2);
    return { ...clean10(), supportedInterfaces: [{ url: half, protocolBinding: half, protocolVersion: '1.0' }] };
  },
  '1.0 openIdConnectUrl': (s) => ({ ...clean10(), securitySchemes: { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `https://${s}` } } } }),
  '1.0 signature header': (s) => ({ ...clean10(), signatures: [{ protected: s, signature: 'c2lnbmF0dXJl' }] }),
};

for (const [where, place] of Object.entries(placements)) {
  test(`1 MiB adversarial strings in ${where} validate in linear time`, () => {
    for (const unit of units) {
      const ms = cpuMsOf(place(fill(unit)));
      assert.ok(ms < BOUND_MS, `${JSON.stringify(unit)} repeated in ${where} took ${ms.toFixed(0)} ms of CPU`);
    }
  });
}

test('many medium strings add up linearly too (1 MiB spread over 256 skills)', () => {
  for (const unit of units) {
    const card = clean03();
    card.skills = Array.from({ length: 256 }, (_, i) => ({ id: `s${i}`, name: 's', description: fill(unit, 4096), tags: ['t'] }));
    const ms = cpuMsOf(card);
    assert.ok(ms < BOUND_MS, `${JSON.stringify(unit)} in 256 skill descriptions took ${ms.toFixed(0)} ms of CPU`);
  }
});

test('the linear patterns still find what they found before', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  const rulesOf = (card: Card): string[] => {
    const { errors, warnings } = validateCard(card);
    return [...errors, ...warnings].map((i) => `${i.rule} ${i.path}`);
  };
  assert.ok(rulesOf({ ...clean03(), description: `Call with Bearer ${jwt}` }).includes('content.secret description'));
  assert.ok(rulesOf({ ...clean03(), url: 'https://agent.travel.test/<tenant>/a2a' }).includes('url.placeholder url'));
  assert.ok(rulesOf({ ...clean03(), url: 'https://agent.travel.test/<<tenant>/a2a' }).includes('url.placeholder url'));
  assert.ok(rulesOf({ ...clean03(), url: 'https://agent.travel.test/{{tenant}/a2a' }).includes('url.placeholder url'));
});
