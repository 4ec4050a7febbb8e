/** The fields of a card as the card diff compares them (src/engine/card-diff/card.ts, security.ts): values of the wrong shape, the edges of each rule, and what each field costs of the walk's budget. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardNode } from '../../src/engine/card-diff/card.ts';
import { MAX_DIFF_VALUES, Walk } from '../../src/engine/card-diff/walk.ts';
import { diffCards, type CardChange } from '../../src/engine/diff.ts';
import { logReads } from '../support/read-log.ts';

type Card = Record<string, unknown>;
const changes = (before: Card, after: Card): CardChange[] => diffCards(before, after).changes;
const rulesAt = (before: Card, after: Card): string[] => changes(before, after).map((c) => `${c.rule}@${c.path}`);

/** Values of the walk's budget a diff of the two cards takes. */
const spent = (before: Card, after: Card): number => {
  const walk = new Walk();
  cardNode(before, after)(walk, before, after);
  return MAX_DIFF_VALUES - walk.left;
};

describe('a field that holds no list (or no object) where one is expected', () => {
  const cases: Array<[field: string, empty: unknown, added: string, removed: string, changed: string]> = [
    ['skills', [], 'skill-added', 'skill-removed', 'skill-removed'],
    ['additionalInterfaces', [], 'interface-added', 'interface-removed', 'interface-removed'],
    ['supportedInterfaces', [], 'interface-added', 'interface-removed', 'interface-removed'],
    ['defaultInputModes', [], 'mode-added', 'mode-removed', 'mode-removed'],
    ['securitySchemes', {}, 'security-scheme-added', 'security-scheme-removed', 'security-scheme-changed'],
  ];
  for (const [field, empty, added, removed, changed] of cases) {
    it(`${field}: added, removed and changed as one value by its own rules`, () => {
      assert.deepEqual(changes({}, { [field]: 1 }), [{ op: 'added', path: field, class: 'compatible', rule: added, new: '1' }]);
      assert.deepEqual(changes({ [field]: 1 }, {}), [{ op: 'removed', path: field, class: 'breaking', rule: removed, old: '1' }]);
      assert.deepEqual(changes({ [field]: 1 }, { [field]: empty }), [{ op: 'changed', path: field, class: 'breaking', rule: changed, old: '1', new: JSON.stringify(empty) }]);
      assert.deepEqual(changes({ [field]: empty }, { [field]: 1 }), [{ op: 'changed', path: field, class: 'breaking', rule: changed, old: JSON.stringify(empty), new: '1' }]);
    });
  }

  it('capabilities.extensions: likewise', () => {
    assert.deepEqual(changes({ capabilities: {} }, { capabilities: { extensions: 1 } }), [{ op: 'added', path: 'capabilities.extensions', class: 'compatible', rule: 'extension-added', new: '1' }]);
    assert.deepEqual(changes({ capabilities: { extensions: 1 } }, { capabilities: {} }), [{ op: 'removed', path: 'capabilities.extensions', class: 'breaking', rule: 'extension-removed', old: '1' }]);
    assert.deepEqual(changes({ capabilities: { extensions: 1 } }, { capabilities: { extensions: [] } }), [{ op: 'changed', path: 'capabilities.extensions', class: 'breaking', rule: 'extension-removed', old: '1', new: '[]' }]);
  });

  it('capabilities no object: the value is a change, and each member of the other side too', () => {
    assert.deepEqual(changes({ capabilities: 1 }, { capabilities: { streaming: true } }), [
      { op: 'changed', path: 'capabilities', class: 'compatible', rule: 'field-other', old: '1', new: '{"streaming":true}' },
      { op: 'added', path: 'capabilities.streaming', class: 'compatible', rule: 'capability-added', new: 'true' },
    ]);
    assert.deepEqual(changes({ capabilities: { streaming: true } }, { capabilities: 1 }), [
      { op: 'removed', path: 'capabilities.streaming', class: 'breaking', rule: 'capability-removed', old: 'true' },
      { op: 'changed', path: 'capabilities', class: 'compatible', rule: 'field-other', old: '{"streaming":true}', new: '1' },
    ]);
    assert.deepEqual(changes({}, { capabilities: { streaming: true } }), [{ op: 'added', path: 'capabilities.streaming', class: 'compatible', rule: 'capability-added', new: 'true' }]);
  });

  it('securitySchemes come or gone: each scheme added or removed', () => {
    assert.deepEqual(changes({}, { securitySchemes: { k: { type: 'apiKey' } } }), [{ op: 'added', path: 'securitySchemes.k', class: 'compatible', rule: 'security-scheme-added', new: '{"type":"apiKey"}' }]);
    assert.deepEqual(changes({ securitySchemes: { k: { type: 'apiKey' } } }, {}), [{ op: 'removed', path: 'securitySchemes.k', class: 'breaking', rule: 'security-scheme-removed', old: '{"type":"apiKey"}' }]);
  });

  it('modes come or gone: each mode added or removed', () => {
    assert.deepEqual(changes({}, { defaultInputModes: ['a'] }), [{ op: 'added', path: 'defaultInputModes[0]', class: 'compatible', rule: 'mode-added', new: '"a"' }]);
    assert.deepEqual(changes({ defaultInputModes: ['a'] }, {}), [{ op: 'removed', path: 'defaultInputModes[0]', class: 'breaking', rule: 'mode-removed', old: '"a"' }]);
  });

  it('skills gone: each skill removed', () => {
    assert.deepEqual(rulesAt({ skills: [{ id: 'a' }, { id: 'b' }] }, {}), ['skill-removed@skills[0]', 'skill-removed@skills[1]']);
  });
});

