/** The security part of a card diff (src/engine/card-diff/security.ts): requirements read at their edges and bounds, scheme types in both generations, schemes added as required, and the budget. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardNode } from '../../src/engine/card-diff/card.ts';
import { MAX_REQUIREMENT_ALTERNATIVES, MAX_REQUIREMENT_SCHEMES } from '../../src/engine/card-diff/security.ts';
import { Walk } from '../../src/engine/card-diff/walk.ts';
import { diffCards, type CardChange } from '../../src/engine/diff.ts';

type Card = Record<string, unknown>;
const changes = (before: Card, after: Card): CardChange[] => diffCards(before, after).changes;
const rulesAt = (before: Card, after: Card): string[] => changes(before, after).map((c) => `${c.rule}@${c.path}`);
const security = (before: unknown, after: unknown) => rulesAt(before === undefined ? {} : { security: before }, after === undefined ? {} : { security: after });

describe('requirements', () => {
  it('none, written as absent or as an empty list, is the same', () => {
    assert.deepEqual(changes({}, { security: [] }), [{ op: 'added', path: 'security', class: 'cosmetic', rule: 'requirements-rewritten', new: '[]' }]);
    assert.deepEqual(changes({ security: [] }, {}), [{ op: 'removed', path: 'security', class: 'cosmetic', rule: 'requirements-rewritten', old: '[]' }]);
  });

  it('an entry, or scopes, of another shape cannot be read: tightened, whichever side it is on', () => {
    assert.deepEqual(security([{ oauth: ['a', 1] }], [{ oauth: ['a'] }]), ['security-tightened@security']);
    assert.deepEqual(security([{ oauth: 'ab' }], [{ oauth: ['a', 'b'] }]), ['security-tightened@security']);
    assert.deepEqual(security([{ oauth: [] }], [[]]), ['security-tightened@security']);
    assert.deepEqual(security([{ oauth: ['a'] }], [{ oauth: 5 }]), ['security-tightened@security']);
    assert.deepEqual(security([{ oauth: ['a'] }], 'any'), ['security-tightened@security']);
    assert.deepEqual(security('any', [{ oauth: ['a'] }]), ['security-tightened@security']);
  });

  it('1.0: a scheme without a list of scopes asks for none', () => {
    assert.deepEqual(rulesAt({ securityRequirements: [{ schemes: { oauth: {} } }] }, { securityRequirements: [{ schemes: { oauth: { list: [] } } }] }), ['requirements-rewritten@securityRequirements']);
  });

  it('tightened when any alternative is lost; rewritten when the same alternatives are reordered', () => {
    assert.deepEqual(security([{ a: [] }, { b: [] }], [{ a: [] }]), ['security-tightened@security']);
    assert.deepEqual(security([{ a: [] }, { b: [] }], [{ b: [] }, { a: [] }]), ['requirements-rewritten@security']);
  });

  it(`reads up to exactly ${MAX_REQUIREMENT_ALTERNATIVES} alternatives and ${MAX_REQUIREMENT_SCHEMES} schemes in one`, () => {
    const alternatives = (n: number) => Array.from({ length: n }, (_, i) => ({ [`s${i}`]: [] }));
    assert.deepEqual(security(alternatives(MAX_REQUIREMENT_ALTERNATIVES), alternatives(MAX_REQUIREMENT_ALTERNATIVES).reverse()), ['requirements-rewritten@security']);
    const schemes = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, []]));
    assert.deepEqual(security([schemes(MAX_REQUIREMENT_SCHEMES)], [schemes(MAX_REQUIREMENT_SCHEMES), schemes(MAX_REQUIREMENT_SCHEMES)]), ['requirements-rewritten@security']);
    assert.deepEqual(security([schemes(MAX_REQUIREMENT_SCHEMES + 1)], [schemes(MAX_REQUIREMENT_SCHEMES + 1), schemes(MAX_REQUIREMENT_SCHEMES + 1)]), ['security-tightened@security']);
  });
});

describe('scheme types', () => {
  const wrappers = [
    ['apiKey', 'apiKeySecurityScheme'],
    ['http', 'httpAuthSecurityScheme'],
    ['oauth2', 'oauth2SecurityScheme'],
    ['openIdConnect', 'openIdConnectSecurityScheme'],
    ['mutualTLS', 'mtlsSecurityScheme'],
  ];
  for (const [type, wrapper] of wrappers) {
    it(`0.x type ${type} is 1.0 ${wrapper}: moved between the shapes, only its settings change`, () => {
      assert.deepEqual(changes({ securitySchemes: { s: { type } } }, { securitySchemes: { s: { [wrapper!]: {} } } }), [
        { op: 'removed', path: 'securitySchemes.s.type', class: 'breaking', rule: 'security-scheme-changed', old: JSON.stringify(type) },
        { op: 'added', path: `securitySchemes.s.${wrapper}`, class: 'compatible', rule: 'security-scheme-extended', new: '{}' },
      ]);
    });
  }

  it('a 1.0 type is found past other members; a scheme of no object has none', () => {
    assert.deepEqual(rulesAt({ securitySchemes: { s: { description: 'd', apiKeySecurityScheme: {} } } }, { securitySchemes: { s: { description: 'd', httpAuthSecurityScheme: {} } } }), ['security-scheme-type-changed@securitySchemes.s']);
    assert.deepEqual(rulesAt({ securitySchemes: { s: null } }, { securitySchemes: { s: { type: 'apiKey' } } }), ['security-scheme-type-changed@securitySchemes.s']);
  });

  it('OAuth scopes of no object are a setting changed', () => {
    const flow = (scopes: unknown) => ({ securitySchemes: { s: { type: 'oauth2', flows: { clientCredentials: { scopes } } } } });
    assert.deepEqual(changes(flow('x'), flow({ a: 'A' })), [{ op: 'changed', path: 'securitySchemes.s.flows.clientCredentials.scopes', class: 'breaking', rule: 'security-scheme-changed', old: '"x"', new: '{"a":"A"}' }]);
  });
});

describe('a scheme added', () => {
  const added = (requirements: unknown) => rulesAt({ securitySchemes: { o: { type: 'oauth2' } }, security: requirements }, { securitySchemes: { o: { type: 'oauth2' }, k: { type: 'apiKey' } }, security: requirements });
  it('is required when every alternative of the new card needs it, else only added', () => {
    assert.deepEqual(added([{ k: [] }, { k: [], o: [] }]), ['security-scheme-added-required@securitySchemes.k']);
    assert.deepEqual(added([{ k: [] }, { o: [] }]), ['security-scheme-added@securitySchemes.k']);
    assert.deepEqual(added('unreadable'), ['security-scheme-added@securitySchemes.k']);
  });
});

describe('securitySchemes out of values', () => {
  const run = (before: Card, after: Card, left: number) => {
    const walk = new Walk();
    walk.left = left;
    cardNode(before, after)(walk, before, after);
    return walk.result();
  };
  it('notes no scheme removed or added once the budget is spent', () => {
    const d = run({ securitySchemes: { a: { x: 1 }, b: {} } }, { securitySchemes: { a: { x: 2 } } }, 2 + 2);
    assert.deepEqual([d.changes, d.total, d.complete], [[], 0, false]);
    const e = run({ securitySchemes: { a: { x: 1 } } }, { securitySchemes: { a: { x: 2 }, c: {} } }, 2 + 2);
    assert.deepEqual([e.changes, e.total, e.complete], [[], 0, false]);
    assert.deepEqual(run({ securitySchemes: { a: { x: 1 }, b: {} } }, { securitySchemes: { a: { x: 2 } } }, 2 + 2 + 2 + 1).changes.map((c) => `${c.rule}@${c.path}`), ['security-scheme-changed@securitySchemes.a.x', 'security-scheme-removed@securitySchemes.b']);
  });
});
