/**
 * What `serve` tells the operator at start-up: where the dashboard is (a JSON log line, like every
 * other line), and a generated admin token in a 0600 file and on a terminal, never in the log stream.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { adminTokenFile, adminTokenReachesOperator } from '../../src/cli/serve.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { parseConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/lib/log.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { startServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-admin-token-');

const fakeIO = (stdoutIsTTY: boolean) => {
  const out = { stdout: '', stderr: '' };
  const io: CliIO = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readStdin: async () => '', stdoutIsTTY };
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
    assert.equal((await fetch(String(listening.dashboard_url))).status, 200);
    assert.ok(lines.some((line) => line.file === join(server.dataDir, 'admin-token')));
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
