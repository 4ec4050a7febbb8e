/**
 * What `serve` tells the operator at start-up: where the dashboard is (a JSON log line, like every
 * other line), and a generated admin token in a 0600 file and on a terminal, never in the log stream.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { adminTokenReachesOperator } from '../../src/server.ts';
import { adminTokenFile } from '../../src/features/accounts/admin-token.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { parseConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { startServer } from '../support/server.ts';
import { version } from '../../src/lib/version.ts';
import { spawn, spawnSync } from 'node:child_process';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-admin-token-');

const fakeIO = (stdoutIsTTY: boolean) => {
  const out = { stdout: '', stderr: '' };
  const io: CliIO = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readStdin: async () => Buffer.alloc(0), stdoutIsTTY };
  return { io, out };
};

test('generated: written to <data dir>/admin-token (0600), the log names the file, a terminal shows it once', async () => {
  const config = parseConfig({ dataDir: join(tempDir(), 'data') }); // not there yet: created
  const store = new MemoryStore();
  const log = memoryLogger();
  const { io, out } = fakeIO(true);
  assert.equal(await adminTokenReachesOperator(store, config, io, log), true);
  const file = adminTokenFile(config);
  const token = readFileSync(file, 'utf8').trim();
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(config.dataDir).mode & 0o777, 0o700);
  assert.equal(out.stdout.split(token).length, 2, `shown once on the terminal:\n${out.stdout}`);
  assert.deepEqual(log.lines.map((line) => line.file), [file]);
  assert.ok(!JSON.stringify(log.lines).includes(token), 'not in the log stream');

  const again = fakeIO(true);
  assert.equal(await adminTokenReachesOperator(store, config, again.io, log), true);
  assert.equal(again.out.stdout, '', 'stored: nothing shown at the next start');
  assert.equal(readFileSync(file, 'utf8').trim(), token);
});

test('generated with stdout not a terminal: only the file has it', async () => {
  const config = parseConfig({ dataDir: tempDir() });
  const log = memoryLogger();
  const { io, out } = fakeIO(false);
  assert.equal(await adminTokenReachesOperator(new MemoryStore(), config, io, log), true);
  assert.equal(out.stdout, '');
  assert.match(readFileSync(adminTokenFile(config), 'utf8'), /^[A-Za-z0-9_-]{43}\n$/);
  assert.equal(log.lines.length, 1);
});

test('a token file that cannot be written stops the start with nothing stored; a configured token needs no file', async () => {
  const blocker = join(tempDir(), 'a-file');
  writeFileSync(blocker, '');
  const store = new MemoryStore();
  const { io, out } = fakeIO(true);
  assert.equal(await adminTokenReachesOperator(store, parseConfig({ dataDir: join(blocker, 'data') }), io, memoryLogger()), false);
  assert.match(out.stderr, /cannot write the generated admin token to .*admin-token.*\nMake the data dir writable, or set adminToken \(CARDGATE_ADMIN_TOKEN\)/);
  assert.equal(out.stdout, '');
  assert.equal(await store.getMeta('admin_token_sha256'), undefined, 'no token in force that nobody can read');

  const configured = fakeIO(true);
  assert.equal(await adminTokenReachesOperator(store, parseConfig({ dataDir: join(blocker, 'data'), adminToken: 'configured-token-0123456789' }), configured.io, memoryLogger()), true);
  assert.equal(configured.out.stdout + configured.out.stderr, '');
});

test('the start-up log is JSON lines only, and names the dashboard and landing page URLs and the token file', async () => {
  const server = await startServer({ env: { CARDGATE_ADMIN_TOKEN: '' } });
  try {
    const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const listening = lines.find((line) => line.msg === 'listening')!;
    assert.equal(listening.dashboard_url, `${server.url}/dashboard`);
    assert.equal(listening.home_url, `${server.url}/`);
    assert.equal(listening.node, process.version, 'the runtime version is logged at start');
    assert.equal((await fetch(String(listening.dashboard_url))).status, 200);
    assert.ok(lines.some((line) => line.file === join(server.dataDir, 'admin-token')));
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

/** `script` (util-linux) runs a command on a pseudo-terminal: stdout is a TTY, as for a person at a shell. */
const hasScript = spawnSync('script', ['--version']).status === 0;

test('on a terminal one plain line comes first (address, dashboard, absolute token file); the log names paths absolute', { skip: !hasScript && 'no `script` to make a pseudo-terminal' }, async () => {
  const cwd = tempDir();
  const command = [process.execPath, '--import', import.meta.resolve('tsx'), new URL('../../src/main.ts', import.meta.url).pathname, 'serve', '--port', '0', '--data-dir', 'relative-data'];
  const child = spawn('script', ['-qfec', command.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd, env: { ...process.env, CARDGATE_ADMIN_TOKEN: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in 30 s:\n${out}`)), 30_000);
      child.stdout.on('data', () => {
        const line = out.split(/\r?\n/).find((l) => l.includes('"msg":"listening"') && l.endsWith('}'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
    });
    const lines = out.split(/\r?\n/);
    const dataDir = join(cwd, 'relative-data');
    const url = String(listening.url);
    assert.equal(lines[0], `cardgate ${version} listening on ${url} — dashboard ${url}/dashboard, admin token in ${join(dataDir, 'admin-token')}`);
    assert.equal(listening.data_dir, dataDir);
    const logged = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(logged.length >= 3, out);
    assert.ok(logged.some((l) => l.msg === 'store opened' && l.data_dir === dataDir), out);
    assert.ok(logged.some((l) => l.file === join(dataDir, 'admin-token')), out);
    // The sign-in speaks of the generated token, and names no path of the server's (anyone may read it).
    const page = await (await fetch(`${url}/dashboard`)).text();
    assert.match(page, /<body data-admin-token="generated">/);
    assert.ok(!page.includes(dataDir), 'the page shows no data dir');
    process.kill(Number(listening.pid), 'SIGTERM');
  } finally {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
});
