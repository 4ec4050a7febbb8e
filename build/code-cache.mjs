// The single executable's scripts and their V8 code caches (build/build.mjs, --sea-start=code-cache).
//
// Node's own SEA code cache is taken of the bundle compiled but never run: it holds the functions V8
// compiles eagerly, not the thousands a command runs, each of which is then compiled on the spot.
// So the SEA carries the bundle and the validation worker's bundle as assets, with caches taken
// here after running them: `cli.cache` once `validate` ran on the rule catalogue's example cards,
// `serve.cache` once `serve` answered /healthz and /readyz, `task-worker.cache` once a worker
// warmed up. The SEA's main script and the worker's source are small runners (assetRunner) that
// compile an asset with its cache. A cache V8 refuses (another V8, other flags) only costs the time
// it was to save: the build checks that each is taken (`check` below).
//
// Run by build.mjs as child processes of the Node the SEA is made of, with the SEA's flags:
//   node code-cache.mjs main BUNDLE OUT -- COMMAND...   run BUNDLE as `cardgate COMMAND...`, write its cache
//   node code-cache.mjs worker BUNDLE OUT SETTINGS      warm a worker of BUNDLE up (SETTINGS: JSON), write its cache
//   node code-cache.mjs check BUNDLE CACHE              exit 1 if V8 refuses CACHE for BUNDLE
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { MessageChannel, Worker } from 'node:worker_threads';

// A bundle runs as CommonJS does, in a function of these. A cache fits the exact text it was taken of
// (V8 checks little more than its length): the same wrapper here and in the SEA, around the same bundle.
const head = '(function (exports, require, module, __filename, __dirname) {';
const tail = '\n})';

/**
 * The text of a script that runs the SEA's CommonJS asset `asset`, compiled with the cache asset
 * that `cache` (a JavaScript expression) names.
 */
export const assetRunner = (asset, cache) => `'use strict';
const { getAsset, getRawAsset } = require('node:sea');
const { Script } = require('node:vm');
const script = new Script(${JSON.stringify(head)} + getAsset(${JSON.stringify(asset)}, 'utf8') + ${JSON.stringify(tail)}, { filename: ${JSON.stringify(asset)}, cachedData: new Uint8Array(getRawAsset(${cache})) });
const bundle = { exports: {} };
script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, ${JSON.stringify(asset)}, '.');
`;

/** The SEA's main script: the bundle, with the cache of `serve` or that of the other commands. */
export const mainRunner = (bundle) => assetRunner(bundle, "process.argv[2] === 'serve' ? 'serve.cache' : 'cli.cache'");

const compile = (bundle, filename, cachedData) => new Script(head + readFileSync(bundle, 'utf8') + tail, { filename, ...(cachedData ? { cachedData } : {}) });

/**
 * Runs `cardgate command...` from the bundle and writes the cache of what it compiled: once the
 * command exits (every command ends with process.exit, src/main.ts), or for `serve` once it has
 * answered /healthz and /readyz (its shutdown is no part of a start), then stops it as SIGTERM does.
 */
const trainMain = (bundle, out, command) => {
  const script = compile(bundle, 'cardgate.cjs');
  const run = script.runInThisContext();
  const writeCache = () => writeFileSync(out, script.createCachedData());
  if (command[0] === 'serve') {
    onceListening(async (url) => {
      for (const path of ['/healthz', '/readyz']) await (await fetch(url + path)).text();
      writeCache();
      process.kill(process.pid, 'SIGTERM');
    });
  } else process.once('exit', writeCache);
  process.argv = [process.argv[0], 'cardgate', ...command];
  const module = { exports: {} };
  run.call(module.exports, module.exports, createRequire(import.meta.url), module, 'cardgate.cjs', '.');
};

/** Calls `then` with the server's address once it logs that it listens. */
const onceListening = (then) => {
  const write = process.stdout.write.bind(process.stdout);
  let called = false;
  process.stdout.write = (chunk, ...rest) => {
    const url = /"msg":"listening".*?"url":"([^"]+)"/.exec(String(chunk))?.[1];
    if (url && !called) {
      called = true;
      void then(url);
    }
    return write(chunk, ...rest);
  };
};

