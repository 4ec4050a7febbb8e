/**
 * The project runs on the Node.js it pins (package.json's node-linux-* packages, whose `node` npm
 * scripts put first on PATH): tests, the build, the image and the Action agree on it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServer } from './support/server.ts';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};
const pins = Object.entries(pkg.optionalDependencies).filter(([name]) => /^node-(linux|darwin|win)-/.test(name));
const pinned = pins[0]?.[1];

test('npm test runs on the pinned Node.js 24, the one every platform package, the image and engines name', () => {
  assert.ok(pins.length > 0, 'package.json pins node-<platform>-<arch>');
  assert.ok(process.versions.node.startsWith('24.'), `npm test runs on Node ${process.versions.node}`);
  assert.equal(process.versions.node, pinned);
  for (const [name, v] of pins) assert.equal(v, pinned, `${name} pins the same version`);
  assert.equal(pkg.engines.node, `^${pinned}`);
  assert.match(readFileSync(join(root, 'Dockerfile'), 'utf8'), new RegExp(`^FROM node:${pinned!.replaceAll('.', '\\.')}-bookworm AS build$`, 'm'));
  assert.match(readFileSync(join(root, 'action.yml'), 'utf8'), /^ {2}using: node24$/m);
});

test('cardgate version names the runtime; --version prints the bare version scripts parse', async () => {
  const long = await runCli(['version']);
  assert.equal(long.code, 0);
  assert.equal(long.stdout, `cardgate ${pkg.version} (Node.js v${pinned}, ${process.platform}-${process.arch})\n`);
  const bare = await runCli(['--version']);
  assert.equal(bare.code, 0);
  assert.equal(bare.stdout, `${pkg.version}\n`);
});

test('/healthz does not tell the runtime version', async () => {
  const server = await startServer();
  try {
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.ok(body.length > 0);
    assert.ok(!body.includes(process.versions.node), body);
    assert.ok(![...res.headers.values()].some((v) => v.includes(process.versions.node)));
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
