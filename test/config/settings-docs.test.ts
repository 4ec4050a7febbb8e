/**
 * config.example.json and the settings table of docs/configuration.md are what the settings'
 * declarations make (`npm run settings-docs` writes them): a setting added, changed or removed
 * without them fails here, as a stale Action bundle fails its check.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { configSettings } from '../../src/config/schema.ts';
import { exampleJson, settingsTable, TABLE_END, TABLE_START, withSettingsTable } from '../../src/config/settings-docs.ts';

const root = new URL('../..', import.meta.url).pathname;
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const stale = 'made from src/config/*.ts: run `npm run settings-docs` and commit what it writes';

test('config.example.json is what the declarations make', () => {
  assert.equal(read('config.example.json'), exampleJson(configSettings), stale);
});

test('the settings table of docs/configuration.md is what the declarations make; the prose around it is the page\'s own', () => {
  const page = read('docs/configuration.md');
  assert.equal(page.split(TABLE_START).length, 2, 'one start marker');
  assert.equal(page.split(TABLE_END).length, 2, 'one end marker');
  assert.equal(page, withSettingsTable(page, settingsTable(configSettings)), stale);
  assert.throws(() => withSettingsTable('# no table here\n', '| x |'), /no settings table markers/);
});

test('every setting has its row, with its environment variable, flag, default and bounds', () => {
  const table = settingsTable(configSettings);
  const row = (setting: string) => table.split('\n').find((line) => line.startsWith(`| \`${setting}\` |`));
  assert.equal(row('port'), '| `port` | `CARDGATE_PORT`, `serve --port` | `8080` | integer 0-65535 | port (0 = any free port) |');
  assert.match(row('webhooks.maxQueued')!, /^\| `webhooks\.maxQueued` \| – \| `10000` \| integer ≥ 1 \|/);
  assert.match(row('keys.maxLifetimeDays')!, /\| unset = no limit[^|]*\| integer 1-36500 \|/);
  assert.match(row('auth.oidc.roleMapping')!, /`CARDGATE_OIDC_ROLE_MAPPING` \(`name=value,name=value`\) \| – \(required in its group\) \| map of name → `viewer`, `editor`, `admin` \|/);
  assert.match(row('limits.trustedProxies')!, /`CARDGATE_TRUSTED_PROXIES` \(comma list\) \| `\[\]` \|/);
  assert.match(row('auth.oidc')!, /^\| `auth\.oidc` \| – \| unset = no sign-in but the admin token \|/);
  assert.match(row('monitors.scoreDropThreshold')!, /\| number 0-100 \|/);
  assert.match(row('serviceName')!, /\| text matching `\^\[A-Za-z0-9\._-\]\{1,64\}\$` \|/);
});