describe('protocolVersion', () => {
  const version = (before: unknown, after: unknown) => changes({ protocolVersion: before }, { protocolVersion: after });
  it('a patch only between two versions of the same major.minor, read from the start of the text', () => {
    assert.deepEqual(version('10.3.0', '10.3.1'), [{ op: 'changed', path: 'protocolVersion', class: 'compatible', rule: 'protocol-version-patch', old: '"10.3.0"', new: '"10.3.1"' }]);
    for (const [before, after] of [['0.10.0', '0.11.0'], ['x0.3.0', 'x0.3.1'], ['draft', 'final'], [0.3, '0.3.1']]) {
      assert.deepEqual(version(before, after), [{ op: 'changed', path: 'protocolVersion', class: 'breaking', rule: 'protocol-version-changed', old: JSON.stringify(before), new: JSON.stringify(after) }]);
    }
  });

  it('an object or array compared member by member', () => {
    assert.deepEqual(version({ v: 1 }, { v: 2 }), [{ op: 'changed', path: 'protocolVersion.v', class: 'breaking', rule: 'protocol-version-changed', old: '1', new: '2' }]);
    assert.deepEqual(version({ v: 1 }, '0.3.0'), [{ op: 'changed', path: 'protocolVersion', class: 'breaking', rule: 'protocol-version-changed', old: '{"v":1}', new: '"0.3.0"' }]);
  });
});

describe('interfaces', () => {
  const u = 'https://a.test/a2a';
  it('an interface is its URL and binding: the same URL with two bindings reordered is an order change', () => {
    const both = [{ url: u, protocolBinding: 'JSONRPC' }, { url: u, protocolBinding: 'GRPC' }];
    assert.deepEqual(changes({ supportedInterfaces: both }, { supportedInterfaces: [...both].reverse() }), [
      { op: 'changed', path: 'supportedInterfaces', class: 'compatible', rule: 'interface-order-changed', old: `[${JSON.stringify(JSON.stringify([u, 'JSONRPC']))},${JSON.stringify(JSON.stringify([u, 'GRPC']))}]`, new: `[${JSON.stringify(JSON.stringify([u, 'GRPC']))},${JSON.stringify(JSON.stringify([u, 'JSONRPC']))}]` },
    ]);
  });

  it('an interface without a URL of text has no identity: paired by place', () => {
    const odd = [{ url: 1, protocolBinding: 'A' }, { url: 2, protocolBinding: 'A' }];
    assert.deepEqual(rulesAt({ supportedInterfaces: odd }, { supportedInterfaces: [...odd].reverse() }), ['interface-url-changed@supportedInterfaces[0].url', 'interface-url-changed@supportedInterfaces[1].url']);
  });

  it('a 0.x transport changed is a binding change; a 0.x url added is an interface added', () => {
    assert.deepEqual(changes({ additionalInterfaces: [{ url: u, transport: 'GRPC' }] }, { additionalInterfaces: [{ url: u, transport: 'HTTP+JSON' }] }), [
      { op: 'changed', path: 'additionalInterfaces[0].transport', class: 'breaking', rule: 'interface-binding-changed', old: '"GRPC"', new: '"HTTP+JSON"' },
    ]);
    assert.deepEqual(changes({}, { url: u }), [{ op: 'added', path: 'url', class: 'compatible', rule: 'interface-added', new: JSON.stringify(u) }]);
  });
});

