// Runs every test/**/*.test.ts with node:test through tsx, or one tier of them: `--tier unit`,
// `--tier integration` or `--tier e2e` (build/test-tiers.mjs says which file is in which). Node 20 neither expands
// globs nor discovers .ts files itself (a bare `node --test` would run 0 tests and pass),
// so the file list is built here, and a run that finds no test file fails.
// One PostgreSQL server serves the whole run (see test-database.mjs), unless the developer
// names one in CARDGATE_TEST_DATABASE_URL; when it cannot start, the tests that need it fail
// with the reason (CARDGATE_TEST_DATABASE_ERROR), the others run. The unit tier starts none,
// and starts no process either (build/unit-guard.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startTestDatabase } from './test-database.mjs';
import { tierNames, tierOf } from './test-tiers.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const tierAt = args.indexOf('--tier');
const tier = tierAt === -1 ? undefined : args.splice(tierAt, 2)[1];
if (tier !== undefined && !tierNames.includes(tier)) {
  console.error(`run-tests: --tier must be one of ${tierNames.join(', ')}`);
  process.exit(1);
}
const only = args;

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'support' ? [] : walk(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => tier === undefined || tierOf(f) === tier)
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const database = { env: {}, stop: async () => {} };
if (tier === 'unit') {
  database.env.CARDGATE_TEST_DATABASE_ERROR = 'the unit tier has no database: declare this test file in the integration tier (build/test-tiers.mjs)';
  delete process.env.CARDGATE_TEST_DATABASE_URL;
} else if (!process.env.CARDGATE_TEST_DATABASE_URL) {
  try {
    const started = await startTestDatabase();
    database.env.CARDGATE_TEST_DATABASE_URL = started.url;
    database.stop = started.stop;
    // Also on an exit this script does not see coming (an uncaught error); the server is stopped by then.
    process.on('exit', () => rmSync(started.dir, { recursive: true, force: true }));
  } catch (e) {
    database.env.CARDGATE_TEST_DATABASE_ERROR = `the test PostgreSQL server did not start: ${e.message}`;
    console.error(`run-tests: ${database.env.CARDGATE_TEST_DATABASE_ERROR}`);
  }
}

// A TAP copy of the results is kept to count the tests that actually ran, and those skipped.
const tapDir = mkdtempSync(join(tmpdir(), 'cardgate-tests-'));
const tapFile = join(tapDir, 'results.tap');
const child = spawn(
  process.execPath,
  [
    '--import', 'tsx', ...(tier === 'unit' ? ['--import', './build/unit-guard.mjs'] : []), '--test', '--test-concurrency=2',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, ...database.env } },
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    child.kill(signal);
    await database.stop();
    process.exit(130);
  });
}
child.on('exit', async (code, signal) => {
  await database.stop();
  const tap = readFileSync(tapFile, 'utf8');
  rmSync(tapDir, { recursive: true, force: true });
  const count = (name) => Number([...tap.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0);
  const tests = count('tests');
  if (tests === 0) {
    console.error('run-tests: 0 tests were executed: failing the run');
    process.exit(1);
  }
  // Each skipped test by name and reason, then the closing line: .ci/run reads both (under CI nothing may be skipped).
  for (const [, name, reason] of tap.matchAll(/^\s*ok \d+ - (.*?) # SKIP ?(.*)$/gm)) console.log(`skipped: ${name} # ${reason}`);
  console.log(`${count('pass')} passed, ${count('fail') + count('cancelled')} failed, ${count('skipped')} skipped`);
  process.exit(code ?? (signal ? 1 : 0));
});
