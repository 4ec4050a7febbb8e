/** Rulesets on the CLI: --ruleset, the nearest .cardgate.yaml, `cardgate rules`, `cardgate ruleset check`, bad and hostile files; discovery.legacy-path for a URL. */
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirFactory } from '../support/temp.ts';
import { runCli } from '../support/server.ts';
import { startCardHost } from '../support/card-host.ts';
import { clean03 } from '../engine/fixtures.ts';

const newDir = tempDirFactory('cardgate-rulesets-');
const write = (dir: string, name: string, text: string): string => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
};
const httpCard = JSON.stringify({ ...clean03(), url: 'http://agent.travel.test/a2a' }, null, 2);
const rulesOf = (stdout: string): string[] => (JSON.parse(stdout) as Array<{ errors: Array<{ rule: string }>; warnings: Array<{ rule: string }> }>)
  .flatMap((f) => [...f.errors, ...f.warnings].map((i) => i.rule));

test('validate: the nearest .cardgate.yaml up to the repository root applies, with its overrides; --ruleset names another', async () => {
  const repo = newDir();
  mkdirSync(path.join(repo, '.git'));
  write(repo, '.cardgate.yaml', 'extends: cardgate:recommended\nrules:\n  url.https: error\noverrides:\n  - files: ["dev/**"]\n    rules: { url.https: off }\n');
  write(repo, 'cards/prod.json', httpCard);
  write(repo, 'cards/dev/local.json', httpCard);
  const found = await runCli(['validate', '--format', 'json', 'prod.json'], { cwd: path.join(repo, 'cards') });
  assert.equal(found.code, 1, found.stderr);
  assert.deepEqual(rulesOf(found.stdout), ['url.https']);
  const dev = await runCli(['validate', 'dev/local.json'], { cwd: path.join(repo, 'cards') });
  assert.equal(dev.code, 0, 'dev/** turns url.https off');
  const lax = write(repo, 'lax.json', '{"rules": {"url.https": "info"}}');
  const named = await runCli(['validate', '--ruleset', lax, '--format', 'json', 'cards/prod.json'], { cwd: repo });
  assert.equal(named.code, 0, named.stderr);
  assert.deepEqual(rulesOf(named.stdout), []);
  // Above the repository root nothing is looked for.
  const outside = newDir();
  write(outside, '.cardgate.yaml', 'rules: { url.https: error }\n');
  const inner = path.join(outside, 'project');
  mkdirSync(path.join(inner, '.git'), { recursive: true });
  write(inner, 'card.json', httpCard);
  assert.equal((await runCli(['validate', 'card.json'], { cwd: inner })).code, 0);
});

test('a bad ruleset: validate exits 2 and ruleset check exits 1, both with FILE:line:column; a good one checks', async () => {
  const dir = newDir();
  write(dir, 'card.json', httpCard);
  write(dir, 'bad.yaml', 'rules:\n  url.https: loud\n  schema.required: off\n');
  const validate = await runCli(['validate', '--ruleset', 'bad.yaml', 'card.json'], { cwd: dir });
  assert.equal(validate.code, 2);
  const expected = 'bad.yaml:2:14: rules.url.https: must be one of off, info, warning (warn), error, or a custom rule object\n';
  assert.equal(validate.stderr, expected);
  const check = await runCli(['ruleset', 'check', 'bad.yaml'], { cwd: dir });
  assert.deepEqual([check.code, check.stderr], [1, expected]);
  write(dir, 'lowered.yaml', 'rules:\n  url.https: error\n  schema.required: off\n');
  const lowered = await runCli(['ruleset', 'check', 'lowered.yaml'], { cwd: dir });
  assert.deepEqual([lowered.code, lowered.stderr], [1, 'lowered.yaml:3:20: rules.schema.required: schema.required enforces a MUST of the specification or the official schema: it cannot be lowered to off\n']);
  write(dir, 'base.yaml', 'extends: cardgate:strict\n');
  write(dir, 'good.yaml', 'extends: ./base.yaml\nrules:\n  acme.owner: { given: $, then: { field: x-acme-owner, function: defined } }\n');
  const good = await runCli(['ruleset', 'check', 'good.yaml'], { cwd: dir });
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stdout, /^good\.yaml: valid \(\d+ rule severities, 1 custom rules, 0 overrides\)\n$/);
  const zero = await runCli(['ruleset', 'check', '/dev/zero'], { cwd: dir });
  assert.deepEqual([zero.code, zero.stderr], [1, '/dev/zero: a device, not a regular file\n']);
  write(dir, 'huge.yaml', `# ${'x'.repeat(262_144)}\n`);
  const huge = await runCli(['ruleset', 'check', 'huge.yaml'], { cwd: dir });
  assert.deepEqual([huge.code, huge.stderr], [1, 'huge.yaml: larger than 262144 bytes, the size limit for a ruleset\n']);
  writeFileSync(path.join(dir, 'latin1.yaml'), Buffer.from('rules: {}\n# caf\xe9\n', 'latin1'));
  const latin1 = await runCli(['ruleset', 'check', 'latin1.yaml'], { cwd: dir });
  assert.deepEqual([latin1.code, latin1.stderr], [1, 'latin1.yaml: not valid UTF-8 text\n']);
  execFileSync('mkfifo', [path.join(dir, 'fifo.yaml')]);
  const fifo = await runCli(['ruleset', 'check', 'fifo.yaml'], { cwd: dir });
  assert.deepEqual([fifo.code, fifo.stderr], [1, 'fifo.yaml: a FIFO, not a regular file\n']);
  assert.equal((await runCli(['ruleset', 'lint', 'good.yaml'], { cwd: dir })).code, 2);
});

