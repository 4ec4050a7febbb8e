/** What `cardgate validate DIR` searches for: the default names (the ADK's agent_card.json among them), or the project's --pattern. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDir = tempDirFactory('cardgate-patterns-');
const fixtures = path.join(import.meta.dirname, '../engine/fixtures/a2a/cards');
const adkCard = fs.readdirSync(fixtures).find((name) => name.endsWith('__agent_card.json'))!;

const tree = (files: Record<string, string>): string => {
  const dir = newDir();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
};
const filesOf = (stdout: string): string[] => JSON.parse(stdout).map((e: { file: string }) => e.file);

test("a directory search finds the ADK's agent_card.json (a real card's name)", async () => {
  assert.ok(adkCard, 'a fixture card is named agent_card.json');
  const dir = tree({ 'agent/agent_card.json': fs.readFileSync(path.join(fixtures, adkCard), 'utf8') });
  const r = await runCli(['validate', '.', '--format', 'json', '--fail-on', 'never'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(filesOf(r.stdout), ['agent/agent_card.json']);
});

test('--pattern (repeatable) replaces the names searched for: a bare name at any depth, one with a slash under the directory', async () => {
  const card = JSON.stringify({ name: 'x' });
  const dir = tree({ 'a/x.card.json': card, 'a/b/y.card.json': card, 'agent-card.json': card, 'cards/z.json': card, 'other/z.json': card });
  const r = await runCli(['validate', '.', '--pattern', '*.card.json', '--pattern', 'cards/*.json', '--format', 'json', '--fail-on', 'never'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(filesOf(r.stdout), ['a/b/y.card.json', 'a/x.card.json', 'cards/z.json']);
  const none = await runCli(['validate', 'other', '--pattern', '*.card.json'], { cwd: dir });
  assert.equal(none.code, 2);
  assert.match(none.stdout, /no agent card under other \(searched for \*\.card\.json\)/);
  const defaults = await runCli(['validate', 'other'], { cwd: dir });
  assert.match(defaults.stdout, /searched for agent-card\.json, agent_card\.json, agent\.json, \*\.agent-card\.json/);
});

test('--pattern is bounded and stays inside the directory searched', async () => {
  const dir = tree({ 'agent-card.json': '{}' });
  for (const args of [['--pattern', '../*.json'], ['--pattern', '/etc/*'], ['--pattern', ''], ['--pattern', 'x'.repeat(201)], Array.from({ length: 21 }, (_, i) => ['--pattern', `${i}.json`]).flat()]) {
    const r = await runCli(['validate', '.', ...args], { cwd: dir });
    assert.equal(r.code, 2, args.join(' ').slice(0, 80));
    assert.match(r.stderr, /cardgate validate: --pattern: /);
    assert.equal(r.stdout, '');
  }
});
