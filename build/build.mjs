// npm run build: bundles the GitHub Action (src/action/main.ts) into action/dist/index.cjs, which
// is committed (a runner runs it as it is; CI checks it matches a fresh build), then src/main.ts into
//   build/out/cardgate.cjs  (CommonJS, the SEA's main script; also runs with plain `node`)
//   build/out/cardgate.mjs  (ESM, for Deno: `deno run -A build/out/cardgate.mjs serve`)
// then makes the Node single executable build/out/cardgate (postject, the experimental warning
// disabled) from the Node.js binary package.json pins (node-<platform>-<arch>), whichever Node runs
// this script. The binary needs no node_modules and no network.
// `node build/build.mjs action` builds the Action's bundle only; `node build/build.mjs action --check`
// writes nothing and fails when the committed bundle differs from a fresh build (stale).
// For benchmarks (docs/benchmarks.md), two options make other SEAs from the same bundle:
//   --sea-start=code-cache|snapshot|none   how the SEA starts (default code-cache, see seaStarts below)
//   --exec-argv='--flag …'                 the Node options the SEA runs with (default seaExecArgv below)
//   --out=DIR                              where the artefacts go (default build/out)
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';
import { assetRunner, codeCacheStart } from './code-cache.mjs';

const root = new URL('..', import.meta.url).pathname;

/**
 * How the SEA starts. `code-cache` (shipped): from the bundle and the worker's bundle as assets,
 * each compiled with a V8 code cache taken after running it (build/code-cache.mjs), so that what a
 * command runs at start is not compiled again. `snapshot`: from a V8 start-up snapshot taken once
 * the bundle has loaded and warmed the modules of `validate` and `serve` (src/main.ts); it starts
 * `validate` faster, but on Node 24.21.0 a worker thread started in such a process aborts as soon
 * as it loads a binding the snapshot's own thread set up (node:v8 and node:net: stream_wrap;
 * node:crypto keys: KeyObject), so `serve`'s validation workers crash it: built for measurements
 * only (and since the bounded page rendering, taking it fails on V8's CheckGlobalAndEternalHandles,
 * on Node 20 as well). `none`: the bundle compiled at each start.
 */
const seaStarts = { 'code-cache': {}, snapshot: { useSnapshot: true }, none: {} };
/**
 * The Node options the SEA runs with (Node 24 reads them from the SEA's configuration; V8 sizes the
 * young generation when the isolate is made, so this cannot be set later). A young generation of
 * 4 MB semi-spaces instead of V8's default: RSS after 100k validations 355 → 215 MB (2.16 → 1.52 ×
 * after the first 1,000) for no measurable CPU (383 vs 359 µs a request; validate card.json
 * 105 vs 106 ms). --heap-growing-percent=20 as well would meet the RSS target (1.28 ×) but costs
 * 6 % more CPU a request and 40 % more CPU for each CLI start: not taken (docs/benchmarks.md).
 * The young generation at those 4 MB from the start (--min-semi-space-size=4; V8 otherwise starts it
 * smaller and grows it): the objects a start makes, nearly all of which live on, are scavenged once
 * instead of three times: `validate card.json` 60 → 53 ms CPU (medians of 40 interleaved runs),
 * `serve`'s start unchanged; an idle server's RSS +6 MB (134 vs 128 MB), the same after 2,000
 * validations (under load the young generation is at 4 MB either way).
 */
const seaExecArgv = ['--max-semi-space-size=4', '--min-semi-space-size=4'];
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { check: { type: 'boolean' }, 'sea-start': { type: 'string', default: 'code-cache' }, 'exec-argv': { type: 'string' }, out: { type: 'string' } },
});
const out = flags.out ? resolve(flags.out) : join(root, 'build/out');
if (!(flags['sea-start'] in seaStarts)) {
  console.error(`build: --sea-start must be one of ${Object.keys(seaStarts).join(', ')}`);
  process.exit(2);
}
const execArgv = flags['exec-argv'] === undefined ? seaExecArgv : flags['exec-argv'].split(/\s+/).filter(Boolean);


/** @hono/zod-openapi's `import { z } from 'zod'` gets build/zod-namespace.mjs (see there). */
const zodNamespace = {
  name: 'zod-namespace',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (args) => (/[\\/]@hono[\\/]zod-openapi[\\/]/.test(args.importer) ? { path: join(root, 'build/zod-namespace.mjs') } : undefined));
  },
};

/**
 * Entries esbuild would otherwise take wrongly: jsonc-parser's `main` is a UMD build whose require()
 * calls it cannot follow (its ES build instead); tinyglobby's ES build imports fdir's, which calls
 * createRequire(import.meta.url), and a bundle has no such URL (their CommonJS builds instead).
 */
const entries = {
  'jsonc-parser': join(root, 'node_modules/jsonc-parser/lib/esm/main.js'),
  tinyglobby: createRequire(import.meta.url).resolve('tinyglobby'),
};
const packageEntries = {
  name: 'package-entries',
  setup(b) {
    b.onResolve({ filter: /^(jsonc-parser|tinyglobby)$/ }, (args) => ({ path: entries[args.path] }));
  },
};

