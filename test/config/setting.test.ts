/**
 * A setting is declared once: its schema field, its environment variable, its place in
 * config.example.json and its row in the docs are all made from the declaration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { keys } from '../../src/config/auth.ts';
import { declaredSettings, envTable, flagTable } from '../../src/config/env-vars.ts';
import { configSettings } from '../../src/config/schema.ts';
import { defaultsOf, section, setting, shapeOf, type SettingType } from '../../src/config/setting.ts';
import { exampleConfig, settingsTable } from '../../src/config/settings-docs.ts';

test('a setting added to its area\'s declaration appears in the schema, the environment table, config.example.json and the docs\' table', () => {
  const keysPerAccount = setting({ type: 'number', schema: () => z.number().int().min(1).max(50), default: 5, env: 'CARDGATE_KEYS_PER_ACCOUNT', flag: 'keys-per-account', doc: 'API keys an account may hold' });
  const settings = { ...configSettings, keys: section({ ...keys.members, perAccount: keysPerAccount }) };

  const schema = z.object(shapeOf(settings)).strict();
  assert.equal(schema.parse({}).keys.perAccount, 5);
  assert.equal(schema.parse({ keys: { perAccount: 7 } }).keys.perAccount, 7);
  const tooMany = schema.safeParse({ keys: { perAccount: 51 } });
  assert.deepEqual(tooMany.error?.issues.map((issue) => issue.path), [['keys', 'perAccount']]);
  assert.equal((defaultsOf(settings).keys as Record<string, unknown>).perAccount, 5);

  assert.deepEqual(envTable(settings).CARDGATE_KEYS_PER_ACCOUNT, { path: ['keys', 'perAccount'], type: 'number' });
  assert.deepEqual(flagTable(settings)['keys-per-account'], { path: ['keys', 'perAccount'], type: 'number' });
  assert.equal(envTable(configSettings).CARDGATE_KEYS_PER_ACCOUNT, undefined, 'the configuration itself is unchanged');

  assert.equal((exampleConfig(settings).keys as Record<string, unknown>).perAccount, 5);
  assert.ok(settingsTable(settings).includes('| `keys.perAccount` | `CARDGATE_KEYS_PER_ACCOUNT`, `serve --keys-per-account` | `5` | integer 1-50 | API keys an account may hold |'));
});

test('environment variables and flags: each named once, each variable CARDGATE_*', () => {
  const settings = declaredSettings(configSettings).map(({ setting }) => setting);
  const envNames = settings.flatMap((s) => (s.env ? [s.env] : []));
  assert.equal(new Set(envNames).size, envNames.length);
  assert.deepEqual(envNames.filter((name) => !/^CARDGATE_[A-Z0-9_]+$/.test(name)), []);
  const flags = settings.flatMap((s) => (s.flag ? [s.flag] : []));
  assert.equal(new Set(flags).size, flags.length);
});

test('every default is within its setting\'s bounds, and every setting\'s text is read as its schema\'s type', () => {
  const jsonTypes: Record<SettingType, string[]> = { string: ['string'], number: ['integer', 'number'], boolean: ['boolean'], list: ['array'], map: ['object'] };
  for (const { path, setting } of declaredSettings(configSettings)) {
    const name = path.join('.');
    const schema = setting.schema();
    if (setting.presence === 'default') assert.deepEqual(schema.parse(setting.default), setting.default, `${name}'s default`);
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { type?: string; enum?: unknown[] };
    const type = json.type ?? (json.enum ? 'string' : undefined);
    assert.ok(type !== undefined && jsonTypes[setting.type].includes(type), `${name} is read as ${setting.type}, its schema takes ${type}`);
  }
});
