/** Every compatibility rule of a card diff (src/engine/change-classes.ts), each with a case of its own, on 0.3.0 and 1.0 cards; and docs/compatibility.md lists each. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { changeRuleIds, changeRules, type ChangeRuleId } from '../../src/engine/change-classes.ts';
import { diffCards } from '../../src/engine/diff.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

type Edit = (card: Card) => void;
const changed = (base: () => Card, edit: Edit): Card => {
  const card = structuredClone(base());
  edit(card);
  return card;
};
const skills = (card: Card) => card.skills as Card[];
const interfaces = (card: Card) => card.supportedInterfaces as Card[];
const caps = (card: Card) => card.capabilities as Card;

const seen = new Set<ChangeRuleId>();

/** The changes from `base` to it edited, as `rule@path`; checks each change's class is its rule's. */
const changesOf = (base: () => Card, edit: Edit, before: Card = base()): string[] => {
  const diff = diffCards(before, changed(base, edit));
  assert.equal(diff.complete, true);
  assert.equal(diff.total, diff.changes.length);
  for (const c of diff.changes) {
    assert.equal(c.class, changeRules[c.rule].class, `${c.rule} is ${changeRules[c.rule].class}`);
    seen.add(c.rule);
  }
  return diff.changes.map((c) => `${c.rule}@${c.path}`);
};

/** One rule's case: the diff holds exactly these changes. */
const rule = (id: ChangeRuleId, base: () => Card, edit: Edit, expected: string[]) =>
  it(`${id} (${changeRules[id].class})`, () => {
    const found = changesOf(base, edit);
    assert.deepEqual(found, expected);
    assert.ok(found.some((c) => c.startsWith(`${id}@`)));
  });

