/** FileStore across processes: acknowledged writes survive kill -9; the data-dir lock. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { StoreLockedError } from '../../src/store/file/errors.ts';
import { tempDirFactory } from '../support/temp.ts';

const childScript = fileURLToPath(new URL('./fixtures/store-child.ts', import.meta.url));
const tempDir = tempDirFactory('cardgate-durability-');

interface Child {
  process: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves once a stdout line satisfies `match`. */
  waitFor: (match: (line: string) => boolean) => Promise<void>;
  exited: Promise<number | null>;
}

const startChild = (mode: string, dir: string): Child => {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, mode, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ match: (line: string) => boolean; resolve: () => void }> = [];
  let partial = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line))) w.resolve();
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    process: child,
    lines,
    stderr: () => stderr,
    waitFor: (match) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some(match)) return resolve();
        waiters.push({ match, resolve });
        void exited.then((code) => reject(new Error(`child exited (${code}) first: ${stderr}`)));
      }),
    exited,
  };
};

/** Kills a writer child (of `mode`) at random moments, three times; every acknowledged write must be there after each. */
const everyAckSurvivesKill = async (mode: 'write' | 'snapshots') => {
  const dir = tempDir();
  const acked: string[] = [];
  for (let round = 0; round < 3; round++) {
    const child = startChild(mode, dir);
    await child.waitFor((l) => l.startsWith('ack '));
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 300));
    child.process.kill('SIGKILL');
    await child.exited;
    const roundAcks = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    assert.ok(roundAcks.length > 0);
    acked.push(...roundAcks);

    // The dead child's lock is stale: this open takes it over.
    const store = await openFileStore({ dataDir: dir });
    const missing: string[] = [];
    for (const id of acked) if ((await store.getReport(id)) === undefined) missing.push(id);
    assert.deepEqual(missing, [], `acknowledged reports lost after kill -9 (round ${round})`);
    let counted = 0;
    for (const n of [1, 2, 3, 4]) counted += (await store.getCounter(`acks:${n}`, 0))?.count ?? 0;
    assert.ok(counted >= acked.length, `counters ${counted} < acks ${acked.length}`);
    assert.ok((await store.reportCount()) >= acked.length);
    if (mode === 'snapshots') {
      const missingJobs: string[] = [];
      for (const id of acked) if ((await store.getJob(id.replace('rpt_', 'val_')))?.request.body?.length !== 20_000) missingJobs.push(id);
      assert.deepEqual(missingJobs, [], `acknowledged jobs lost after kill -9 (round ${round})`);
    }
    await store.close();
  }
};

test('every acknowledged write survives kill -9 at a random moment, and the store loads', () => everyAckSurvivesKill('write'));

test('every acknowledged write survives kill -9 while snapshots and multi-chunk appends are being written, and the store loads', () => everyAckSurvivesKill('snapshots'));

test('a second process on the same data dir gets the lock error naming the owner pid', async () => {
  const dir = tempDir();
  const store = await openFileStore({ dataDir: dir });
  try {
    const child = startChild('open', dir);
    assert.equal(await child.exited, 1);
    assert.match(child.stderr(), new RegExp(`StoreLockedError: data directory .* is in use by process ${process.pid} `));
  } finally {
    await store.close();
  }
});

test('a process holding the dir locks this one out; once it is dead its lock is taken over', async () => {
  const dir = tempDir();
  const child = startChild('hold', dir);
  await child.waitFor((l) => l === 'ready');
  await assert.rejects(openFileStore({ dataDir: dir }), (err: unknown) => err instanceof StoreLockedError && err.pid === child.process.pid);
  child.process.kill('SIGKILL');
  await child.exited;
  const store = await openFileStore({ dataDir: dir });
  assert.equal(fs.readFileSync(path.join(dir, 'cardgate.lock'), 'utf8').split('\n')[0], String(process.pid));
  await store.close();
});

/** The state of `pid` (field 3 of /proc/<pid>/stat: `Z` for a zombie), or undefined once it is gone. */
const procState = (pid: number): string | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

test('a lock owner killed with SIGKILL but not yet reaped (a zombie) counts as dead: its lock is taken over', { skip: !fs.existsSync('/proc/self/stat') && 'no /proc' }, async () => {
  const dir = tempDir();
  // The shell starts the holder, then becomes `sleep`, which never waits for it: once killed, the holder stays a zombie.
  const parent = spawn('sh', ['-c', '"$0" --import tsx "$1" hold "$2" & echo "holder $!"; exec sleep 600', process.execPath, childScript, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const parentExited = new Promise((resolve) => parent.on('exit', resolve));
  try {
    let out = '';
    parent.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      parent.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (/^ready$/m.test(out)) resolve();
      });
      parent.on('exit', () => reject(new Error(`the holder's parent exited first: ${out}`)));
    });
    const holder = Number(/^holder (\d+)$/m.exec(out)?.[1]);
    assert.ok(holder > 0, out);
    await assert.rejects(openFileStore({ dataDir: dir }), (err: unknown) => err instanceof StoreLockedError && err.pid === holder);
    process.kill(holder, 'SIGKILL');
    for (let i = 0; i < 500 && procState(holder) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(procState(holder), 'Z', 'the killed holder is a zombie (not reaped)');
    const store = await openFileStore({ dataDir: dir });
    assert.equal(fs.readFileSync(path.join(dir, 'cardgate.lock'), 'utf8').split('\n')[0], String(process.pid));
    await store.close();
  } finally {
    parent.kill('SIGKILL'); // the zombie goes to init, which reaps it
    await parentExited;
  }
});
