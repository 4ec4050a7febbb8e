/**
 * Every file the CLI reads is bounded, a regular file (or `-`), valid UTF-8, read once per real
 * path; as processes, with the hostile inputs: /dev/zero, a FIFO, a symlink loop, `''`, `1e400`.
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clean03 } from '../engine/fixtures.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDir = tempDirFactory('cardgate-reads-');
const dir = newDir();
const write = (name: string, content: string | Buffer): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
const noDatabase = { CARDGATE_DATABASE_URL: '' };
const card = write('card.json', JSON.stringify(clean03(), null, 2));
const keyDir = newDir();
const keyName = path.join(keyDir, 'ci');
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The CLI with standard input read from a file (a device such as /dev/zero), killed after 30 s. */
const runWithStdinFrom = async (args: string[], stdinFile: string) => {
  const stdin = fs.openSync(stdinFile, 'r');
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'src/main.ts'), ...args], {
    env: { ...process.env, ...noDatabase },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  fs.closeSync(stdin);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stderr };
};

test('keygen for the signing tests', async () => {
  assert.equal((await runCli(['keygen', '--out', keyName])).code, 0);
});

test('/dev/zero is refused at once by trust add, import, sign (card and --key), validate, --config and --trust', async () => {
  const dataDir = path.join(newDir(), 'data');
  const cases: Array<[string[], number, RegExp]> = [
    [['trust', 'add', '/dev/zero', '--data-dir', dataDir], 1, /trust add: \/dev\/zero: a device, not a regular file/],
    [['import', '/dev/zero', '--data-dir', dataDir], 1, /import: cannot read \/dev\/zero: a device, not a regular file/],
    [['sign', '/dev/zero', '--key', `${keyName}.private.jwk`], 1, /cannot read the card \/dev\/zero: a device, not a regular file/],
    [['sign', card, '--key', '/dev/zero'], 1, /cannot read the key \/dev\/zero: a device, not a regular file/],
    [['validate', '--config', '/dev/zero', card], 2, /cannot read config file \/dev\/zero: a device, not a regular file/],
    [['validate', '--trust', '/dev/zero', card], 2, /trust file \/dev\/zero: a device, not a regular file/],
  ];
  for (const [args, code, message] of cases) {
    const r = await runCli(args, { env: noDatabase });
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /RangeError|at .*\.ts:\d+/, 'no stack');
  }
  const v = await runCli(['validate', '/dev/zero'], { env: noDatabase });
  assert.equal(v.code, 2);
  assert.match(v.stdout, /\/dev\/zero +error +a device, not a regular file/);
});

test('a file beyond its bound is refused naming the file and the bound: a key file, a config file, a card to sign from stdin', async () => {
  const big = write('big.jwk', `{"kty":"EC","pad":"${'x'.repeat(1 << 20)}"}`);
  const trust = await runCli(['trust', 'add', big, '--data-dir', path.join(newDir(), 'data')], { env: noDatabase });
  assert.equal(trust.code, 1);
  assert.match(trust.stderr, /big\.jwk: larger than 1048576 bytes, the size limit for a key or JWKS file/);
  const config = write('cardgate.json', `{"pad":"${'x'.repeat(1 << 20)}"}`);
  const v = await runCli(['validate', '--config', config, card]);
  assert.equal(v.code, 2);
  assert.match(v.stderr, /config file .*cardgate\.json: larger than 1048576 bytes, the size limit for a configuration file/);
  const sign = await runCli(['sign', '-', '--key', `${keyName}.private.jwk`], { stdin: ' '.repeat(16 * 1024 * 1024 + 1) });
  assert.equal(sign.code, 1);
  assert.match(sign.stderr, /cannot read the card -: larger than 16777216 bytes, the size limit for a card to sign/);
});

