/** checkSchema: each kind of zod issue as the finding it becomes, with its exact path, rule and message. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard } from '../../src/engine/index.ts';
import { Report } from '../../src/engine/report.ts';
import { checkSchema } from '../../src/engine/schema-check.ts';
import type { RuleSetVersion } from '../../src/engine/versions.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

/** The schema's findings on a card, as [path, rule, message]. */
const schemaFindings = (card: unknown, version: RuleSetVersion) => {
  const report = new Report();
  checkSchema(card, version, report);
  return { errors: report.errors.map((e) => [e.path, e.rule, e.message]) };
};

const schemes = (card: Card, securitySchemes: Record<string, unknown>): Card => {
  delete card.security;
  delete card.securityRequirements;
  for (const skill of card.skills as Card[]) {
    delete skill.security;
    delete skill.securityRequirements;
  }
  return { ...card, securitySchemes };
};

const schemes10 = 'apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme';
const flows10 = 'authorizationCode, clientCredentials, deviceCode, implicit, password';
const types03 = '"apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"';

test('a card that passes: true and no finding; one that does not: false', () => {
  assert.deepEqual(schemaFindings(clean03(), '0.3.0'), { errors: [] });
  assert.deepEqual(schemaFindings(clean10(), '1.0'), { errors: [] });
  assert.deepEqual(schemaFindings('a string', '1.0'), { errors: [['(root)', 'schema.type', '(root) must be an object, not string']] });
});

test('a wrong type names the type wanted in words and the JSON type found; a missing field is required', () => {
  const card: Card = { ...clean03(), name: 1, capabilities: [], defaultInputModes: 'text/plain', provider: 5, securitySchemes: [], supportsAuthenticatedExtendedCard: 'yes', skills: {} };
  delete card.description;
  delete card.security;
  assert.deepEqual(schemaFindings(card, '0.3.0').errors, [
    ['name', 'schema.type', 'name must be a string, not number'],
    ['description', 'schema.required', 'description is required'],
    ['capabilities', 'schema.type', 'capabilities must be an object, not array'],
    ['defaultInputModes', 'schema.type', 'defaultInputModes must be an array, not string'],
    ['skills', 'schema.type', 'skills must be an array, not object'],
    ['provider', 'schema.type', 'provider must be an object, not number'],
    ['securitySchemes', 'schema.type', 'securitySchemes must be an object, not array'], // a record
    ['supportsAuthenticatedExtendedCard', 'schema.type', 'supportsAuthenticatedExtendedCard must be a boolean, not string'],
  ]);
});

test('a value outside an enum, and a 0.x scheme\'s `type` missing or unknown: the values allowed, and the value got as JSON, cut', () => {
  const card = schemes(clean03(), {
    k: { type: 'apiKey', in: 'body', name: 'X-Key' },
    big: { type: 'apiKey', in: { text: 'x'.repeat(200) }, name: 'X-Key' },
    untyped: { scheme: 'bearer' },
    odd: { type: 'basic' },
    num: 3,
  });
  const cut = `{"text":"${'x'.repeat(110)}…`; // 120 characters of the JSON
  assert.deepEqual(schemaFindings(card, '0.3.0').errors, [
    ['securitySchemes.k.in', 'schema.enum', 'in must be one of "cookie", "header", "query" (got "body")'],
    ['securitySchemes.big.in', 'schema.enum', `in must be one of "cookie", "header", "query" (got ${cut})`],
    ['securitySchemes.untyped.type', 'schema.required', `type is required (one of ${types03})`],
    ['securitySchemes.odd.type', 'schema.enum', `type must be one of ${types03} (got "basic")`],
    ['securitySchemes.num', 'schema.type', 'num must be an object, not number'],
  ]);
});

test('1.0: a required string or array left empty, each with its own reason', () => {
  const card = { ...clean10(), name: '', defaultInputModes: [] };
  assert.deepEqual(schemaFindings(card, '1.0').errors, [
    ['name', 'schema.non-empty', 'name must not be empty: it is required, and an empty string is the unset value (1.0 §5.7)'],
    ['defaultInputModes', 'schema.non-empty', 'defaultInputModes must not be empty: it is required, so it holds at least one element (1.0 §5.7)'],
  ]);
});

test('1.0 oneofs holding not exactly one member: the members, what was found, a lone unknown key, the 0.x form', () => {
  const card = schemes(clean10(), {
    none: {},
    unknown: { bearer: {} },
    legacy: { type: 'http', scheme: 'bearer' },
    extra: { note: 'x', httpAuthSecurityScheme: { scheme: 'bearer' } },
    two: { httpAuthSecurityScheme: { scheme: 'bearer' }, mtlsSecurityScheme: {} },
    noFlow: { oauth2SecurityScheme: { flows: {} } },
  });
  assert.deepEqual(schemaFindings(card, '1.0').errors, [
    ['securitySchemes.none', 'schema.one-of', `none must hold exactly one scheme of ${schemes10}; found 0`],
    ['securitySchemes.unknown', 'schema.one-of', `unknown must hold exactly one scheme of ${schemes10}; found 1 ("bearer"), which is none of them: clients ignore an unknown field, so nothing is left`],
    ['securitySchemes.legacy', 'schema.one-of', `legacy must hold exactly one scheme of ${schemes10}; found 2 ("type", "scheme") (this is the 0.x form; 1.0 wraps the fields, e.g. {"httpAuthSecurityScheme": {"scheme": "bearer"}})`],
    ['securitySchemes.extra', 'schema.one-of', `extra must hold exactly one scheme of ${schemes10}; found 2 ("note", "httpAuthSecurityScheme")`],
    ['securitySchemes.two', 'schema.one-of', `two must hold exactly one scheme of ${schemes10}; found 2 ("httpAuthSecurityScheme", "mtlsSecurityScheme")`],
    ['securitySchemes.noFlow.oauth2SecurityScheme.flows', 'schema.one-of', `flows must hold exactly one flow of ${flows10}; found 0`],
  ]);
});

test('past the findings cap a schema error is only counted, yet keeps the rules that defer to it quiet: the counts are those without the cap', () => {
  // An unset interface URL: the schema reports it, and the URL rule stays quiet there (it would call "" not absolute).
  const card: Card = { ...clean10(), supportedInterfaces: [{ url: '', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
  delete card.name;
  const whole = validateCard(card);
  assert.deepEqual(whole.errors.map((e) => [e.path, e.rule]), [['name', 'schema.required'], ['supportedInterfaces[0].url', 'schema.non-empty']]);
  const capped = validateCard(card, { maxFindings: 1 });
  assert.deepEqual(capped.errors, whole.errors.slice(0, 1));
  assert.equal(capped.truncated?.errors, 1);
});
