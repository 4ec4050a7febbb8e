/**
 * A team's first run of `cardgate validate` on its own files, as processes: cards named by the
 * team's convention (`owner__repo__agent-card.json`) that no default name matches, absolute paths,
 * a `.cardgate.yaml` in a parent directory, `-q` with `--max-warnings`, a mistyped flag, and the
 * JSON with its summary beside the cards.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { builtinServerRuleset } from '../../src/features/rulesets/server-rulesets.ts';
import { clean03 } from '../engine/fixtures.ts';
import { postJson, testApp } from '../support/app.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDir = tempDirFactory('cardgate-first-contact-');

/** A card with two placeholder URLs (two warnings), as a file of the team's. */
const cardText = (name: string) => JSON.stringify({ ...clean03(), name, url: 'https://agent.example.com/a2a', iconUrl: 'https://YOUR-HOST.example.com/icon.png' }, null, 2);

/** A repository (`.git`, a ruleset at its root) with cards two levels down, named by the team's convention. */
const repository = (ruleset?: string) => {
  const root = newDir();
  fs.mkdirSync(path.join(root, '.git'));
  if (ruleset !== undefined) fs.writeFileSync(path.join(root, '.cardgate.yaml'), ruleset);
  const cards = path.join(root, 'services', 'cards');
  fs.mkdirSync(cards, { recursive: true });
  for (const name of ['acme__billing__agent-card.json', 'acme__search__agent-card.json']) fs.writeFileSync(path.join(cards, name), cardText(name));
  fs.writeFileSync(path.join(root, 'services', 'package.json'), '{}');
  return { root, services: path.join(root, 'services'), cards };
};

test('cardgate validate <dir> with no known file name: says how many JSON files it holds and the --pattern that takes them, which then works', async () => {
  const { services } = repository();
  const r = await runCli(['validate', 'cards'], { cwd: services });
  assert.equal(r.code, 2);
  assert.match(r.stdout, /no agent card under cards \(searched for agent-card\.json, agent_card\.json, agent\.json, \*\.agent-card\.json\); it holds 2 JSON files \(acme__billing__agent-card\.json, acme__search__agent-card\.json\): to check them, add --pattern '\*__agent-card\.json'/);
  const followed = await runCli(['validate', 'cards', '--pattern', '*__agent-card.json'], { cwd: services });
  assert.equal(followed.code, 0, followed.stdout + followed.stderr);
  assert.match(followed.stdout, /\n2 cards checked: all valid; 0 errors, 4 warnings\n$/);
  const none = await runCli(['validate', '.'], { cwd: newDir() });
  assert.match(none.stdout, /no agent card under \. \(searched for [^)]*\); it holds no JSON file/);
});

test('inputs are printed as given: an absolute directory, file or glob stays absolute, a relative one relative', async () => {
  const { services, cards } = repository();
  const file = path.join(cards, 'acme__billing__agent-card.json');
  for (const operand of [cards, path.join(cards, '*.json'), file]) {
    const r = await runCli(['validate', operand, '--pattern', '*__agent-card.json', '-f', 'json'], { cwd: services });
    const files = (JSON.parse(r.stdout) as Array<{ file: string }>).map((e) => e.file);
    assert.ok(files.length > 0 && files.every((f) => f.startsWith(`${cards}${path.sep}`)), `${operand}: ${files.join(', ')}`);
  }
  const relative = await runCli(['validate', 'cards', '--pattern', '*__agent-card.json', '-f', 'json'], { cwd: services });
  assert.deepEqual((JSON.parse(relative.stdout) as Array<{ file: string }>).map((e) => e.file), ['cards/acme__billing__agent-card.json', 'cards/acme__search__agent-card.json']);
});