describe('compatibility classes: breaking', () => {
  rule('skill-removed', clean03, (c) => void skills(c).splice(0, 1), ['skill-removed@skills[0]']);
  rule('interface-removed', clean10, (c) => void interfaces(c).pop(), ['interface-removed@supportedInterfaces[1]']);
  it('interface-removed: the 0.x url and an additional interface', () => {
    assert.deepEqual(changesOf(clean03, (c) => delete c.url), ['interface-removed@url']);
    assert.deepEqual(changesOf(clean03, (c) => void (c.additionalInterfaces as Card[]).pop()), ['interface-removed@additionalInterfaces[0]']);
  });
  rule('interface-url-changed', clean10, (c) => void (interfaces(c)[0]!.url = 'https://agent.travel.test/a2a/v2'), ['interface-url-changed@supportedInterfaces[0].url']);
  it('interface-url-changed: the 0.x url', () => {
    assert.deepEqual(changesOf(clean03, (c) => void (c.url = 'https://elsewhere.test/a2a')), ['interface-url-changed@url']);
  });
  rule('interface-binding-changed', clean10, (c) => void (interfaces(c)[0]!.protocolBinding = 'GRPC'), ['interface-binding-changed@supportedInterfaces[0].protocolBinding']);
  it('interface-binding-changed: preferredTransport, absent meaning JSONRPC', () => {
    assert.deepEqual(changesOf(clean03, (c) => void (c.preferredTransport = 'GRPC')), ['interface-binding-changed@preferredTransport']);
    assert.deepEqual(changesOf(clean03, (c) => void (c.preferredTransport = 'HTTP+JSON'), changed(clean03, (c) => delete c.preferredTransport)), ['interface-binding-changed@preferredTransport']);
  });
  rule('interface-tenant-changed', clean10, (c) => void (interfaces(c)[1]!.tenant = 'acme'), ['interface-tenant-changed@supportedInterfaces[1].tenant']);
  rule('protocol-version-changed', clean03, (c) => void (c.protocolVersion = '0.2.6'), ['protocol-version-changed@protocolVersion']);
  it('protocol-version-changed: an interface\'s, and a version removed', () => {
    assert.deepEqual(changesOf(clean10, (c) => void (interfaces(c)[1]!.protocolVersion = '1.0')), ['protocol-version-changed@supportedInterfaces[1].protocolVersion']);
    assert.deepEqual(changesOf(clean03, (c) => delete c.protocolVersion), ['protocol-version-changed@protocolVersion']);
  });
  rule('mode-removed', clean03, (c) => void (c.defaultOutputModes = ['text/plain']), ['mode-removed@defaultOutputModes[0]', 'mode-added@defaultOutputModes[0]']);
  it('mode-removed: a skill declaring its own modes accepts fewer than the defaults it inherited', () => {
    assert.deepEqual(changesOf(clean03, (c) => void (skills(c)[0]!.outputModes = ['text/markdown'])), ['mode-removed@skills[0].outputModes']);
    assert.deepEqual(changesOf(clean03, (c) => void (c.defaultInputModes = [])), ['mode-removed@defaultInputModes[0]']);
  });
  rule('capability-removed', clean03, (c) => void (caps(c).streaming = false), ['capability-removed@capabilities.streaming']);
  it('capability-removed: dropped from the card, the 1.0 extended card, the 0.x extended card flag', () => {
    assert.deepEqual(changesOf(clean03, (c) => delete c.capabilities), ['capability-removed@capabilities.streaming']);
    assert.deepEqual(changesOf(clean10, (c) => delete caps(c).extendedAgentCard), ['capability-removed@capabilities.extendedAgentCard']);
    const flagged = () => ({ ...clean03(), supportsAuthenticatedExtendedCard: true });
    assert.deepEqual(changesOf(flagged, (c) => void (c.supportsAuthenticatedExtendedCard = false)), ['capability-removed@supportsAuthenticatedExtendedCard']);
  });
  const extended = () => changed(clean10, (c) => void (caps(c).extensions = [{ uri: 'https://ext.test/a', description: 'A' }, { uri: 'https://ext.test/b', required: true }]));
  rule('extension-removed', extended, (c) => void (caps(c).extensions as Card[]).shift(), ['extension-removed@capabilities.extensions[0]']);
  rule('extension-required', extended, (c) => void ((caps(c).extensions as Card[])[0]!.required = true), ['extension-required@capabilities.extensions[0].required']);
  it('extension-required: an extension added as required', () => {
    assert.deepEqual(changesOf(clean10, (c) => void (caps(c).extensions = [{ uri: 'https://ext.test/c', required: true }])), ['extension-required@capabilities.extensions[0]']);
  });
  rule('security-scheme-removed', clean03, (c) => void (c.securitySchemes = {}), ['security-scheme-removed@securitySchemes.oauth']);
  rule('security-scheme-type-changed', clean10, (c) => void ((c.securitySchemes as Card).oauth = { httpAuthSecurityScheme: { scheme: 'Bearer' } }), ['security-scheme-type-changed@securitySchemes.oauth']);
  it('security-scheme-type-changed: 0.x type', () => {
    assert.deepEqual(changesOf(clean03, (c) => void ((c.securitySchemes as Card).oauth = { type: 'openIdConnect', openIdConnectUrl: 'https://auth.travel.test/.well-known/openid-configuration' })), ['security-scheme-type-changed@securitySchemes.oauth']);
  });
  rule('security-scheme-changed', clean03, (c) => {
    const flow = ((c.securitySchemes as Card).oauth as { flows: { clientCredentials: Card } }).flows.clientCredentials;
    flow.tokenUrl = 'https://auth2.travel.test/token';
  }, ['security-scheme-changed@securitySchemes.oauth.flows.clientCredentials.tokenUrl']);
  it('security-scheme-changed: a scope removed; a 1.0 API key moved elsewhere', () => {
    const scopes = (c: Card) => ((c.securitySchemes as Card).oauth as { flows: { clientCredentials: { scopes: Card } } }).flows.clientCredentials.scopes;
    assert.deepEqual(changesOf(clean03, (c) => delete scopes(c)['trips:read']), ['security-scheme-changed@securitySchemes.oauth.flows.clientCredentials.scopes["trips:read"]']);
    const keyed = () => changed(clean10, (c) => void ((c.securitySchemes as Card).key = { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } }));
    assert.deepEqual(changesOf(keyed, (c) => void (((c.securitySchemes as Card).key as { apiKeySecurityScheme: Card }).apiKeySecurityScheme.location = 'query')), ['security-scheme-changed@securitySchemes.key.apiKeySecurityScheme.location']);
  });
  rule('security-scheme-added-required', clean10, (c) => {
    (c.securitySchemes as Card).mtls = { mtlsSecurityScheme: {} };
    c.securityRequirements = [{ schemes: { oauth: { list: ['trips:read'] }, mtls: {} } }];
  }, ['security-scheme-added-required@securitySchemes.mtls', 'security-tightened@securityRequirements']);
  rule('security-tightened', clean03, (c) => void (c.security = [{ oauth: ['trips:read', 'trips:write'] }]), ['security-tightened@security']);
  it('security-tightened: requirements where there were none, a skill\'s, and too many alternatives to compare', () => {
    const open = () => changed(clean03, (c) => delete c.security);
    assert.deepEqual(changesOf(open, (c) => void (c.security = [{ oauth: [] }])), ['security-tightened@security']);
    assert.deepEqual(changesOf(clean10, (c) => void (skills(c)[1]!.securityRequirements = [{ schemes: { oauth: { list: ['trips:admin'] } } }])), ['security-tightened@skills[1].securityRequirements']);
    const many = () => changed(clean03, (c) => void (c.security = Array.from({ length: 65 }, (_, i) => ({ [`s${i}`]: [] }))));
    assert.deepEqual(changesOf(many, (c) => void (c.security as Card[]).reverse()), ['security-tightened@security']);
  });
  rule('signature-removed', clean10, (c) => delete c.signatures, ['signature-removed@signatures']);
});

