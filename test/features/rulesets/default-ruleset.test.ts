/**
 * The configured default ruleset is a file the server reads (at start and on SIGHUP): read as
 * every file the service names is (src/lib/read-file.ts, whose FIFO case test/cli/reads.test.ts
 * sends), a regular file within the ruleset's size limit.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../../src/config.ts';
import { loadDefaultRuleset, reloadDefaultRuleset } from '../../../src/features/rulesets/default-ruleset.ts';
import { tempDirFactory } from '../../support/temp.ts';

const newDir = tempDirFactory('cardgate-default-ruleset-');
const configFor = (ruleset: string) => parseConfig({ adminToken: 'test-admin-token-0123456789', rules: { ruleset } });

test('a device or a file over the size limit is refused at start, naming the setting and the file', () => {
  const dir = newDir();
  const huge = join(dir, 'huge.yaml');
  writeFileSync(huge, `# ${'x'.repeat(262_144)}\n`);
  const cases: Array<[string, RegExp]> = [
    ['/dev/zero', /^rules\.ruleset: \/dev\/zero: a device, not a regular file$/],
    [huge, /: larger than 262144 bytes, the size limit for a ruleset$/],
  ];
  for (const [file, message] of cases) assert.throws(() => loadDefaultRuleset(configFor(file)), (e: Error) => message.test(e.message), file);
});

test('on reload a refused file keeps the ruleset in use', () => {
  const file = join(newDir(), 'team.yaml');
  writeFileSync(file, 'rules:\n  url.https: error\n');
  const config = configFor(file);
  const first = loadDefaultRuleset(config);
  assert.ok(first);
  writeFileSync(file, `# ${'x'.repeat(262_144)}\n`);
  const again = reloadDefaultRuleset(config);
  assert.ok('problem' in again && /size limit for a ruleset/.test(again.problem));
});
