/** The browser tests find a Chromium with nothing installed by hand, and leave nothing in the temp dir. */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { findChromium, startBrowser } from '../support/browser.ts';

describe('the browser harness', () => {
  const saved = { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CARDGATE_CHROMIUM: process.env.CARDGATE_CHROMIUM };
  let scratch = '';
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'cardgate-harness-'));
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('takes CARDGATE_CHROMIUM first, then chromium on PATH', async () => {
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'chromium'), '#!/bin/sh\n');
    chmodSync(join(bin, 'chromium'), 0o755);
    process.env.PATH = `${bin}:${saved.PATH}`;
    process.env.CARDGATE_CHROMIUM = '/opt/some/chromium';
    assert.equal((await findChromium()).executablePath, '/opt/some/chromium');
    delete process.env.CARDGATE_CHROMIUM;
    assert.equal((await findChromium()).executablePath, join(bin, 'chromium'));
  });

  it('else unpacks the bundled Chromium once into the temp dir, leaving only that folder', async () => {
    delete process.env.CARDGATE_CHROMIUM;
    process.env.PATH = '';
    process.env.TMPDIR = scratch;
    const first = await findChromium();
    assert.ok(first.executablePath.startsWith(join(scratch, 'cardgate-browser-')), first.executablePath);
    assert.ok(statSync(first.executablePath).mode & 0o100, 'executable');
    assert.ok(!first.args.includes('--disable-web-security'));
    const started = performance.now();
    assert.deepEqual(await findChromium(), first);
    assert.ok(performance.now() - started < 1000, 'the second call reuses the unpacked binary');
    assert.deepEqual(readdirSync(scratch), [first.executablePath.split('/').at(-2)]);
  });

  it('a browser that fails to start leaves nothing in the temp dir', async () => {
    process.env.CARDGATE_CHROMIUM = '/bin/false';
    process.env.TMPDIR = scratch;
    await assert.rejects(startBrowser('http://127.0.0.1:9'));
    assert.deepEqual(readdirSync(scratch), []);
  });
});