test('cardgate rules lists every rule with its effective severity and source', async () => {
  const dir = newDir();
  write(dir, 'team.yaml', 'extends: cardgate:strict\nrules:\n  field.unknown: off\n  acme.owner: { given: $, then: { field: x-acme-owner, function: defined }, severity: error }\n');
  const r = await runCli(['rules', '--ruleset', 'team.yaml'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines[0], 'ruleset team.yaml');
  const row = (id: string) => lines.find((l) => l.startsWith(`${id} `))?.trim().split(/\s{2,}/);
  assert.deepEqual(row('field.unknown'), ['field.unknown', 'off', 'team.yaml']);
  assert.deepEqual(row('url.https'), ['url.https', 'error', 'cardgate:strict']);
  assert.deepEqual(row('schema.required'), ['schema.required', 'error', 'catalogue (must)']);
  assert.deepEqual(row('acme.owner'), ['acme.owner', 'error', 'team.yaml (custom)']);
});

test('a URL whose card is only at /.well-known/agent.json: discovery.legacy-path', async () => {
  const host = await startCardHost({ '/.well-known/agent.json': { body: JSON.stringify(clean03()) } });
  try {
    const r = await runCli(['validate', '--format', 'json', host.url], { cwd: newDir() });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(rulesOf(r.stdout), ['discovery.legacy-path']);
  } finally {
    await host.close();
  }
});

test('baseline round trip: --update-baseline writes it, known findings fail nothing, a new one does; a bad baseline exits 2', async () => {
  const dir = newDir();
  const card = { ...clean03(), url: 'http://agent.travel.test/a2a', name: 42 };
  write(dir, 'card.json', JSON.stringify(card, null, 2));
  assert.equal((await runCli(['validate', 'card.json'], { cwd: dir })).code, 1, 'an error without a baseline');
  assert.equal((await runCli(['validate', '--update-baseline', 'card.json'], { cwd: dir })).code, 2, '--update-baseline needs --baseline');
  const update = await runCli(['validate', '--baseline', 'baseline.json', '--update-baseline', '--fail-on', 'warning', 'card.json'], { cwd: dir });
  assert.equal(update.code, 0, update.stderr);
  const again = await runCli(['validate', '--baseline', 'baseline.json', '--format', 'json', '--fail-on', 'warning', 'card.json'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  const [entry] = JSON.parse(again.stdout) as Array<{ valid: boolean; errors: unknown[]; warnings: unknown[]; baseline: Array<{ rule: string; path: string }> }>;
  assert.deepEqual([entry!.valid, entry!.errors, entry!.warnings], [false, [], []], 'the verdict stays; the findings moved');
  assert.deepEqual(entry!.baseline.map((f) => `${f.rule}@${f.path}`).sort(), ['schema.type@name', 'url.https@url']);
  write(dir, 'card.json', JSON.stringify({ ...card, iconUrl: 'http://travel.test/icon.png' }, null, 2));
  const grown = await runCli(['validate', '--baseline', 'baseline.json', '--format', 'json', '--fail-on', 'warning', 'card.json'], { cwd: dir });
  assert.equal(grown.code, 1);
  assert.deepEqual(rulesOf(grown.stdout), ['url.https'], 'only the new finding (iconUrl) counts');
  assert.equal((JSON.parse(grown.stdout) as Array<{ warnings: Array<{ path: string }> }>)[0]!.warnings[0]!.path, 'iconUrl');
  write(dir, 'bad-baseline.json', '{"not": "a report"}');
  const bad = await runCli(['validate', '--baseline', 'bad-baseline.json', 'card.json'], { cwd: dir });
  assert.deepEqual([bad.code, bad.stderr], [2, 'cardgate validate: bad-baseline.json: not an array; a baseline is the output of cardgate validate --format json\n']);
  assert.equal((await runCli(['validate', '--baseline', '/dev/zero', 'card.json'], { cwd: dir })).code, 2);
});
