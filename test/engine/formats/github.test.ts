/** The github format: workflow commands with file, line and column, properly escaped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { commandData, commandProperty } from '../../../src/engine/formats/github.ts';
import { madeResult, sampleInputs } from './cards.ts';

test('::error, ::warning and ::notice (information) with file, line, col and the rule as title; a summary line last', () => {
  const lines = formatResults('github', sampleInputs()).trimEnd().split('\n');
  assert.deepEqual(lines.slice(3, 4), ['::warning file=cards/warned.json,line=12,col=58,title=skills.tags.empty::tags is empty']);
  assert.ok(lines.includes('::error file=cards/invalid.json,line=1,col=1,title=schema.required::name is required'));
  assert.ok(lines.includes('::error file=bad.json,line=3,col=1,title=input.unreadable::not valid JSON: Expected double-quoted property name at line 3, column 1'));
  assert.equal(lines.at(-1), 'cardgate: 2 cards checked, 1 invalid, 1 input could not be checked; 3 errors, 5 warnings');
  assert.ok(lines.includes('::notice file=cards/warned.json,line=1,col=1,title=provider.missing::provider: the card names no provider: clients cannot tell who runs the agent'));
  assert.equal(lines.length, 11);
});

test('escaping: % CR LF in the message; also : and , in properties', () => {
  assert.equal(commandData('100% done\r\nnext: a,b'), '100%25 done%0D%0Anext: a,b');
  assert.equal(commandProperty('dir,x/a:b%.json\n'), 'dir%2Cx/a%3Ab%25.json%0A');
  const input: CheckedInput = { name: 'a,b:c.json', failure: { message: 'line one\nline two ::error::fake' } };
  assert.equal(
    formatResults('github', [input]).split('\n')[0],
    '::error file=a%2Cb%3Ac.json,title=input.unreadable::line one%0Aline two ::error::fake',
  );
});

test('a run where every input was checked: the summary names no unchecked input', () => {
  assert.equal(formatResults('github', [{ name: 'c.json', result: madeResult() }]), 'cardgate: 1 card checked, 0 invalid; 0 errors, 0 warnings\n');
});