/** Starts a worker of the bundle as the pool does, lets it warm up, and writes the cache it returns. */
const trainWorker = (bundle, out, settings) => {
  const source = `'use strict';
const { parentPort } = require('node:worker_threads');
const { Script } = require('node:vm');
const script = new Script(${JSON.stringify(head)} + require('node:fs').readFileSync(${JSON.stringify(bundle)}, 'utf8') + ${JSON.stringify(tail)}, { filename: 'task-worker.cjs' });
const bundle = { exports: {} };
script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, 'task-worker.cjs', '.');
// After the worker's own listener, which warms up before it says ready.
parentPort.once('message', () => parentPort.postMessage({ codeCache: script.createCachedData() }));
`;
  const worker = new Worker(source, { eval: true, workerData: JSON.parse(settings) });
  const { port1, port2 } = new MessageChannel();
  worker.on('message', ({ codeCache }) => {
    writeFileSync(out, codeCache);
    port1.close();
    void worker.terminate();
  });
  worker.on('error', (e) => {
    console.error(`code cache: the worker failed: ${e.message}`);
    process.exit(1);
  });
  worker.postMessage({ port: port2 }, [port2]);
};

/**
 * Runs a mode of this script with the Node the SEA is made of and its flags (a cache is refused
 * under other flags), in an empty directory (no cardgate.json, no ruleset file) with nothing of the
 * build's environment but PATH and what `env` sets.
 */
const runHere = (node, execArgv, args, env = {}) => {
  const cwd = mkdtempSync(join(tmpdir(), 'cardgate-code-cache-'));
  try {
    const r = spawnSync(node, [...execArgv, fileURLToPath(import.meta.url), ...args], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`build: code cache (${args[0]}) failed with ${r.status ?? r.signal}:\n${r.stderr}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
};

/**
 * Writes the SEA's caches into `dir` beside its bundles and returns what the SEA configuration
 * takes: its main script and its assets. `cards`: example cards `validate` is run on; `settings`:
 * the validation settings a worker warms up with.
 */
export const codeCacheStart = ({ node, execArgv, dir, bundle, workerBundle, cards, settings }) => {
  const cardDir = join(dir, 'cards');
  mkdirSync(cardDir, { recursive: true });
  const cardFiles = cards.map((card, i) => {
    const file = join(cardDir, `${i}.agent-card.json`);
    writeFileSync(file, JSON.stringify(card, null, 2));
    return file;
  });
  const cache = (name) => join(dir, name);
  runHere(node, execArgv, ['main', bundle, cache('cli.cache'), '--', 'validate', '--quiet', '--fail-on', 'never', ...cardFiles]);
  const dataDir = mkdtempSync(join(tmpdir(), 'cardgate-code-cache-data-'));
  try {
    // No worker (it would look for the SEA's assets): the main thread's start-up is what this cache is for.
    runHere(node, execArgv, ['main', bundle, cache('serve.cache'), '--', 'serve', '--port', '0', '--data-dir', dataDir], {
      CARDGATE_VALIDATION_WORKERS: '0',
      CARDGATE_ADMIN_TOKEN: 'code-cache-admin-token-0123456789',
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  runHere(node, execArgv, ['worker', workerBundle, cache('task-worker.cache'), JSON.stringify(settings)]);
  for (const [script, name] of [[bundle, 'cli.cache'], [bundle, 'serve.cache'], [workerBundle, 'task-worker.cache']]) runHere(node, execArgv, ['check', script, cache(name)]);
  writeFileSync(join(dir, 'sea-main.cjs'), mainRunner('cardgate.cjs'));
  return {
    main: join(dir, 'sea-main.cjs'),
    assets: { 'cardgate.cjs': bundle, 'task-worker.cjs': workerBundle, ...Object.fromEntries(['cli.cache', 'serve.cache', 'task-worker.cache'].map((name) => [name, cache(name)])) },
  };
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode, bundle, out, ...rest] = process.argv.slice(2);
  if (mode === 'main') trainMain(bundle, out, rest.slice(rest.indexOf('--') + 1));
  else if (mode === 'worker') trainWorker(bundle, out, rest[0]);
  else if (mode === 'check' && compile(bundle, 'check', readFileSync(out)).cachedDataRejected) {
    console.error(`V8 refuses ${out} for ${bundle}`);
    process.exit(1);
  } else if (mode !== 'check') {
    console.error(`code-cache.mjs: unknown mode ${mode}`);
    process.exit(2);
  }
}