test('import streams line by line: an endless line from standard input stops at the line bound, a bad line is named, nothing is kept', async () => {
  const dataDir = path.join(newDir(), 'data');
  const endless = await runWithStdinFrom(['import', '-', '--data-dir', dataDir], '/dev/zero');
  assert.equal(endless.code, 1, endless.stderr);
  assert.match(endless.stderr, /import: line 1: larger than 67108864 bytes, the size limit for a line of an import/);
  assert.doesNotMatch(endless.stderr, /RangeError/);
  assert.equal(fs.existsSync(dataDir), false, 'the store was never opened');
  const header = '{"format":"cardgate-export","format_version":1,"cardgate":"0.1.0","exported_at":"2026-11-21T00:00:00.000Z"}';
  const account = '{"table":"accounts","row":{"id":"acct_1","name":"Acme","plan":"free","created_at":"2026-11-21T00:00:00.000Z"}}';
  const notUtf8 = Buffer.concat([Buffer.from(`${header}\n${account}\n{"table":"meta","row":{"key":"k","value":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]);
  const r = await runCli(['import', write('bad-utf8.jsonl', notUtf8), '--data-dir', dataDir], { env: noDatabase });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /import: line 3: not valid UTF-8 text; nothing was imported/);
  assert.equal(fs.existsSync(dataDir), false, 'line 2 was not kept');
});

test('a FIFO is refused, not waited on: validate, sign, import, trust add', async () => {
  const fifo = path.join(newDir(), 'card.fifo');
  execFileSync('mkfifo', [fifo]);
  const v = await runCli(['validate', fifo], { timeoutMs: 20_000 });
  assert.equal(v.code, 2, v.stderr);
  assert.match(v.stdout, /card\.fifo +error +a FIFO, not a regular file/);
  for (const [args, message] of [
    [['sign', fifo, '--key', `${keyName}.private.jwk`], /cannot read the card .*card\.fifo: a FIFO, not a regular file/],
    [['import', fifo, '--data-dir', path.join(newDir(), 'data')], /cannot read .*card\.fifo: a FIFO, not a regular file/],
    [['trust', 'add', fifo, '--data-dir', path.join(newDir(), 'data')], /card\.fifo: a FIFO, not a regular file/],
  ] as const) {
    const r = await runCli([...args], { env: noDatabase, timeoutMs: 20_000 });
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test("an empty operand '' is a usage error, not the working directory", async () => {
  const cases: string[][] = [['validate', ''], ['validate', card, ''], ['sign', '', '--key', `${keyName}.private.jwk`], ['import', ''], ['trust', 'add', '']];
  for (const args of cases) {
    const r = await runCli(args, { env: noDatabase, cwd: dir });
    assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '', 'nothing validated');
  }
});

test('a symlinked directory loop checks its card once', async () => {
  const tree = newDir();
  fs.mkdirSync(path.join(tree, 'a'));
  fs.writeFileSync(path.join(tree, 'a', 'agent-card.json'), JSON.stringify(clean03()));
  fs.symlinkSync('..', path.join(tree, 'a', 'up'));
  fs.symlinkSync('a', path.join(tree, 'again'));
  const r = await runCli(['validate', '.', 'a/agent-card.json', '--format', 'json'], { cwd: tree });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).map((e: { file: string }) => e.file), ['a/agent-card.json']);
});

test('text that is not UTF-8 is refused (as the server refuses it); a byte order mark is not', async () => {
  const latin1 = write('latin1.json', Buffer.from(JSON.stringify({ ...clean03(), description: 'caf\u00e9' }), 'latin1'));
  const r = await runCli(['validate', latin1]);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /latin1\.json +error +not valid UTF-8 text/);
  const bom = write('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(clean03()))]));
  assert.equal((await runCli(['validate', bom])).code, 0);
});

test('a number JSON cannot hold (1e400) is named as such by validate and sign', async () => {
  const text = JSON.stringify(clean03(), null, 2).replace('"name"', '"x-huge": 1e400,\n  "name"');
  const line = text.split('\n').findIndex((l) => l.includes('1e400')) + 1;
  const huge = write('huge.json', text);
  const v = await runCli(['validate', huge]);
  assert.equal(v.code, 2, v.stdout);
  assert.ok(v.stdout.includes(`huge.json:${line}:13  error    the number 1e400 is beyond what a JSON number can hold (±1.8e308)`), v.stdout);
  const s = await runCli(['sign', huge, '--key', `${keyName}.private.jwk`]);
  assert.equal(s.code, 1);
  assert.match(s.stderr, /cannot sign .*huge\.json: the number 1e400 at line 3, column 13 is beyond what a JSON number can hold/);
  assert.doesNotMatch(s.stderr, /surrogate/);
});
