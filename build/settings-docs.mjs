// npm run settings-docs: writes config.example.json and the settings table of docs/configuration.md
// (between its markers) from the settings' declarations (src/config/*.ts). The page's prose around
// the table is written by hand. test/config/settings-docs.test.ts fails when either file differs
// from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const { configSettings } = await tsImport('../src/config/schema.ts', import.meta.url);
const { exampleJson, settingsTable, withSettingsTable } = await tsImport('../src/config/settings-docs.ts', import.meta.url);

const page = join(root, 'docs/configuration.md');
writeFileSync(join(root, 'config.example.json'), exampleJson(configSettings));
writeFileSync(page, withSettingsTable(readFileSync(page, 'utf8'), settingsTable(configSettings)));
console.log('settings-docs: wrote config.example.json and the settings table of docs/configuration.md');
