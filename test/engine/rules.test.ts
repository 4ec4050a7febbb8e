/**
 * Every catalogue rule, reported under its severity: its rule page's examples (src/engine/rule-examples.ts,
 * whose own test checks that the failing one reports nothing else), and, where they add something,
 * further cases triggering it elsewhere, each with the path its finding must carry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleCatalogue, validateCard, type ValidateOptions } from '../../src/engine/index.ts';
import { ruleExamples } from '../../src/engine/rule-examples.ts';
import { clean03, clean10, type Card } from './fixtures.ts';

interface RuleCase {
  rule: string;
  /** Card (and options) that must produce the rule. */
  trigger: () => Card | unknown;
  /** A close card that must not. */
  clean: () => Card;
  options?: ValidateOptions;
  /** Options the clean card is checked with (default: none). */
  cleanOptions?: ValidateOptions;
  /** Path the finding must carry, when it matters. */
  path?: string;
}

const with03 = (edit: (c: Card) => void) => () => { const c = clean03(); edit(c); return c; };
const with10 = (edit: (c: Card) => void) => () => { const c = clean10(); edit(c); return c; };
const skill = (c: Card, i: number) => (c.skills as Card[])[i]!;

/** Where the failing example's finding must be, for the rules no further case below places. */
const examplePaths: Record<string, string> = {
  'card.root.object': '(root)',
  'protocolVersion.unsupported': 'protocolVersion',
  'protocolVersion.required': 'protocolVersion',
  'protocolVersion.unpublished': 'protocolVersion',
  'url.absolute': 'url',
  'url.https': 'url',
  'skills.empty': 'skills',
  'skills.tags.empty': 'skills[0].tags',
  'field.snake-case': 'documentation_url',
  'transport.preferred.missing': 'preferredTransport',
  'transport.non-core': 'preferredTransport',
  'provider.missing': 'provider',
  'discovery.legacy-path': '(root)',
  'signature.required': 'signatures',
  'signature.missing': 'signatures',
  ...Object.fromEntries(['invalid', 'algorithm', 'key-revoked', 'unknown-key', 'jku-untrusted'].map((r) => [`signature.${r}`, 'signatures[0]'])),
};

/** The examples of every rule: the failing card must report it, the passing card must not. */
const exampleCases: RuleCase[] = Object.entries(ruleExamples).map(([rule, e]) => ({
  rule,
  trigger: () => e!.failing,
  clean: () => e!.passing as Card,
  options: e!.options,
  cleanOptions: e!.passingOptions ?? e!.options,
  path: examplePaths[rule],
}));

