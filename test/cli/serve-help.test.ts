/** `cardgate serve --help` names every flag the settings declare (config/*.ts), so a flag added to a declaration is not left out of it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveHelp } from '../../src/cli/serve.ts';
import { configFlags } from '../../src/config.ts';

test('serve\'s help names every flag a setting declares', () => {
  const flags = Object.keys(configFlags);
  assert.ok(flags.length >= 5);
  assert.deepEqual(flags.filter((flag) => !new RegExp(`^  --${flag} `, 'm').test(serveHelp)), []);
});
