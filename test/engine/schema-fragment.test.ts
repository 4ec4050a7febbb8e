/**
 * The `schema` function of custom rules (src/engine/ruleset/schema-fragment.ts): each keyword of
 * its subset, the first reason given with where it is, and the bounds a fragment is held to when
 * its ruleset is compiled. Custom rules use it through custom-rules.test.ts; here every reason's
 * words and every boundary are asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHEMA_LIMITS, checkSchemaFragment, fragmentProblem } from '../../src/engine/ruleset/schema-fragment.ts';

const check = checkSchemaFragment;

test('type: each JSON type told apart (integer is a number, not the other way), a list of types, the value\'s type in the reason', () => {
  assert.equal(check({ type: 'string' }, 'x'), undefined);
  assert.equal(check({ type: 'string' }, 1), 'is integer, not string');
  assert.equal(check({ type: 'number' }, 1), undefined);
  assert.equal(check({ type: 'number' }, 1.5), undefined);
  assert.equal(check({ type: 'integer' }, 1.5), 'is number, not integer');
  assert.equal(check({ type: 'integer' }, 2), undefined);
  assert.equal(check({ type: 'object' }, []), 'is array, not object');
  assert.equal(check({ type: 'array' }, {}), 'is object, not array');
  assert.equal(check({ type: 'object' }, null), 'is null, not object');
  assert.equal(check({ type: 'null' }, null), undefined);
  assert.equal(check({ type: 'boolean' }, 'true'), 'is string, not boolean');
  assert.equal(check({ type: ['string', 'null'] }, null), undefined);
  assert.equal(check({ type: ['string', 'null'] }, 3), 'is integer, not string or null');
  assert.equal(check({ type: 'string' }, 1, 'provider.email'), 'provider.email: is integer, not string');
});

test('enum and const compare JSON values, objects and arrays included', () => {
  assert.equal(check({ enum: ['a', { b: 1 }] }, { b: 1 }), undefined);
  assert.equal(check({ enum: ['a', { b: 1 }] }, { b: 2 }), 'is not one of the allowed values');
  assert.equal(check({ enum: [1] }, '1'), 'is not one of the allowed values');
  assert.equal(check({ enum: 'a' }, 'b'), undefined, 'an enum that is no list is no constraint');
  assert.equal(check({ const: [1, 2] }, [1, 2]), undefined);
  assert.equal(check({ const: [1, 2] }, [2, 1]), 'is not [1,2]');
  assert.equal(check({ const: null }, null), undefined);
  assert.equal(check({ const: null }, 0), 'is not null');
  assert.equal(check({ const: 'x' }, 'y', 'name'), 'name: is not "x"');
});

test('string bounds: minLength and maxLength inclusive, pattern searched anywhere; none applies to a non-string', () => {
  assert.equal(check({ minLength: 3 }, 'abc'), undefined);
  assert.equal(check({ minLength: 3 }, 'ab'), 'is shorter than 3');
  assert.equal(check({ maxLength: 3 }, 'abc'), undefined);
  assert.equal(check({ maxLength: 3 }, 'abcd'), 'is longer than 3');
  assert.equal(check({ pattern: '@acme\\.net$' }, 'ops@acme.net'), undefined);
  assert.equal(check({ pattern: '@acme\\.net$' }, 'ops@acme.com'), 'does not match @acme\\.net$');
  assert.equal(check({ minLength: 3, maxLength: 0, pattern: '^x$' }, 12), undefined);
  assert.equal(check({ minLength: '3' }, ''), undefined, 'a bound that is no number is no constraint');
});

test('number bounds: minimum and maximum inclusive; none applies to a non-number', () => {
  assert.equal(check({ minimum: 1 }, 1), undefined);
  assert.equal(check({ minimum: 1 }, 0.5), 'is below 1');
  assert.equal(check({ maximum: 1 }, 1), undefined);
  assert.equal(check({ maximum: 1 }, 1.5), 'is above 1');
  assert.equal(check({ minimum: 5, maximum: 0 }, '3'), undefined);
});

test('arrays: minItems and maxItems inclusive; items checked in order, the first misfit named by its index', () => {
  assert.equal(check({ minItems: 2 }, [1, 2]), undefined);
  assert.equal(check({ minItems: 2 }, [1]), 'has fewer than 2 items');
  assert.equal(check({ maxItems: 2 }, [1, 2]), undefined);
  assert.equal(check({ maxItems: 2 }, [1, 2, 3]), 'has more than 2 items');
  assert.equal(check({ items: { type: 'string' } }, ['a', 'b']), undefined);
  assert.equal(check({ items: { type: 'string' } }, ['a', 2, 3]), '[1]: is integer, not string');
  assert.equal(check({ items: { type: 'string' } }, ['a', 2], 'tags'), 'tags[1]: is integer, not string');
  assert.equal(check({ minItems: 1, items: { type: 'string' } }, 'not an array'), undefined);
});

test('objects: required members, properties checked where present with their path, additionalProperties false', () => {
  const schema = { required: ['organization', 'email'], properties: { organization: {}, email: { type: 'string' }, url: { pattern: '^https://' } }, additionalProperties: false };
  assert.equal(check(schema, { organization: 'A', email: 'a@b' }), undefined);
  assert.equal(check(schema, { email: 'a@b' }), 'lacks organization');
  assert.equal(check(schema, { organization: 'A', email: 1 }), 'email: is integer, not string');
  assert.equal(check(schema, { organization: 'A', email: 'a@b', url: 'http://x' }, 'provider'), 'provider.url: does not match ^https://');
  assert.equal(check(schema, { organization: 'A', email: 'a@b', extra: 1 }), 'has extra, which the schema does not allow');
  assert.equal(check(schema, { organization: 'A', email: 'a@b', extra: 1 }, 'provider'), 'provider: has extra, which the schema does not allow');
  assert.equal(check({ properties: { a: { type: 'string' } } }, { b: 1 }), undefined, 'extra members are allowed unless said otherwise');
  assert.equal(check({ required: ['toString'] }, {}), 'lacks toString', 'an inherited member is not a member');
  assert.equal(check({ properties: { toString: { type: 'string' } } }, {}), undefined);
  assert.equal(check({ required: ['a'] }, ['a']), undefined, 'required applies to objects only');
  assert.equal(check({ required: 'a' }, {}), undefined, 'a required that is no list is no constraint');
});

test('a fragment is refused when it is no object, has an unknown keyword, nests too deep or has too many subschemas; its patterns are collected', () => {
  const patterns: string[] = [];
  assert.equal(fragmentProblem({ type: 'object', properties: { a: { pattern: '^a' }, b: { items: { pattern: 'b$' } } }, description: 'd', title: 't' }, patterns), undefined);
  assert.deepEqual(patterns, ['^a', 'b$']);
  for (const bad of [null, [], 'x', 1]) assert.equal(fragmentProblem(bad, []), 'a schema must be an object', JSON.stringify(bad));
  assert.equal(fragmentProblem({ properties: { a: [] } }, []), 'a schema must be an object');
  assert.match(fragmentProblem({ $ref: '#' }, []) ?? '', /^schema keyword "\$ref" is not supported \(supported: type, enum, const, /);
  const nested = (depth: number): unknown => (depth === 0 ? { type: 'string' } : { items: nested(depth - 1) });
  assert.equal(fragmentProblem(nested(SCHEMA_LIMITS.depth), []), undefined, 'exactly the deepest allowed');
  assert.equal(fragmentProblem(nested(SCHEMA_LIMITS.depth + 1), []), `a schema nests deeper than ${SCHEMA_LIMITS.depth}`);
  const wide = (count: number) => ({ properties: Object.fromEntries(Array.from({ length: count - 1 }, (_, i) => [`p${i}`, { type: 'string' }])) });
  assert.equal(fragmentProblem(wide(SCHEMA_LIMITS.nodes), []), undefined, 'exactly the most subschemas allowed');
  assert.equal(fragmentProblem(wide(SCHEMA_LIMITS.nodes + 1), []), `a schema has more than ${SCHEMA_LIMITS.nodes} subschemas`);
});
