/** Black-box tests of `cardgate serve` as a child process: start-up failures, the lock, shutdown, crashes. */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { runCli, startServer } from '../support/server.ts';
import { minimalCard } from '../support/cards.ts';
import { tempDirFactory } from '../support/temp.ts';

const card = minimalCard('Shutdown Agent', 'Used by the shutdown tests');
/** Anonymous callers unlimited, so the tests are not stopped by the daily quota. */
const unlimited = { limits: { daily: { anonymous: -1 } } };

const tempDir = tempDirFactory('cardgate-badcfg-');

type Answer = { status: number; body: { report_id?: string; recorded?: boolean } };

/**
 * One validation. Settles within 10 s even when the server dies mid-request: undici can
 * leave a request cut by the server's death pending forever, with no handle to wake it.
 */
const validate = (url: string): Promise<Answer | undefined> => {
  const request = fetch(`${url}/v1/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_card: card }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Answer['body'] }));
  const cancel = new AbortController();
  const giveUp = delay(10_000, undefined, { signal: cancel.signal }).catch(() => undefined);
  return Promise.race([request.catch(() => undefined), giveUp]).finally(() => cancel.abort());
};

test('a bad configuration stops start-up with exit code 2, naming the setting as it was written', async () => {
  const flag = await runCli(['serve', '--port', '99999']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--port \(port\): /);

  const dir = tempDir();
  const path = join(dir, 'bad.json');
  writeFileSync(path, JSON.stringify({ limits: { daily: { free: 'ten' } } }));
  const file = await runCli(['serve', '--config', path]);
  assert.equal(file.code, 2);
  assert.ok(file.stderr.includes(`limits.daily.free (${path}:1:21): `), file.stderr);

  const env = await runCli(['serve'], { env: { CARDGATE_PUBLIC_URL: 'not a url' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /CARDGATE_PUBLIC_URL \(publicUrl\): must be an absolute http\(s\) URL/);
  const port = await runCli(['serve'], { env: { CARDGATE_PORT: 'abc' }, cwd: tempDir() });
  assert.equal(port.code, 2);
  assert.match(port.stderr, /CARDGATE_PORT \(port\): /);

  const hosts = await runCli(['serve'], { env: { CARDGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback,10.0.0.0/99' } });
  assert.equal(hosts.code, 2);
  assert.match(hosts.stderr, /10\.0\.0\.0\/99/);
  const fetchHosts = await runCli(['serve'], { env: { CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'http://x/' } });
  assert.equal(fetchHosts.code, 2);
  assert.match(fetchHosts.stderr, /cardFetch\.allowedHosts\.0: "http:\/\/x\/"/);

  const unknownFlag = await runCli(['serve', '--prot', '1']);
  assert.equal(unknownFlag.code, 2);
  const unknownCommand = await runCli(['frobnicate']);
  assert.equal(unknownCommand.code, 2);
  assert.match(unknownCommand.stderr, /unknown subcommand 'frobnicate'/);
});

test('a second server on the same data dir exits with a message naming the owner pid', async () => {
  const first = await startServer();
  try {
    const second = await runCli(['serve', '--port', '0', '--data-dir', first.dataDir]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`\\b${first.pid}\\b`));
  } finally {
    assert.equal(await first.stop(), 0);
  }
});

test('an empty store.json stops start-up naming the file (exit 1) and is left as it is; a missing one is an empty snapshot', async () => {
  const dataDir = tempDir();
  const generateToken = { CARDGATE_ADMIN_TOKEN: '' }; // none configured: the first start generates one
  const first = await startServer({ dataDir, env: generateToken }); // journals the generated admin token's hash
  assert.equal(await first.stop(), 0);
  const storeFile = join(dataDir, 'store.json');
  const tokenFile = join(dataDir, 'admin-token');
  const token = readFileSync(tokenFile, 'utf8').trim();
  writeFileSync(storeFile, '');
  const refused = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`store file ${storeFile} is empty .*move it away to start empty, or restore it from a backup`));
  assert.doesNotMatch(refused.stdout, /admin token/, 'no new admin token generated over the lost one');
  assert.equal(readFileSync(storeFile, 'utf8'), '');
  rmSync(storeFile);
  // Missing, it starts from nothing and the journal beside it still applies: the token stored at
  // the first start is in force, no other generated, and the store holds nothing else.
  const fresh = await startServer({ dataDir, env: generateToken });
  try {
    const accounts = async (bearer: string) => {
      const res = await fetch(`${fresh.url}/admin/api/accounts`, { headers: { authorization: `Bearer ${bearer}` } });
      return [res.status, (await res.json()).accounts];
    };
    assert.deepEqual(await accounts(token), [200, []]);
    assert.deepEqual(await accounts(`${token}x`), [401, undefined]);
  } finally {
    assert.equal(await fresh.stop(), 0);
  }
  assert.equal(readFileSync(tokenFile, 'utf8').trim(), token, 'no new admin token');
});

test('SIGTERM during requests exits 0 and every acknowledged write is on disk', async () => {
  const server = await startServer({ config: unlimited });
  // Eight clients validate back to back; SIGTERM lands while they are mid-request.
  const acknowledged: string[] = [];
  let exit: Promise<number | null> | undefined;
  const client = async () => {
    for (;;) {
      const r = await validate(server.url);
      if (r?.status !== 200) return;
      if (r.body.recorded) acknowledged.push(r.body.report_id!);
      if (acknowledged.length >= 40) exit ??= server.stop('SIGTERM');
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  assert.equal(await exit, 0);
  assert.ok(acknowledged.length >= 40);

  const again = await startServer({ dataDir: server.dataDir, config: unlimited });
  try {
    for (const id of acknowledged) {
      const res = await fetch(`${again.url}/reports/${id}`, { headers: { accept: 'application/json' } });
      assert.equal(res.status, 200, `report ${id} survived`);
    }
  } finally {
    assert.equal(await again.stop(), 0);
  }
});

test('kill -9 leaves a store that loads, with every recorded report', async () => {
  const server = await startServer({ config: unlimited });
  const recorded: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await validate(server.url);
    if (r?.body.recorded) recorded.push(r.body.report_id!);
  }
  assert.equal(recorded.length, 20);
  const inFlight = Array.from({ length: 20 }, () => validate(server.url));
  await server.kill9();
  await Promise.all(inFlight);
  const again = await startServer({ dataDir: server.dataDir, config: unlimited });
  try {
    assert.equal((await fetch(`${again.url}/readyz`)).status, 200);
    for (const id of recorded) {
      assert.equal((await fetch(`${again.url}/reports/${id}`, { headers: { accept: 'application/json' } })).status, 200);
    }
  } finally {
    assert.equal(await again.stop(), 0);
  }
});

test('npm start stops on the SIGTERM a terminal or a supervisor sends it: the server exits, nothing is left listening', async () => {
  const root = new URL('../..', import.meta.url).pathname;
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, CARDGATE_PORT: '0', CARDGATE_DATA_DIR: tempDir(), CARDGATE_ADMIN_TOKEN: 'test-admin-token-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stderr!.on('data', (d) => (out += d));
  const listening = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    npm.stdout!.on('data', (d) => {
      out += d;
      const m = /"msg":"listening".*?"url":"(http:\/\/[^"]+)".*?"pid":(\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, pid: Number(m[2]) });
    });
    npm.once('exit', (code) => reject(new Error(`npm start exited with ${code} before listening: ${out}`)));
  });
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    assert.equal((await fetch(`${listening.url}/healthz`)).status, 200);
    const exit = new Promise((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? code)));
    npm.kill('SIGTERM');
    await exit;
    // npm waits for its script to end: the server is gone once npm is.
    assert.equal(alive(listening.pid), false, 'the server process is gone');
    await assert.rejects(fetch(`${listening.url}/healthz`), 'nothing answers on its port');
    assert.match(out, /"msg":"shutting down".*"signal":"SIGTERM"[^\n]*\n.*"msg":"stopped"/s, 'it shut down as on its own SIGTERM');
  } finally {
    if (alive(listening.pid)) process.kill(listening.pid, 'SIGKILL');
  }
});
