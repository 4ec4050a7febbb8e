/** Rulesets as the server keeps them: one hash per policy however written, compiled once per hash, built-ins by name. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinRulesetHash, rulesetHash } from '../../../src/features/rulesets/ruleset-hash.ts';
import { builtinServerRuleset, serverRulesetFromText } from '../../../src/features/rulesets/server-rulesets.ts';

const compiled = (text: string, id = 'account') => {
  const r = serverRulesetFromText(text, id);
  assert.ok('ruleset' in r, JSON.stringify(r));
  return r.ruleset;
};

test('the hash is of the canonical form: YAML or JSON, any member order, comments, give one hash; another policy another', () => {
  const yaml = compiled('# ours\nrules:\n  url.https: error\n  field.unknown: off\n');
  const json = compiled('{"rules": {"field.unknown": "off", "url.https": "error"}}');
  assert.match(yaml.hash, /^sha256:[0-9a-f]{64}$/);
  assert.equal(json.hash, yaml.hash);
  assert.equal(yaml.hash, rulesetHash({ rules: { 'url.https': 'error', 'field.unknown': 'off' } }));
  assert.notEqual(compiled('rules:\n  url.https: warning\n').hash, yaml.hash);
});

test('compiled once per hash: the same text (or its stored hash) gives the very same compiled data', () => {
  const text = 'rules:\n  provider.missing: error\n';
  const first = compiled(text);
  const again = serverRulesetFromText('{"rules":{"provider.missing":"error"}}', 'account');
  assert.ok('ruleset' in again);
  assert.equal(again.ruleset.data, first.data, 'from the cache, not compiled again');
  const byHash = serverRulesetFromText(text, 'account', first.hash);
  assert.ok('ruleset' in byHash);
  assert.equal(byHash.ruleset.data, first.data);
});

test('the cache is bounded: many distinct rulesets compile, the oldest are compiled again when asked', () => {
  const firstText = 'rules:\n  team.r0: { given: $.name, then: { function: truthy } }\n';
  const first = compiled(firstText);
  for (let i = 1; i <= 300; i++) compiled(`rules:\n  team.r${i}: { given: $.name, then: { function: truthy } }\n`);
  const later = compiled(firstText);
  assert.notEqual(later.data, first.data, 'dropped from the cache after 256 others, compiled anew');
  assert.deepEqual(later.data, first.data);
});

test('on the server extends takes built-ins only; built-ins by name; problems at line:column', () => {
  const path = serverRulesetFromText('extends: ./team.yaml\n', 'config');
  assert.ok('problems' in path);
  assert.match(path.problems[0]!.message, /only built-in rulesets/);
  assert.deepEqual([path.problems[0]!.line, path.problems[0]!.column], [1, 10]);
  const strict = builtinServerRuleset('cardgate:strict')!;
  assert.equal(strict.id, 'cardgate:strict');
  assert.equal(strict.data.severities['url.https'], 'error');
  assert.equal(strict.hash, compiled('extends: cardgate:strict\n').hash, 'a built-in has the hash of a ruleset extending it and saying nothing else');
  assert.equal(builtinRulesetHash('cardgate:strict'), strict.hash, 'known without compiling');
  assert.equal(builtinServerRuleset('cardgate:lax'), undefined);
});