describe('skills', () => {
  it('an id only one side has, an item of no object, an id of no text: paired by place', () => {
    assert.deepEqual(changes({ skills: [{ name: 'S' }] }, { skills: [{ id: 's', name: 'S' }] }), [{ op: 'added', path: 'skills[0].id', class: 'compatible', rule: 'field-added', new: '"s"' }]);
    assert.deepEqual(changes({ skills: [{ id: 's', name: 'S' }] }, { skills: [{ name: 'S' }] }), [{ op: 'removed', path: 'skills[0].id', class: 'breaking', rule: 'skill-removed', old: '"s"' }]);
    assert.deepEqual(rulesAt({ skills: [null] }, { skills: [null, { id: 'a' }] }), ['skill-added@skills[1]']);
    assert.deepEqual(rulesAt({ skills: [{ id: 5, n: 1 }, { id: 6 }] }, { skills: [{ id: 6 }, { id: 5, n: 1 }] }), ['skill-removed@skills[0].id', 'skill-removed@skills[1].id', 'field-other@skills[0].n', 'field-added@skills[1].n']);
  });

  it('a skill\'s own 0.x requirements relaxed', () => {
    assert.deepEqual(rulesAt({ skills: [{ id: 's', security: [{ oauth: ['a', 'b'] }] }] }, { skills: [{ id: 's', security: [{ oauth: ['a'] }] }] }), ['security-relaxed@skills[0].security']);
  });
});

describe('a skill\'s modes against the card\'s defaults', () => {
  const skill = (modes?: string[]) => [{ id: 's', ...(modes === undefined ? {} : { inputModes: modes }) }];
  const diff = (beforeDefaults: string[] | undefined, before: string[] | undefined, afterDefaults: string[] | undefined, after: string[] | undefined) =>
    changes(
      { ...(beforeDefaults && { defaultInputModes: beforeDefaults }), skills: skill(before) },
      { ...(afterDefaults && { defaultInputModes: afterDefaults }), skills: skill(after) },
    );
  const at = (rule: string, op: CardChange['op'], cls: CardChange['class'], extra: Partial<CardChange>) => ({ op, path: 'skills[0].inputModes', class: cls, rule, ...extra });

  it('declared where the defaults applied: a mode lost, a mode gained, the same modes', () => {
    assert.deepEqual(diff(['a', 'b'], undefined, ['a', 'b'], ['a']), [at('mode-removed', 'added', 'breaking', { new: '["a"]' })]);
    assert.deepEqual(diff(['a'], undefined, ['a'], ['a', 'b']), [at('mode-added', 'added', 'compatible', { new: '["a","b"]' })]);
    assert.deepEqual(diff(['a'], undefined, ['a'], ['a']), [at('default-stated', 'added', 'cosmetic', { new: '["a"]' })]);
  });

  it('no longer declared: compared with the new card\'s defaults', () => {
    assert.deepEqual(diff(['a'], ['a', 'b'], ['a'], undefined), [at('mode-removed', 'removed', 'breaking', { old: '["a","b"]' })]);
    assert.deepEqual(diff(['a'], ['a'], ['a'], undefined), [at('default-stated', 'removed', 'cosmetic', { old: '["a"]' })]);
    assert.deepEqual(diff(['a'], ['a'], ['a', 'b'], undefined), [
      { op: 'added', path: 'defaultInputModes[1]', class: 'compatible', rule: 'mode-added', new: '"b"' },
      at('mode-added', 'removed', 'compatible', { old: '["a"]' }),
    ]);
  });

  it('declared in both cards: compared as sets; declared with no defaults: each mode added', () => {
    assert.deepEqual(diff(undefined, ['a', 'b'], undefined, ['b', 'a']), [at('order-changed', 'changed', 'cosmetic', { old: '["a","b"]', new: '["b","a"]' })]);
    assert.deepEqual(diff(undefined, undefined, undefined, ['a']), [{ op: 'added', path: 'skills[0].inputModes[0]', class: 'compatible', rule: 'mode-added', new: '"a"' }]);
  });

  it('outputModes read the output defaults', () => {
    assert.deepEqual(rulesAt({ defaultOutputModes: ['a'], skills: [{ id: 's', outputModes: ['a'] }] }, { defaultOutputModes: ['a', 'b'], skills: [{ id: 's' }] }), ['mode-added@defaultOutputModes[1]', 'mode-added@skills[0].outputModes']);
  });
});

