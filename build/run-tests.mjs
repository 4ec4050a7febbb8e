// Runs every test/**/*.test.ts with node:test through tsx. Node 20 neither expands
// globs nor discovers .ts files itself (a bare `node --test` would run 0 tests and pass),
// so the file list is built here, and a run that finds no test file fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'helpers' ? [] : walk(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
// A TAP copy of the results is kept to count the tests that actually ran.
const tapDir = mkdtempSync(join(tmpdir(), 'cardgate-tests-'));
const tapFile = join(tapDir, 'results.tap');
const child = spawn(
  process.execPath,
  [
    '--import', 'tsx', '--test', '--test-concurrency=2',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  const tap = readFileSync(tapFile, 'utf8');
  rmSync(tapDir, { recursive: true, force: true });
  const count = (name) => Number([...tap.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0);
  const tests = count('tests');
  if (tests === 0) {
    console.error('run-tests: 0 tests were executed: failing the run');
    process.exit(1);
  }
  console.log(`${count("pass")} passed, ${count("fail") + count("cancelled")} failed`);
  process.exit(code ?? (signal ? 1 : 0));
});