describe('compatibility classes: compatible', () => {
  rule('skill-added', clean03, (c) => void skills(c).push({ id: 'cancel', name: 'Cancel', description: 'Cancels.', tags: ['booking'] }), ['skill-added@skills[2]']);
  rule('interface-added', clean10, (c) => void interfaces(c).push({ url: 'https://agent.travel.test/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' }), ['interface-added@supportedInterfaces[2]']);
  rule('interface-order-changed', clean10, (c) => void interfaces(c).reverse(), ['interface-order-changed@supportedInterfaces']);
  rule('protocol-version-patch', clean03, (c) => void (c.protocolVersion = '0.3.1'), ['protocol-version-patch@protocolVersion']);
  rule('mode-added', clean03, (c) => void (c.defaultInputModes as string[]).push('application/json'), ['mode-added@defaultInputModes[1]']);
  rule('capability-added', clean03, (c) => void (caps(c).pushNotifications = true), ['capability-added@capabilities.pushNotifications']);
  rule('extension-added', clean10, (c) => void (caps(c).extensions = [{ uri: 'https://ext.test/a' }]), ['extension-added@capabilities.extensions[0]']);
  const required = () => changed(clean10, (c) => void (caps(c).extensions = [{ uri: 'https://ext.test/a', required: true }]));
  rule('extension-relaxed', required, (c) => void ((caps(c).extensions as Card[])[0]!.required = false), ['extension-relaxed@capabilities.extensions[0].required']);
  rule('extension-params-changed', required, (c) => void ((caps(c).extensions as Card[])[0]!.params = { catalog: 'v2' }), ['extension-params-changed@capabilities.extensions[0].params']);
  rule('security-scheme-added', clean10, (c) => void ((c.securitySchemes as Card).key = { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } }), ['security-scheme-added@securitySchemes.key']);
  rule('security-scheme-extended', clean03, (c) => {
    const flow = ((c.securitySchemes as Card).oauth as { flows: { clientCredentials: { scopes: Card; refreshUrl?: string } } }).flows.clientCredentials;
    flow.scopes['trips:write'] = 'Write trips';
    flow.refreshUrl = 'https://auth.travel.test/refresh';
  }, ['security-scheme-extended@securitySchemes.oauth.flows.clientCredentials.scopes["trips:write"]', 'security-scheme-extended@securitySchemes.oauth.flows.clientCredentials.refreshUrl']);
  rule('security-relaxed', clean03, (c) => void (c.security = [{ oauth: ['trips:read'] }, {}]), ['security-relaxed@security']);
  rule('field-added', clean03, (c) => void (c['x-team'] = 'travel'), ['field-added@x-team']);
  rule('field-other', () => ({ ...clean03(), 'x-team': 'travel' }), (c) => void (c['x-team'] = 'trips'), ['field-other@x-team']);
});

