/** Positions of findings in the card's text: the value at the path, the key for name findings, the enclosing object for a missing field. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { locate, pathSegments, textLocator, type LocatedIssue } from '../../src/engine/positions.ts';
import { invalidCard, warnedCard } from './formats/cards.ts';

const placed = (issues: LocatedIssue[]) => issues.map((i) => [i.path, i.rule, i.line, i.column]);
const located = (text: string) => locate(text, validateCard(JSON.parse(text)));

test('a finding on a later line: the value at its path (an empty tags array: its bracket)', () => {
  assert.deepEqual(placed(located(warnedCard).warnings), [
    ['url', 'url.https', 4, 10],
    ['url', 'url.unreachable-host', 4, 10],
    ['skills[1].tags', 'skills.tags.empty', 12, 58],
    ['skills[1].security[0].oauth', 'security.undefined-scheme', 13, 20], // the key inside the requirement
    ['extra_field', 'field.unknown', 15, 3], // a finding about a name: the key
  ]);
});

test('a missing field: the object that lacks it', () => {
  assert.deepEqual(placed(located(invalidCard).errors), [
    ['name', 'schema.required', 1, 1],
    ['supportedInterfaces[0].url', 'url.absolute', 4, 13],
  ]);
  const text = '{"name": "n", "skills": [\n  {"id": "a"}\n]}';
  const result = validateCard(JSON.parse(text), { protocolVersion: '0.3.0' });
  const skillName = locate(text, result).errors.find((e) => e.path === 'skills[0].name');
  assert.deepEqual([skillName?.line, skillName?.column], [2, 3]);
});

/** A result with one stand-in warning per path, to place paths the engine does not produce on these texts. */
const resultWith = (...paths: string[]): CardResult => ({
  ...validateCard({}),
  errors: [],
  warnings: paths.map((path) => ({ path, message: 'm', rule: 'url.https' })),
});

test('paths with quoted keys, duplicate keys (the last one, as JSON.parse keeps) and a path cut for its length', () => {
  const text = '{\n "a": 1,\n "odd key": {"x": [0, {"y.z": 5}]},\n "a": 2\n}';
  const r = locate(text, resultWith('["odd key"].x[1]["y.z"]', 'a', '["odd key"].x[1]["y.z…', '(root)', 'nowhere.deeper'));
  assert.deepEqual(placed(r.warnings), [
    ['["odd key"].x[1]["y.z"]', 'url.https', 3, 31],
    ['a', 'url.https', 4, 7],
    ['["odd key"].x[1]["y.z…', 'url.https', 3, 23], // the cut key cannot be read: the object around it
    ['(root)', 'url.https', 1, 1],
    ['nowhere.deeper', 'url.https', 1, 1],
  ]);
  assert.deepEqual(pathSegments('skills[2].tags'), ['skills', 2, 'tags']);
  assert.deepEqual(pathSegments('x["a\\"b"][0]'), ['x', 'a"b', 0]);
});

test('CRLF, tabs, a BOM and astral-plane characters: columns count UTF-16 units; the BOM is not one', () => {
  const text = '\uFEFF{\r\n\t"name": "😀😀",\t"url": "http://localhost/"\r\n}';
  const r = locate(text, resultWith('url'));
  // line 2: TAB "name": "😀😀", TAB -> the url value starts at UTF-16 unit 24 of the line (22 in code points).
  assert.deepEqual(placed(r.warnings), [['url', 'url.https', 2, 25]]);
});

test('a card inside a request body: positions relative to the card\'s own text', () => {
  const body = `{"options": {"include_score": true},\n "agent_card": ${warnedCard}}`;
  const locator = textLocator(body);
  const r = locator(validateCard(JSON.parse(warnedCard)), ['agent_card']);
  assert.deepEqual(placed(r.warnings), placed(located(warnedCard).warnings));
  // On the card's first line, columns count from its opening brace.
  const first = locator(resultWith('(root)', 'name'), ['agent_card']);
  assert.deepEqual(placed(first.warnings), [['(root)', 'url.https', 1, 1], ['name', 'url.https', 3, 11]]);
  const oneLine = `{"agent_card": {"name": 1, "url": "http://x"}}`;
  assert.deepEqual(placed(textLocator(oneLine)(resultWith('url'), ['agent_card']).warnings), [['url', 'url.https', 1, 20]]);
});

test('a result without findings is returned as it is: the text is not parsed', () => {
  const result = validateCard(JSON.parse(warnedCard));
  const clean = { ...result, warnings: [] };
  assert.equal(locate('not even JSON', clean), clean);
});