/**
 * The `snapshot` start (seaStarts above) is taken once the bundle has loaded the modules of `validate` and
 * `serve` (src/main.ts). Node (20 and 24 alike) does not support every built-in in such a snapshot: node:http and
 * node:https fail to load while it is built, node:worker_threads loaded then gives every worker a
 * broken cwd counter (SharedArrayBuffer does not exist yet at that point), and the others below are
 * "not yet verified" (Node's own list, lib/internal/main/mksnapshot.js). In the CommonJS bundle each
 * of them is required when one of its exports is first read rather than when the module importing
 * it loads; the build fails when Node warns that one was loaded all the same.
 */
const unsnapshottable = ['http', 'https', 'http2', 'tls', 'worker_threads', 'perf_hooks', 'async_hooks', 'child_process', 'cluster', 'dgram',
  'dns/promises', 'domain', 'inspector', 'module', 'readline', 'repl', 'trace_events', 'tty', 'vm'];
/** Built-ins most commands never use (a card without signatures, a file rather than a URL): loaded on first use too. */
const rarelyUsed = ['crypto', 'net', 'dns', 'fs/promises'];
const deferredBuiltins = {
  name: 'deferred-builtins',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(node:)?(${[...unsnapshottable, ...rarelyUsed].join('|')})$`) }, (args) =>
      args.namespace === 'deferred' ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ''), namespace: 'deferred' },
    );
    b.onLoad({ filter: /.*/, namespace: 'deferred' }, ({ path }) => {
      const getters = Object.keys(createRequire(import.meta.url)(`node:${path}`)).map((name) => `get ${name}() { return load().${name}; }`);
      return { contents: `let loaded;\nconst load = () => (loaded ??= require('node:${path}'));\nmodule.exports = { ${getters.join(', ')} };\n`, loader: 'js' };
    });
  },
};

const shared = {
  bundle: true,
  plugins: [zodNamespace, packageEntries],
  platform: 'node',
  target: 'node24',
  // Unminified, so stack traces stay readable (source maps do not work inside a SEA).
  legalComments: 'none',
  logLevel: 'warning',
};

// The Action's bundle: the same bytes from any checkout (paths in its comments are relative to the root).
const actionBundle = join(root, 'action/dist/index.cjs');
const checkOnly = positionals[0] === 'action' && flags.check === true;
const action = await build({
  ...shared,
  absWorkingDir: root,
  entryPoints: ['src/action/main.ts'],
  format: 'cjs',
  outfile: actionBundle,
  banner: { js: '// Built by `npm run build` from src/action/main.ts: do not edit.' },
  write: !checkOnly,
});
if (checkOnly) {
  const fresh = action.outputFiles[0].text;
  if (!existsSync(actionBundle) || readFileSync(actionBundle, 'utf8') !== fresh) {
    console.error('action/dist/index.cjs is stale: run `npm run build` (or `node build/build.mjs action`) and commit it');
    process.exit(1);
  }
  console.log('action/dist/index.cjs matches a fresh build');
  process.exit(0);
}
console.log(`action/dist/index.cjs\t${statSync(actionBundle).size} bytes`);
if (positionals[0] === 'action') process.exit(0);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The validation worker is bundled on its own and embedded as source text: the bundles run it with
// `new Worker(source, { eval: true })`, having no file to point a worker at. The SEA's bundle embeds
// instead a runner of the worker's bundle, which it carries as an asset with its code cache.
const worker = await build({ ...shared, entryPoints: [join(root, 'src/features/task-worker.ts')], format: 'cjs', write: false });
// The dashboard's browser code, bundled the way the server does it from the sources, embedded likewise.
const { bundleDashboardClient } = await tsImport('../src/dashboard/script.ts', import.meta.url);
// The /docs page's renderer, a vendored script, embedded compressed as the server sends it.
const { compressDocsRenderer } = await tsImport('../src/pages/docs-renderer.ts', import.meta.url);
const common = {
  ...shared,
  entryPoints: [join(root, 'src/main.ts')],
  // import.meta only serves the from-sources paths (worker, dashboard bundling), which the embedded sources replace.
  define: {
    __VALIDATION_WORKER_SOURCE__: JSON.stringify(worker.outputFiles[0].text),
    __DASHBOARD_SCRIPT__: JSON.stringify(bundleDashboardClient()),
    __DOCS_RENDERER_GZIP__: JSON.stringify(compressDocsRenderer().toString('base64')),
    'import.meta.url': 'undefined',
    'import.meta.resolve': 'undefined',
  },
};
// esbuild escapes what is not ASCII in code but keeps it in the comments it keeps; one such character
// makes V8 hold the whole script as a two-byte string, which doubles its share of the snapshot.
const asciiOnly = (text) => text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** The CommonJS bundle (the SEA's main script, or one of its assets), its worker given as `workerSource`. */
const cjsBundle = async (workerSource) => {
  const bundled = await build({ ...common, define: { ...common.define, __VALIDATION_WORKER_SOURCE__: JSON.stringify(workerSource) }, plugins: [...common.plugins, deferredBuiltins], format: 'cjs', write: false });
  return asciiOnly(bundled.outputFiles[0].text);
};
writeFileSync(join(out, 'cardgate.cjs'), await cjsBundle(worker.outputFiles[0].text));
await build({
  ...common,
  format: 'esm',
  outfile: join(out, 'cardgate.mjs'),
  // Bundled CommonJS dependencies call require() for node: built-ins; give ESM one.
  banner: { js: "import { createRequire as __cardgateRequire } from 'node:module'; const require = __cardgateRequire(import.meta.url);" },
});

// The SEA is made of the pinned Node.js: its blob is generated by the binary it is injected into.
const pinnedPackage = `node-${process.platform}-${process.arch}`;
const pinnedVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).optionalDependencies?.[pinnedPackage];
const nodeBinary = join(root, 'node_modules', pinnedPackage, 'bin/node');
const nodeBinaryVersion = existsSync(nodeBinary) ? execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim() : undefined;
if (!pinnedVersion || nodeBinaryVersion !== `v${pinnedVersion}`) {
  console.error(`build: package.json pins ${pinnedPackage}@${pinnedVersion ?? '(none)'}, node_modules has ${nodeBinaryVersion ?? 'none'}: run npm ci`);
  process.exit(1);
}

/** The SEA's scripts with their code caches (`code-cache`), made in a scratch directory of `out`. */
const codeCacheScripts = async (dir) => {
  mkdirSync(dir);
  const bundle = join(dir, 'cardgate.cjs');
  const workerBundle = join(dir, 'task-worker.cjs');
  writeFileSync(bundle, await cjsBundle(assetRunner('task-worker.cjs', "'task-worker.cache'")));
  writeFileSync(workerBundle, asciiOnly(worker.outputFiles[0].text));
  const { ruleExamples } = await tsImport('../src/engine/rule-examples.ts', import.meta.url);
  const { parseConfig } = await tsImport('../src/config.ts', import.meta.url);
  const { validationSettings } = await tsImport('../src/features/validation/card-result.ts', import.meta.url);
  return codeCacheStart({
    node: nodeBinary,
    execArgv,
    dir,
    bundle,
    workerBundle,
    cards: Object.values(ruleExamples).flatMap(({ failing, passing }) => [failing, passing]),
    settings: validationSettings(parseConfig({})),
  });
};

// The SEA: copy the pinned node, strip it before injection when strip exists (stripping after corrupts it), inject the blob.
const scratch = join(out, 'sea');
const scripts = flags['sea-start'] === 'code-cache' ? await codeCacheScripts(scratch) : { main: join(out, 'cardgate.cjs') };
const seaConfig = join(out, 'sea-config.json');
writeFileSync(
  seaConfig,
  JSON.stringify({
    ...scripts,
    output: join(out, 'cardgate.blob'),
    disableExperimentalSEAWarning: true,
    ...seaStarts[flags['sea-start']],
    execArgv,
  }),
);
const fuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
if (!readFileSync(nodeBinary).includes(fuse)) {
  console.error(`build: ${nodeBinary} has no SEA fuse; cannot make the single executable`);
  process.exit(1);
}
// Building a snapshot start runs the bundle: a built-in loaded then that Node does not support in
// snapshots ("not yet fully verified") could leave the binary with state from the build.
const blob = spawnSync(nodeBinary, ['--experimental-sea-config', seaConfig], { encoding: 'utf8' });
process.stderr.write(blob.stderr.split('\n').filter((l) => l && !/ExperimentalWarning|--trace-warnings|^Wrote single executable preparation blob/.test(l)).map((l) => l + '\n').join(''));
if (blob.status !== 0 || blob.stderr.includes('not yet fully verified')) {
  console.error('build: the SEA blob could not be made, or its snapshot holds a built-in Node does not support in it (see above)');
  process.exit(1);
}
const binary = join(out, 'cardgate');
copyFileSync(nodeBinary, binary);
chmodSync(binary, 0o755);
try {
  execFileSync('strip', [binary], { stdio: 'ignore' });
} catch {
  console.warn('build: strip not available; the binary keeps its symbols (~12 MB larger)');
}
// postject warns "Can't find string offset for section name '.note…'" on Linux ELF: harmless, filtered out.
const injected = spawnSync(
  nodeBinary,
  [join(root, 'node_modules/postject/dist/cli.js'), binary, 'NODE_SEA_BLOB', join(out, 'cardgate.blob'), '--sentinel-fuse', fuse],
  { encoding: 'utf8' },
);
process.stderr.write(injected.stderr.split('\n').filter((l) => l && !l.includes("section name '.note")).map((l) => l + '\n').join(''));
if (injected.status !== 0) process.exit(1);
rmSync(join(out, 'cardgate.blob'));
rmSync(seaConfig);
rmSync(scratch, { recursive: true, force: true });
for (const file of ['cardgate.cjs', 'cardgate.mjs', 'cardgate']) {
  console.log(`build/out/${file}\t${statSync(join(out, file)).size} bytes`);
}
if (!existsSync(binary)) process.exit(1);