describe('compatibility classes: cosmetic', () => {
  rule('descriptive-changed', clean10, (c) => {
    c.description = 'Plans and books trips.';
    c.version = '1.3.0';
    skills(c)[0]!.tags = ['travel', 'trips'];
    skills(c)[0]!.examples = [];
    ((c.securitySchemes as Card).oauth as { oauth2SecurityScheme: Card }).oauth2SecurityScheme.description = 'Sign in with Travel Co';
  }, ['descriptive-changed@description', 'descriptive-changed@version', 'descriptive-changed@securitySchemes.oauth.oauth2SecurityScheme.description', 'descriptive-changed@skills[0].tags[1]', 'descriptive-changed@skills[0].examples[0]']);
  it('descriptive-changed: an OAuth scope\'s description', () => {
    const scopes = (c: Card) => ((c.securitySchemes as Card).oauth as { flows: { clientCredentials: { scopes: Card } } }).flows.clientCredentials.scopes;
    assert.deepEqual(changesOf(clean03, (c) => void (scopes(c)['trips:read'] = 'Read all trips')), ['descriptive-changed@securitySchemes.oauth.flows.clientCredentials.scopes["trips:read"]']);
  });
  rule('order-changed', clean03, (c) => void skills(c).reverse(), ['order-changed@skills']);
  it('order-changed: modes and 0.x additional interfaces', () => {
    const twoModes = () => changed(clean03, (c) => void (c.defaultInputModes = ['text/plain', 'application/json']));
    assert.deepEqual(changesOf(twoModes, (c) => void (c.defaultInputModes as string[]).reverse()), ['order-changed@defaultInputModes']);
    const twoMore = () => changed(clean03, (c) => void (c.additionalInterfaces as Card[]).push({ url: 'https://agent.travel.test/grpc', transport: 'GRPC' }));
    assert.deepEqual(changesOf(twoMore, (c) => void (c.additionalInterfaces as Card[]).reverse()), ['order-changed@additionalInterfaces']);
  });
  rule('requirements-rewritten', clean03, (c) => void (c.security = [{ oauth: ['trips:read'] }, { oauth: ['trips:read', 'trips:write'] }]), ['requirements-rewritten@security']);
  rule('default-stated', clean03, (c) => {
    delete c.preferredTransport;
    caps(c).pushNotifications = false;
    skills(c)[0]!.inputModes = ['text/plain'];
  }, ['default-stated@preferredTransport', 'default-stated@capabilities.pushNotifications', 'default-stated@skills[0].inputModes']);
  rule('signature-changed', clean10, (c) => void ((c.signatures as Card[])[0]!.signature = 'b3RoZXI'), ['signature-changed@signatures']);
});

describe('compatibility classes across generations', () => {
  it('a 0.3.0 card moved to 1.0 breaks 0.3 clients: its url, version and requirements go', () => {
    const diff = diffCards(clean03(), clean10());
    assert.equal(diff.class, 'breaking');
    const rules = new Set(diff.changes.map((c) => c.rule));
    for (const expected of ['interface-removed', 'protocol-version-changed', 'security-tightened'] as const) assert.ok(rules.has(expected), expected);
  });

  it('a card keeping its 0.x fields beside supportedInterfaces is compared field by field', () => {
    const dual = () => ({ ...clean10(), url: 'https://agent.travel.test/a2a', protocolVersion: '0.3.0' });
    assert.deepEqual(changesOf(dual, (c) => delete c.url), ['interface-removed@url']);
  });

  it('the same card, written in another key order, has no change', () => {
    const card = clean10();
    const reordered = Object.fromEntries(Object.entries(card).reverse());
    assert.deepEqual(diffCards(card, reordered).changes, []);
    assert.equal(diffCards(card, reordered).class, null);
  });
});

after(() => {
  assert.deepEqual(changeRuleIds.filter((id) => !seen.has(id)), [], 'every rule has a case');
});

describe('docs/compatibility.md', () => {
  it('lists every rule with its class, and no other', () => {
    const doc = readFileSync(new URL('../../docs/compatibility.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (breaking|compatible|cosmetic) \|/gm)].map((m) => [m[1]!, m[2]!]);
    assert.deepEqual(Object.fromEntries(rows), Object.fromEntries(changeRuleIds.map((id) => [id, changeRules[id].class])));
  });
});
