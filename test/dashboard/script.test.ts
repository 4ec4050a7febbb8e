/** /dashboard/app.js is the esbuild bundle of the TypeScript client, and a client that does not bundle says why. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Hono } from 'hono';
import { bundleDashboardClient } from '../../src/dashboard/script.ts';
import type { AppEnv } from '../../src/api/env.ts';
import { dashboardRoutes } from '../../src/api/routes/dashboard.ts';

const clientDir = new URL('../../src/dashboard/client', import.meta.url).pathname;
const clientModules = readdirSync(clientDir).filter((name) => name.endsWith('.ts'));

test('app.js is the bundle of the client entry: one IIFE holding every client module', async () => {
  const served = await (await new Hono<AppEnv>().route('/', dashboardRoutes({ adminToken: 'generated' })).request('/dashboard/app.js')).text();
  assert.equal(served, bundleDashboardClient());
  assert.match(served, /^"use strict";\n\(\(\) => \{\n/);
  assert.match(served, /\n\}\)\(\);\n$/);
  assert.ok(clientModules.includes('main.ts'));
  for (const name of clientModules) {
    // esbuild heads each bundled module with its path: the code is there as compiled modules.
    assert.ok(served.includes(`\n  // src/dashboard/client/${name}\n`), `${name} is bundled`);
  }
});

/** The only module outside the client the bundle may hold: the agent's score chart, shared with its page (it imports nothing). */
const SHARED_MODULES = ['src/pages/agent-chart.ts'];

test('the bundle carries no server code: the client takes the server\'s answers as types only', () => {
  const bundled = [...bundleDashboardClient().matchAll(/^  \/\/ (\S+\.ts)$/gm)].map((m) => m[1]!);
  assert.ok(bundled.length >= clientModules.length, bundled.join(', '));
  const foreign = bundled.filter((path) => !path.startsWith('src/dashboard/client/') && !SHARED_MODULES.includes(path));
  assert.deepEqual(foreign, [], 'modules of the server in the dashboard bundle');
  for (const name of clientModules) {
    const source = readFileSync(join(clientDir, name), 'utf8');
    for (const [, what, from] of source.matchAll(/^(?:import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm)) {
      if (from!.startsWith('./') || SHARED_MODULES.some((path) => from!.endsWith(path.replace(/^src\//, '')))) continue;
      assert.ok(what, `${name} imports ${from} with \`import type\` (a value would bundle the server's module)`);
    }
  }
  assert.match(readFileSync(join(clientDir, 'monitors.ts'), 'utf8'), /import type \{[^}]*\bMonitor\b[^}]*\} from '\.\.\/\.\.\/api\/answer-types\.ts'/, 'the answer types come from the server');
});

test('the client modules are code, not source text in template strings', () => {
  for (const name of clientModules) {
    const source = readFileSync(join(clientDir, name), 'utf8');
    assert.doesNotMatch(source, /String\.raw|= `/, `${name} holds no code in a template string`);
  }
});

test('a client that does not bundle fails with the file, line and esbuild message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardgate-dashboard-'));
  try {
    const entry = join(dir, 'broken.ts');
    writeFileSync(entry, "import { missing } from './nowhere.ts';\nconst x = ;\n");
    assert.throws(() => bundleDashboardClient(entry), (e: Error) => {
      assert.match(e.message, /^cannot bundle the dashboard client .*broken\.ts: Build failed/);
      assert.match(e.message, /broken\.ts:2:10: ERROR: Unexpected ";"/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