describe('extensions', () => {
  const ext = (uri?: string, more: Card = {}) => ({ ...(uri === undefined ? {} : { uri }), ...more });
  const diff = (before: Card[], after: Card[]) => changes({ capabilities: { extensions: before } }, { capabilities: { extensions: after } });
  it('a uri added, removed or changed; extensions reordered', () => {
    assert.deepEqual(diff([ext(undefined, { d: 1 })], [ext('u:a', { d: 1 })]), [{ op: 'added', path: 'capabilities.extensions[0].uri', class: 'compatible', rule: 'field-added', new: '"u:a"' }]);
    assert.deepEqual(diff([ext('u:a', { d: 1 })], [ext(undefined, { d: 1 })]), [{ op: 'removed', path: 'capabilities.extensions[0].uri', class: 'breaking', rule: 'extension-removed', old: '"u:a"' }]);
    assert.deepEqual(diff([ext('u:a')], [ext('u:b')]), [{ op: 'changed', path: 'capabilities.extensions[0].uri', class: 'breaking', rule: 'extension-removed', old: '"u:a"', new: '"u:b"' }]);
    assert.deepEqual(diff([ext('u:a'), ext('u:b')], [ext('u:b'), ext('u:a')]), [{ op: 'changed', path: 'capabilities.extensions', class: 'cosmetic', rule: 'order-changed', old: '["u:a","u:b"]', new: '["u:b","u:a"]' }]);
  });
});

describe('signatures', () => {
  it('removed only when a card with at least one signature has none after', () => {
    assert.deepEqual(changes({ signatures: 'x' }, {}), [{ op: 'removed', path: 'signatures', class: 'cosmetic', rule: 'signature-changed', old: '"x"' }]);
    assert.deepEqual(changes({ signatures: [] }, {}), [{ op: 'removed', path: 'signatures', class: 'cosmetic', rule: 'signature-changed', old: '[]' }]);
  });
});

describe('what each field costs of the budget (one value per node, per item read, per value compared)', () => {
  it('objects, keyed lists, sets, a skill\'s modes against defaults', () => {
    assert.equal(spent({ capabilities: { streaming: true } }, { capabilities: { streaming: false } }), 1 + 1 + 1);
    assert.equal(spent({ skills: [{ id: 'a' }, { id: 'b' }] }, { skills: [{ id: 'b' }] }), 1 + (1 + 1 + 2) + (1 + 1));
    assert.equal(spent({ defaultInputModes: ['a', 'b'] }, { defaultInputModes: ['b', 'c'] }), 1 + (1 + 2 + 2));
    assert.equal(spent({ defaultInputModes: ['a', 'b'], skills: [{ id: 's' }] }, { defaultInputModes: ['a', 'b'], skills: [{ id: 's', inputModes: ['a'] }] }), 1 + 5 + (1 + 1 + 1) + (1 + 1) + (2 + 1 + 1));
  });

  it('an object of known fields stops at the budget: later members are neither compared nor read', () => {
    const log: string[] = [];
    const counted = (value: Card, name: string): Card => logReads(value, log, name);
    const before = { capabilities: counted({ streaming: true, pushNotifications: true, x: 1 }, 'before') };
    const after = { capabilities: counted({ streaming: false, pushNotifications: false, y: 2 }, 'after') };
    const walk = new Walk();
    walk.left = 1 + 1 + 1;
    cardNode(before, after)(walk, before, after);
    assert.deepEqual(walk.result().changes, [{ op: 'changed', path: 'capabilities.streaming', class: 'breaking', rule: 'capability-removed', old: 'true', new: 'false' }]);
    assert.deepEqual(log.filter((l) => !l.endsWith(' keys')), ['before.streaming', 'after.streaming']);
    log.length = 0;
    const none = { capabilities: counted({}, 'before') };
    const walk2 = new Walk();
    walk2.left = 1 + 1 + 1;
    cardNode(none, after)(walk2, none, after);
    assert.deepEqual(walk2.result().changes, [{ op: 'added', path: 'capabilities.streaming', class: 'cosmetic', rule: 'default-stated', new: 'false' }]);
    assert.deepEqual(log.filter((l) => !l.endsWith(' keys')), ['after.streaming']);
  });

  it('requirements: the values compared, then each alternative, scheme and scope read', () => {
    assert.equal(spent({ security: [{ a: ['x'], b: [] }] }, { security: [{ a: ['x', 'y'] }] }), 1 + 2 + (3 + 1) + (2 + 2));
  });

  it('securitySchemes: a changed scheme is compared, then its settings', () => {
    assert.equal(spent({ securitySchemes: { k: { type: 'apiKey', in: 'header' } } }, { securitySchemes: { k: { type: 'apiKey', in: 'query' } } }), 1 + 1 + 3 + 3);
  });
});