/** Cases beyond the examples: another place or form of the finding, with the path it must carry. */
const moreCases: RuleCase[] = [
  { rule: 'schema.required', trigger: with03((c) => delete c.name), clean: clean03, path: 'name' },
  { rule: 'schema.type', trigger: with03((c) => { c.capabilities = []; }), clean: clean03, path: 'capabilities' },
  { rule: 'schema.enum', trigger: with03((c) => { c.securitySchemes = { k: { type: 'apiKey', in: 'body', name: 'X-Key' } }; c.security = [{ k: [] }]; }), clean: clean03, path: 'securitySchemes.k.in' },
  { rule: 'schema.non-empty', trigger: with10((c) => { c.skills = []; }), clean: clean10, path: 'skills' },
  { rule: 'schema.one-of', trigger: with10((c) => { c.securitySchemes = { oauth: { httpAuthSecurityScheme: { scheme: 'bearer' }, mtlsSecurityScheme: {} } }; }), clean: clean10, path: 'securitySchemes.oauth' },
  { rule: 'transport.url-conflict', trigger: with03((c) => { c.additionalInterfaces = [{ url: c.url, transport: 'GRPC' }]; }), clean: clean03, path: 'additionalInterfaces[0].transport' },
  { rule: 'signature.protected-header', trigger: with10((c) => { c.signatures = [{ protected: Buffer.from('{"alg":"ES256"}').toString('base64url'), signature: 'eA' }]; }), clean: clean10, path: 'signatures[0].protected' },
  { rule: 'protocolVersion.forced', trigger: clean03, clean: clean03, options: { protocolVersion: '0.2.6' }, path: 'protocolVersion' },
  { rule: 'compatibility.other-version', trigger: with03((c) => { c.supportedInterfaces = clean10().supportedInterfaces; }), clean: clean03, path: 'securitySchemes.oauth' },
  { rule: 'url.placeholder', trigger: with03((c) => { c.url = 'https://YOUR_DOMAIN/a2a'; }), clean: clean03, path: 'url' },
  { rule: 'url.unreachable-host', trigger: with10((c) => { (c.supportedInterfaces as Card[])[1]!.url = 'https://0.0.0.0:8080/a2a'; }), clean: clean10, path: 'supportedInterfaces[1].url' },
  { rule: 'url.private-host', trigger: with10((c) => { (c.supportedInterfaces as Card[])[1]!.url = 'https://192.168.1.20/a2a'; }), clean: clean10, path: 'supportedInterfaces[1].url' },
  { rule: 'url.scheme', trigger: with03((c) => { c.url = 'file:///etc/passwd'; }), clean: clean03, path: 'url' },
  { rule: 'url.link-invalid', trigger: with03((c) => { c.documentationUrl = 'docs/index.html'; }), clean: clean03, path: 'documentationUrl' },
  { rule: 'modes.media-type', trigger: with03((c) => { skill(c, 1).outputModes = ['text']; }), clean: clean03, path: 'skills[1].outputModes[0]' },
  { rule: 'skills.id.unique', trigger: with03((c) => { skill(c, 1).id = 'plan'; }), clean: clean03, path: 'skills[1].id' },
  { rule: 'security.undefined-scheme', trigger: with03((c) => { skill(c, 1).security = [{ oauth: [] }, { apikey: [] }]; }), clean: clean03, path: 'skills[1].security[1].apikey' },
  { rule: 'security.scope.undeclared', trigger: with10((c) => { c.securityRequirements = [{ schemes: { oauth: { list: ['trips:write'] } } }]; }), clean: clean10, path: 'securityRequirements[0].schemes.oauth' },
  { rule: 'extended-card.no-security', trigger: with10((c) => { delete c.securitySchemes; delete c.securityRequirements; delete skill(c, 1).securityRequirements; }), clean: clean10, path: 'capabilities.extendedAgentCard' },
  { rule: 'field.unknown', trigger: with03((c) => { c.authentication = { schemes: ['bearer'] }; }), clean: clean03, path: 'authentication' },
  { rule: 'field.legacy-0x', trigger: with10((c) => { c.supportsAuthenticatedExtendedCard = true; }), clean: clean10, path: 'supportsAuthenticatedExtendedCard' },
  { rule: 'field.from-1.0', trigger: with03((c) => { c.securityRequirements = [{ schemes: { oauth: { list: [] } } }]; }), clean: clean03, path: 'securityRequirements' },
  { rule: 'interface.protocolVersion.patch', trigger: with10((c) => { (c.supportedInterfaces as Card[])[0]!.protocolVersion = '1.0.0'; }), clean: clean10, path: 'supportedInterfaces[0].protocolVersion' },
  { rule: 'field.blank', trigger: with03((c) => { skill(c, 1).name = ' '; }), clean: clean03, path: 'skills[1].name' },
  { rule: 'content.secret', trigger: with03((c) => { c.description = 'Call with key sk-proj-abcdefghijklmnopqrstuvwxyz123456'; }), clean: clean03, path: 'description' },
];

test('the clean fixtures are valid, without warnings, score 100', () => {
  for (const card of [clean03(), clean10()]) {
    const r = validateCard(card);
    assert.deepEqual([r.errors, r.warnings, r.score], [[], [], 100]);
  }
});

test('every catalogue rule has its examples among the cases; the further cases and the paths name catalogue rules', () => {
  const ids = ruleCatalogue.map((r) => r.id);
  const covered = new Set(exampleCases.map((c) => c.rule));
  assert.deepEqual(ids.filter((id) => !covered.has(id)), []);
  assert.deepEqual([...moreCases.map((c) => c.rule), ...Object.keys(examplePaths)].filter((id) => !ids.includes(id)), []);
});

for (const c of [...exampleCases, ...moreCases]) {
  test(`rule ${c.rule}${exampleCases.includes(c) ? ' (its examples)' : ` at ${c.path}`}: triggered under its severity, and not on the clean card`, () => {
    const hit = validateCard(c.trigger(), c.options);
    const severity = ruleCatalogue.find((r) => r.id === c.rule)!.severity;
    if (c.rule === 'signature.verified') {
      // A good outcome is no finding: the result's signatures summary names it.
      assert.deepEqual(hit.signatures?.map((s) => s.rule), [c.rule]);
      assert.equal(validateCard(c.clean(), c.cleanOptions).signatures?.some((s) => s.rule === c.rule), false);
      return;
    }
    const found = [...hit.errors, ...hit.warnings, ...(hit.infos ?? [])].filter((i) => i.rule === c.rule);
    assert.ok(found.length > 0, `${c.rule} not reported: ${JSON.stringify(hit.errors.concat(hit.warnings))}`);
    if (c.path) assert.equal(found[0]!.path, c.path);
    assert.equal(hit[severity === 'error' ? 'errors' : severity === 'info' ? 'infos' : 'warnings']?.includes(found[0]!), true, 'reported under its severity');
    const miss = validateCard(c.clean(), c.cleanOptions);
    assert.equal([...miss.errors, ...miss.warnings, ...(miss.infos ?? [])].some((i) => i.rule === c.rule), false);
  });
}
