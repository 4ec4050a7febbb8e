/** The SARIF format: valid against the official SARIF 2.1.0 schema (vendored, draft-04), rules from the catalogue, located results. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { checkCardText, formatResults, UNREADABLE_RULE } from '../../../src/engine/formats/index.ts';
import { artifactUri } from '../../../src/engine/formats/sarif.ts';
import { ruleCatalogue } from '../../../src/engine/index.ts';
import { sampleInputs } from './cards.ts';

const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
// Both are CommonJS modules whose export is the default.
const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validSarif = ajv.compile(schema);

/** Walked freely by the tests once the schema has vouched for its shape. */
type SarifLog = any;

/** The log, once it passed the schema. */
const conforms = (text: string): SarifLog => {
  const log: unknown = JSON.parse(text);
  assert.ok(validSarif(log), JSON.stringify(validSarif.errors, null, 2));
  return log;
};

test('the official schema is draft-04 (hence ajv-draft-04); the log passes it, also with no input at all', () => {
  assert.equal(schema.$schema, 'http://json-schema.org/draft-04/schema#');
  conforms(formatResults('sarif', sampleInputs(), { toolVersion: '1.2.3' }));
  conforms(formatResults('sarif', []));
  // The schema does catch a broken log: a result without its message.
  const log = conforms(formatResults('sarif', sampleInputs()));
  delete log.runs[0].results[0].message;
  assert.equal(validSarif(log), false);
});

test('one run; the driver names cardgate, its version and every catalogue rule but the live ones with help, spec section and level', () => {
  const log = conforms(formatResults('sarif', sampleInputs(), { toolVersion: '1.2.3' }));
  assert.equal(log.version, '2.1.0');
  assert.equal(log.runs.length, 1);
  const { driver } = log.runs[0].tool;
  assert.deepEqual([driver.name, driver.version], ['cardgate', '1.2.3']);
  assert.deepEqual(driver.rules.map((r: { id: string }) => r.id), [...ruleCatalogue.filter((r) => !r.id.startsWith('live.')).map((r) => r.id), 'input.unreadable']);
  const required = driver.rules.find((r: { id: string }) => r.id === 'schema.required');
  const info = ruleCatalogue.find((r) => r.id === 'schema.required')!;
  assert.deepEqual(required.shortDescription, { text: info.description });
  assert.deepEqual(required.help, { text: info.fix });
  assert.equal(required.properties.spec, info.spec);
  assert.deepEqual(required.defaultConfiguration, { level: 'error' });
  assert.deepEqual(driver.rules.find((r: { id: string }) => r.id === 'input.unreadable'), {
    id: 'input.unreadable',
    shortDescription: { text: UNREADABLE_RULE.description },
    help: { text: UNREADABLE_RULE.fix },
    defaultConfiguration: { level: 'error' },
  });
  assert.equal(log.runs[0].columnKind, 'utf16CodeUnits');
});

test('a probe\'s live findings: their rules follow the catalogue\'s, each result indexing its own', () => {
  const card = JSON.stringify({ name: 'x', supportedInterfaces: [{ url: 'https://a.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
  const live = [
    { id: 'live.version', status: 'fail' as const, message: 'does not speak 1.0', evidence: {}, path: 'supportedInterfaces[0].url' },
    { id: 'live.card.caching', status: 'warn' as const, message: 'no ETag', evidence: {} },
    { id: 'live.errors.parse', status: 'pass' as const, message: 'fine', evidence: {} },
  ];
  const log = conforms(formatResults('sarif', [checkCardText('card.json', card, { live })]));
  const { driver } = log.runs[0].tool;
  const ids = driver.rules.map((r: { id: string }) => r.id);
  assert.deepEqual(ids.filter((id: string) => id.startsWith('live.')), ['live.version', 'live.card.caching'].sort((a, b) => ids.indexOf(a) - ids.indexOf(b)));
  assert.ok(ids.indexOf('input.unreadable') < ids.indexOf('live.version'));
  for (const result of log.runs[0].results as Array<{ ruleId: string; ruleIndex: number }>) assert.equal(ids[result.ruleIndex], result.ruleId);
  assert.ok((log.runs[0].results as Array<{ ruleId: string }>).some((r) => r.ruleId === 'live.version'));
});

test('results: rule id and index, level, message, file, line and column, the JSON path as logical location', () => {
  const log = conforms(formatResults('sarif', sampleInputs()));
  const { results, tool } = log.runs[0];
  const tags = results.find((r: { ruleId: string }) => r.ruleId === 'skills.tags.empty');
  assert.equal(tool.driver.rules[tags.ruleIndex].id, 'skills.tags.empty');
  assert.equal(tags.level, 'warning');
  assert.deepEqual(tags.message, { text: 'tags is empty' });
  assert.deepEqual(tags.locations, [
    {
      physicalLocation: { artifactLocation: { uri: 'cards/warned.json' }, region: { startLine: 12, startColumn: 58 } },
      logicalLocations: [{ fullyQualifiedName: 'skills[1].tags' }],
    },
  ]);
  const unreadable = results.find((r: { ruleId: string }) => r.ruleId === 'input.unreadable');
  assert.equal(unreadable.level, 'error');
  assert.deepEqual(unreadable.locations[0].physicalLocation, { artifactLocation: { uri: 'bad.json' }, region: { startLine: 3, startColumn: 1 } });
  assert.equal(unreadable.locations[0].logicalLocations, undefined);
  const notes = results.filter((r: { ruleId: string }) => r.ruleId === 'provider.missing');
  assert.deepEqual(notes.map((r: { level: string }) => r.level), ['note', 'note']);
  assert.equal(results.length, 10);
});

test('artifact URIs: relative paths percent-encoded per segment, absolute paths as file: URIs, URLs as they are', () => {
  assert.equal(artifactUri('cards/my card#1.json'), 'cards/my%20card%231.json');
  assert.equal(artifactUri('cards\\win.json'), 'cards/win.json');
  assert.equal(artifactUri('/srv/cards/a.json'), 'file:///srv/cards/a.json');
  assert.equal(artifactUri('C:\\cards\\a b.json'), 'file:///C:/cards/a%20b.json');
  assert.equal(artifactUri('https://agent.example/.well-known/agent-card.json'), 'https://agent.example/.well-known/agent-card.json');
  // A scheme or a drive letter counts only at the start.
  assert.equal(artifactUri('cards/x://y.json'), 'cards/x%3A//y.json');
  assert.equal(artifactUri('cards/C:/a.json'), 'cards/C%3A/a.json');
  conforms(formatResults('sarif', [checkCardText('odd dir/ü #1.json', '{"name": 1}')]));
});

test('a problem without a position (an input too deep to read) has a file but no region', () => {
  const log = conforms(formatResults('sarif', [{ name: 'deep.json', failure: { message: 'too deep' } }]));
  assert.deepEqual(log.runs[0].results, [
    { ruleId: 'input.unreadable', ruleIndex: log.runs[0].tool.driver.rules.length - 1, level: 'error', message: { text: 'too deep' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'deep.json' } } }] },
  ]);
});
