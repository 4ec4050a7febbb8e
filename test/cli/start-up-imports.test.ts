/**
 * What a start sets up: the modules reachable by static imports from `cardgate validate` and from
 * `cardgate serve` (a dynamic import loads its module on first use instead). Each module reached
 * is set up on every start of the command, so what these do not use must not be among them.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;

/** The source files and the packages reached from `entry` by static imports. */
const startUpModules = (entry: string): { files: string[]; packages: string[] } => {
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const { metafile } = buildSync({ entryPoints: [entry], absWorkingDir: root, bundle: true, packages: 'external', platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  const files = new Set([entry]);
  const packages = new Set<string>();
  for (const queue = [entry]; queue.length > 0; ) {
    for (const { path, kind, external } of metafile.inputs[queue.shift()!]?.imports ?? []) {
      if (kind !== 'import-statement') continue;
      if (external) packages.add(path);
      else if (!files.has(path)) {
        files.add(path);
        queue.push(path);
      }
    }
  }
  return { files: [...files], packages: [...packages] };
};

test('validate sets up no server, no route, no API description, no ruleset compiler, no glob library', () => {
  const { files, packages } = startUpModules('src/cli/validate.ts');
  assert.ok(files.includes('src/engine/validate.ts') && files.includes('src/config.ts'), 'the engine and the configuration are there');
  assert.deepEqual(files.filter((f) => /^src\/(server|app)\.ts$|^src\/api\/|^src\/engine\/ruleset\/(compile|parse)\.ts$/.test(f)), []);
  assert.deepEqual(packages.filter((p) => /^(hono|@hono\/|@asteasolutions\/|tinyglobby|yaml|prom-client|openid-client|postgres)/.test(p)), []);
});

test('serve sets up none of the route groups it loads on first use (admin API, monitors, sign-in, MCP, API description)', () => {
  const { files, packages } = startUpModules('src/cli/serve.ts');
  assert.ok(files.includes('src/app.ts') && files.includes('src/api/routes/validate.ts'), 'the served app and its early groups are there');
  assert.deepEqual(files.filter((f) => /^src\/api\/(later-routes|routes\/(admin|monitors|auth|mcp|docs))\.ts$/.test(f)), []);
  assert.deepEqual(packages.filter((p) => /^(openid-client|@modelcontextprotocol\/)/.test(p)), []);
});
