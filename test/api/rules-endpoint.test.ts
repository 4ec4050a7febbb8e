/** GET /v1/rules?ruleset=: the catalogue as a built-in, the server's default or the key's account's ruleset makes it; the ruleset's JSON Schema in /openapi.json. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rulesetJsonSchema } from '../../src/engine/ruleset/index.ts';
import { testApp } from '../support/app.ts';
import { tempDirFactory } from '../support/temp.ts';

const get = async (app: ReturnType<typeof testApp>['app'], path: string, headers: Record<string, string> = {}) => {
  const res = await app.request(path, { headers });
  return { status: res.status, body: (await res.json()) as any };
};

test('without ruleset: the catalogue as it was (no ruleset member, catalogue severities)', async () => {
  const { app } = testApp();
  const res = await get(app, '/v1/rules');
  assert.equal(res.status, 200);
  assert.equal(res.body.ruleset, undefined);
  assert.equal(res.body.custom_rules, undefined);
  assert.ok(res.body.rules.length > 0);
  assert.ok(res.body.rules.every((r: any) => r.set_by === undefined && r.severity !== 'off'));
  // A header the catalogue does not need changes nothing: the key is read only for ruleset=account.
  assert.equal((await get(app, '/v1/rules', { authorization: 'Bearer nonsense' })).status, 200);
});

test('a built-in: its severities, what set them, and its {id, hash}', async () => {
  const { app } = testApp();
  const strict = await get(app, '/v1/rules?ruleset=cardgate:strict');
  assert.equal(strict.status, 200);
  assert.equal(strict.body.ruleset.id, 'cardgate:strict');
  assert.match(strict.body.ruleset.hash, /^sha256:[0-9a-f]{64}$/);
  const https = strict.body.rules.find((r: any) => r.id === 'url.https');
  assert.deepEqual([https.severity, https.set_by], ['error', 'cardgate:strict']);
  assert.deepEqual(strict.body.custom_rules, []);
  const spec = await get(app, '/v1/rules?ruleset=cardgate:spec');
  assert.equal(spec.body.rules.find((r: any) => r.id === 'field.unknown').severity, 'off');
  assert.equal(spec.body.rules.find((r: any) => r.id === 'schema.required').severity, 'error');
});

test('config: the server\'s default (404 without one); account: needs a key (401); an unknown name is 400', async () => {
  const dir = tempDirFactory('cardgate-rules-endpoint-')();
  const file = join(dir, 'team.yaml');
  writeFileSync(file, 'rules:\n  field.unknown: off\n  team.owner:\n    given: $.provider\n    then: { field: organization, function: truthy }\n    severity: error\n');
  const { app } = testApp({ config: { rules: { ruleset: file } } });
  const config = await get(app, '/v1/rules?ruleset=config');
  assert.equal(config.status, 200);
  assert.equal(config.body.ruleset.id, 'config');
  const unknown = config.body.rules.find((r: any) => r.id === 'field.unknown');
  assert.deepEqual([unknown.severity, unknown.set_by], ['off', 'config (rules.ruleset)']);
  assert.deepEqual(config.body.custom_rules.map((c: any) => [c.id, c.severity, c.function]), [['team.owner', 'error', 'truthy']]);

  assert.equal((await get(testApp().app, '/v1/rules?ruleset=config')).status, 404);
  const anonymous = await get(app, '/v1/rules?ruleset=account');
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
  const bad = await get(app, '/v1/rules?ruleset=cardgate:lax');
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /cardgate:recommended/);
});

test('/openapi.json holds the ruleset JSON Schema among its components', async () => {
  const { app } = testApp();
  const doc = (await (await app.request('/openapi.json')).json()) as any;
  const schema = doc.components.schemas.Ruleset;
  assert.equal(schema.type, 'object');
  assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys((rulesetJsonSchema as any).$defs.Ruleset.properties).sort());
  assert.ok(doc.components.schemas.CustomRule);
});
