/**
 * `cardgate sign` keeps the card's own text: on real cards the change is the `signatures` member
 * alone (added after the last member, or its value replaced), and the signature verifies.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const dir = tempDirFactory('cardgate-sign-edit-')();
const cards = path.join(import.meta.dirname, '../engine/fixtures/a2a/cards');
const key = path.join(dir, 'ci');

/** The part of `after` that is not `before`'s: `before` must be all of `after`'s start and end around it. */
const insertion = (before: string, after: string): { at: number; removed: string; added: string } => {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  return { at: start, removed: before.slice(start, before.length - end), added: after.slice(start, after.length - end) };
};

const sign = async (file: string, kid = 'ci-key') => {
  const out = path.join(dir, `signed-${path.basename(file)}`);
  const r = await runCli(['sign', file, '--key', `${key}.private.jwk`, '--kid', kid, '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  return fs.readFileSync(out, 'utf8');
};

/** The signatures `validate --trust` verified in `text`, by kid. */
const verifiedKids = async (text: string): Promise<string[]> => {
  const file = path.join(dir, 'check.json');
  fs.writeFileSync(file, text);
  const r = await runCli(['validate', file, '--trust', `${key}.jwks`, '-f', 'json', '--fail-on', 'never']);
  assert.equal(r.code, 0, r.stderr);
  const [entry] = JSON.parse(r.stdout) as Array<{ signatures?: Array<{ kid: string; verified: boolean }> }>;
  return (entry!.signatures ?? []).filter((s) => s.verified).map((s) => s.kid);
};

test('keygen', async () => {
  assert.equal((await runCli(['keygen', '--out', key, '--kid', 'ci-key'])).code, 0);
});

test('a real card (80 lines, 2 spaces) gains only its signatures member, and the signature verifies', async () => {
  const file = path.join(cards, '110kc3__seo__well-known_agent-card.json');
  const before = fs.readFileSync(file, 'utf8');
  assert.equal(before.split('\n').length - 1, 80);
  const after = await sign(file);
  const { removed, added } = insertion(before, after);
  assert.equal(removed, '', 'nothing of the card is removed or changed');
  assert.match(added, /^,\n {2}"signatures": \[\n {4}\{\n {6}"protected": "[\w-]+",\n {6}"signature": "[\w-]+"\n {4}\}\n {2}\]$/);
  assert.equal(after.split('\n').length - 1, 86, '80 lines + 6, not a reprint');
  const { signatures, ...rest } = JSON.parse(after) as Record<string, unknown>;
  assert.deepEqual(rest, JSON.parse(before));
  assert.equal((signatures as unknown[]).length, 1);
  assert.deepEqual(await verifiedKids(after), ['ci-key']);
});

test('4 spaces, CRLF line ends and a one-line card keep their style', async () => {
  const fourSpaces = path.join(cards, 'AyushDey__Google-ADK-Learning__agent-card.json');
  const text = fs.readFileSync(fourSpaces, 'utf8');
  const four = insertion(text, await sign(fourSpaces));
  assert.equal(four.removed, '');
  assert.match(four.added, /^,\n {4}"signatures": \[\n {8}\{\n {12}"protected"/);

  const crlf = path.join(dir, 'crlf.json');
  fs.writeFileSync(crlf, text.replace(/\n/g, '\r\n'));
  const crlfSigned = await sign(crlf);
  assert.equal(insertion(fs.readFileSync(crlf, 'utf8'), crlfSigned).removed, '');
  assert.doesNotMatch(crlfSigned, /[^\r]\n/, 'every line ends in CRLF');

  const oneLine = path.join(dir, 'one-line.json');
  fs.writeFileSync(oneLine, JSON.stringify(JSON.parse(text)));
  const compact = await sign(oneLine);
  assert.equal(compact.split('\n').length, 1);
  assert.match(insertion(fs.readFileSync(oneLine, 'utf8'), compact).added, /^,"signatures":\[\{"protected":"[\w-]+","signature":"[\w-]+"\}\]$/);
  assert.deepEqual(await verifiedKids(compact), ['ci-key']);
});

test('a card already signed: another kid extends the array, the same kid replaces its own; nothing else changes', async () => {
  const file = path.join(cards, 'a2aproject__A2A__docs_specification-v1.0.0_sample-agent-card.json');
  const before = fs.readFileSync(file, 'utf8');
  const after = await sign(file);
  const change = insertion(before, after);
  const membersStart = before.indexOf('"signatures": [');
  assert.ok(change.at > membersStart, 'the change lies inside the signatures value');
  assert.equal(JSON.parse(after).signatures.length, 2);
  assert.deepEqual(JSON.parse(after).signatures[0], JSON.parse(before).signatures[0], 'the other key\'s signature is kept');
  assert.deepEqual(await verifiedKids(after), ['ci-key']);

  const resignedFile = path.join(dir, 'resign.json');
  fs.writeFileSync(resignedFile, after);
  const again = await sign(resignedFile);
  assert.equal(JSON.parse(again).signatures.length, 2, 'the same kid replaced, not added');
  assert.equal(again.slice(0, membersStart), before.slice(0, membersStart));
});