test('the text and JSON outputs name the ruleset that judged: a parent directory\'s .cardgate.yaml by its path and the hash a server gives it; none is the built-in recommended', async () => {
  const rulesetText = 'rules:\n  url.placeholder: info\n';
  const { root, services } = repository(rulesetText);
  const t = testApp();
  const admin = { authorization: `Bearer ${t.config.adminToken}` };
  const account = (await (await t.app.request('/admin/api/accounts', postJson({ name: 'Acme', plan: 'pro' }, admin))).json()).account;
  const put = await t.app.request(`/admin/api/accounts/${account.id}/ruleset`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/yaml' }, body: rulesetText });
  const serverHash = (await put.json()).ruleset.ruleset.hash as string;
  assert.match(serverHash, /^sha256:[0-9a-f]{64}$/);

  const args = ['validate', 'cards', '--pattern', '*__agent-card.json'];
  const text = await runCli(args, { cwd: services });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`\\nRuleset: ${path.join(root, '.cardgate.yaml').replace(/[.]/g, '\\.')} \\(${serverHash}\\)\\n2 cards checked: all valid; 0 errors, 0 warnings\\n$`));
  const json = JSON.parse((await runCli([...args, '-f', 'json'], { cwd: services })).stdout) as Array<{ ruleset: unknown }>;
  for (const entry of json) assert.deepEqual(entry.ruleset, { id: 'file', file: path.join(root, '.cardgate.yaml'), hash: serverHash });
  fs.copyFileSync(path.join(root, '.cardgate.yaml'), path.join(services, 'team.yaml'));
  const given = await runCli([...args, '--ruleset', 'team.yaml'], { cwd: services });
  assert.match(given.stdout, new RegExp(`\\nRuleset: team\\.yaml \\(${serverHash}\\)\\n`), 'a ruleset in the working directory is named relative to it');

  const plain = repository();
  const builtin = await runCli(args, { cwd: plain.services });
  assert.match(builtin.stdout, /\nRuleset: built-in recommended \(cardgate:recommended\)\n2 cards checked: all valid; 0 errors, 4 warnings\n$/);
  const builtinJson = JSON.parse((await runCli([...args, '-f', 'json'], { cwd: plain.services })).stdout) as Array<{ ruleset: { id: string; hash: string } }>;
  assert.equal(builtinJson[0]!.ruleset.id, 'cardgate:recommended');
  assert.equal(builtinJson[0]!.ruleset.hash, builtinServerRuleset('cardgate:recommended')!.hash, 'the hash a server gives the built-in');
});

test('-q --max-warnings 2: the summary counts the warnings it does not show, as the verdict does', async () => {
  const { services } = repository();
  const r = await runCli(['validate', 'cards', '--pattern', '*__agent-card.json', '-q', '--max-warnings', '2'], { cwd: services });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /\n2 cards checked: all valid; 0 errors, 4 warnings \(not shown: --quiet\)\n$/);
  assert.equal(r.stderr, 'cardgate validate: too many warnings: 4 (--max-warnings 2)\n');
  assert.doesNotMatch(r.stdout, /warning  /, 'no warning is listed');
});

test('an unknown flag is named plainly, quotes balanced, with how to pass an operand that starts with a dash', async () => {
  const { services } = repository();
  const r = await runCli(['validate', 'cards', '--foo'], { cwd: services });
  assert.equal(r.code, 2);
  const first = r.stderr.split('\n')[0]!;
  assert.equal(first, "cardgate validate: unknown option --foo (an operand that starts with '-' goes after '--': -- --foo)");
  assert.equal((first.match(/'/g) ?? []).length % 2, 0);
  assert.equal((first.match(/"/g) ?? []).length % 2, 0);
  const noOperands = await runCli(['export', '--bogus'], { cwd: services });
  assert.equal(noOperands.stderr.split('\n')[0], 'cardgate export: unknown option --bogus');
});

test('--format json-summary: the json entries as they are, under cards, with the run\'s summary beside them (totals, ruleset, exit code and why)', async () => {
  const { services } = repository();
  const args = ['validate', 'cards', 'missing.json', '--pattern', '*__agent-card.json', '--max-warnings', '3'];
  const json = await runCli([...args, '-f', 'json'], { cwd: services });
  const summary = await runCli([...args, '-f', 'json-summary'], { cwd: services });
  assert.equal(summary.code, 2);
  const document = JSON.parse(summary.stdout) as { cards: unknown[]; summary: Record<string, unknown> };
  assert.deepEqual(Object.keys(document), ['cards', 'summary']);
  assert.deepEqual(document.cards, JSON.parse(json.stdout), 'the same entries, nothing renamed');
  assert.deepEqual(document.summary, {
    inputs: 3,
    cards: 2,
    valid: 2,
    invalid: 0,
    unchecked: 1,
    errors: 1,
    warnings: 4,
    ruleset: (document.cards[0] as { ruleset: unknown }).ruleset,
    exit_code: 2,
    reason: 'an input could not be checked',
  });
  // It is a baseline too, as the json output is.
  const baselineFile = path.join(services, 'baseline.json');
  fs.writeFileSync(baselineFile, summary.stdout);
  const again = await runCli(['validate', 'cards', '--pattern', '*__agent-card.json', '--baseline', baselineFile, '--fail-on', 'warning'], { cwd: services });
  assert.equal(again.code, 0, again.stdout + again.stderr);
});
