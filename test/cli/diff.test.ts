/** `cardgate diff OLD NEW`: the classes of the card's changes, findings new and fixed, text and json, exit codes, hostile inputs; in process and as a child process. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runDiff } from '../../src/cli/diff.ts';
import { clean03, type Card } from '../engine/fixtures.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const dir = tempDirFactory('cardgate-diff-')();
const write = (name: string, card: unknown): string => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof card === 'string' ? card : JSON.stringify(card, null, 2));
  return file;
};
const edited = (edit: (c: Card) => void): Card => {
  const card = clean03();
  edit(card);
  return card;
};

const old = write('old.json', clean03());
const compatible = write('compatible.json', edited((c) => void (c.defaultInputModes as string[]).push('application/json')));
const breaking = write('breaking.json', edited((c) => {
  (c.skills as Card[]).pop();
  c.description = 'Plans trips, no booking.';
}));
const newError = write('new-error.json', edited((c) => void (c.name = 42)));

async function run(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runDiff(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async (maxBytes) => (options.stdin !== undefined && Buffer.byteLength(options.stdin) > maxBytes ? undefined : Buffer.from(options.stdin ?? '')),
    env: options.env ?? {},
  });
  return { code, stdout, stderr };
}

test('a breaking change exits 1 and prints it under Breaking, with why; other classes under theirs', async () => {
  const r = await run([old, breaking]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^Card: breaking \(1 breaking, 0 compatible, 1 cosmetic\)$/m);
  assert.match(r.stdout, /^Breaking \(1\)\n {2}skill-removed {2}removed skills\[1\]: \{"id":"book"/m);
  assert.match(r.stdout, /^Cosmetic \(1\)\n {2}descriptive-changed {2}changed description: "Plans trips\." -> "Plans trips, no booking\."$/m);
  assert.match(r.stdout, /^Why breaking:\n {2}skill-removed: Clients and registries/m);
});

test('no breaking change exits 0, whatever else changed: a compatible change, a new error', async () => {
  const added = await run([old, compatible]);
  assert.equal(added.code, 0);
  assert.match(added.stdout, /^Card: compatible \(0 breaking, 1 compatible, 0 cosmetic\)$/m);
  const worse = await run([old, newError]);
  assert.equal(worse.code, 0, 'a new error is a finding, not a breaking change');
  assert.match(worse.stdout, /^Findings: 1 new, 0 fixed, 0 unchanged\n {2}new {3}error schema\.type name: /m);
  assert.match(worse.stdout, /^Verdict: valid -> invalid; score 100 -> 0 \(-100\)$/m);
  const same = await run([old, old]);
  assert.equal(same.code, 0);
  assert.match(same.stdout, /^Card: unchanged \(0 breaking, 0 compatible, 0 cosmetic\)$/m);
});

test('--format json answers the diff of the API: card changes with class and rule, counts, class, findings', async () => {
  const r = await run([old, breaking, '--format', 'json']);
  assert.equal(r.code, 1);
  const body = JSON.parse(r.stdout);
  assert.equal(body.before, old);
  assert.equal(body.after, breaking);
  assert.deepEqual(body.card.counts, { breaking: 1, compatible: 0, cosmetic: 1 });
  assert.equal(body.card.class, 'breaking');
  assert.deepEqual(body.card.changes.map((c: { class: string; rule: string; path: string }) => [c.class, c.rule, c.path]), [['breaking', 'skill-removed', 'skills[1]'], ['cosmetic', 'descriptive-changed', 'description']]);
  assert.deepEqual(Object.keys(body.findings), ['new', 'fixed', 'unchanged', 'counts', 'complete']);
});

test('standard input for one card', async () => {
  const r = await run(['-', breaking], { stdin: JSON.stringify(clean03()) });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^cardgate diff: stdin -> /);
});

test('usage errors and cards that cannot be read exit 2, saying why', async () => {
  for (const [args, why] of [
    [[old], /give two cards, OLD and NEW \(1 given\)/],
    [[old, old, old], /\(3 given\)/],
    [['-', '-'], /standard input \(-\) can be only one/],
    [[old, breaking, '--format', 'sarif'], /--format must be text or json/],
    [[old, breaking, '--protocol-version', '9.9'], /unsupported --protocol-version "9\.9"/],
  ] as const) {
    const r = await run([...args]);
    assert.equal(r.code, 2, String(args));
    assert.match(r.stderr, why);
  }
  const unreadable = [
    [path.join(dir, 'nope.json'), /nope\.json: ENOENT: no such file or directory/],
    [dir, /a directory, not a regular file/],
    ['/dev/zero', /a device, not a regular file/],
    [write('not-json.json', '{"name":'), /not valid JSON/],
    [write('huge.json', JSON.stringify({ ...clean03(), description: 'x'.repeat(2 * 1024 * 1024) })), /larger than \d+ bytes, the size limit for a card \(http\.maxBodyBytes\)/],
  ] as const;
  for (const [file, why] of unreadable) {
    const r = await run([old, file]);
    assert.equal(r.code, 2, file);
    assert.match(r.stderr, why);
    assert.equal(r.stdout, '');
  }
});

test('as a child process: the subcommand is dispatched, with its exit code and help', async () => {
  const r = await runCli(['diff', old, breaking]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /skill-removed/);
  const help = await runCli(['diff', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: cardgate diff \[options\] OLD NEW/);
  assert.match((await runCli(['--help'])).stdout, /^ {2}diff OLD NEW {8}compare two cards/m);
});
