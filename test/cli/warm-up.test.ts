/**
 * The start-up snapshot of the single executable: its warm-up (run while the snapshot is built), and
 * the built binary itself, when there is one, started with the run's working directory, environment,
 * clock and randomness rather than the build's (build/smoke.mjs). .ci/run builds before it runs the
 * tests, so under CI the binary is there: a missing one fails instead of skipping.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { warmUp } from '../../src/cli/warm-up.ts';
import { skipOutsideCi } from '../support/checks.ts';

const root = new URL('../..', import.meta.url).pathname;

test('warm-up: checks and formats the rule examples without reading the environment', () => {
  const env = process.env;
  const read: string[] = [];
  process.env = new Proxy(env, { get: (target, name) => (read.push(String(name)), Reflect.get(target, name)) });
  try {
    warmUp();
  } finally {
    process.env = env;
  }
  assert.deepEqual(read.filter((name) => !name.startsWith('NODE_')), [], 'what the warm-up leaves in the snapshot must not depend on the build\'s environment (Node reads its NODE_* itself)');
});

test('the built single executable (when built) honours the run\'s cwd, env and clock, and draws fresh ids', async (t) => {
  const binary = join(root, 'build/out/cardgate');
  if (!existsSync(binary)) return skipOutsideCi(t, 'no build/out/cardgate: `npm run build` makes it');
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'build/smoke.mjs'), binary], { timeout: 120_000 });
  assert.match(stdout, /: ok — /);
});
