/** Positions of findings in the card's text: the value at the path, the key for name findings, the enclosing object for a missing field. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import type { RuleId } from '../../src/engine/catalogue.ts';
import type { PathSegment } from '../../src/engine/paths.ts';
import { LineIndex } from '../../src/lib/text-position.ts';
import { locate, locateCards, pathSegments, type LocatedIssue } from '../../src/engine/positions.ts';
import { cardsDir } from './corpus.ts';
import { invalidCard, warnedCard } from './formats/cards.ts';

const placed = (issues: LocatedIssue[]) => issues.map((i) => [i.path, i.rule, i.line, i.column]);
const located = (text: string) => locate(text, validateCard(JSON.parse(text)));

test('a finding on a later line: the value at its path (an empty tags array: its bracket)', () => {
  assert.deepEqual(placed(located(warnedCard).warnings), [
    ['url', 'url.https', 4, 10],
    ['url', 'url.private-host', 4, 10],
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

/** A result with one stand-in warning of `rule` per path, to place paths the engine does not produce on these texts. */
const findingsOf = (rule: RuleId, paths: string[]): CardResult => ({
  ...validateCard({}),
  errors: [],
  warnings: paths.map((path) => ({ path, message: 'm', rule })),
});
/** Findings about a value (`url.https`) at each path. */
const resultWith = (...paths: string[]): CardResult => findingsOf('url.https', paths);

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

test('values stepped over: strings with escaped quotes, backslashes and brackets, numbers, literals, empty containers', () => {
  const text = [
    '{ "a" : "x\\\\\\"]}{[\\\\" , "b": [ -1.5e3, true, null, {}, [], "]\\"" ] ,',
    '  "c" : { "d\\"k" : 1 , "e": [ {"f": "g"}, { "h" : [ 0 , 1 , "i" ] } ] } }',
  ].join('\n');
  assert.ok(JSON.parse(text));
  // The oracle: jsonc-parser's full tree of the text.
  const tree = parseTree(text)!;
  const lines = new LineIndex(text);
  const expected = (path: string, at: PathSegment[]) => {
    const { line, column } = lines.position(findNodeAtLocation(tree, at)!.offset);
    return [path, 'url.https', line, column];
  };
  const r = locate(text, resultWith('c.e[1].h[2]', 'b[5]', 'b[4]', 'c["d\\"k"]', 'c.e[1].missing'));
  assert.deepEqual(placed(r.warnings), [
    expected('c.e[1].h[2]', ['c', 'e', 1, 'h', 2]),
    expected('b[5]', ['b', 5]),
    expected('b[4]', ['b', 4]),
    expected('c["d\\"k"]', ['c', 'd"k']),
    expected('c.e[1].missing', ['c', 'e', 1]),
  ]);
});

test('CRLF, tabs, a BOM and astral-plane characters: columns count UTF-16 units; the BOM is not one', () => {
  const text = '\uFEFF{\r\n\t"name": "😀😀",\t"url": "http://localhost/"\r\n}';
  const r = locate(text, resultWith('url'));
  // line 2: TAB "name": "😀😀", TAB -> the url value starts at UTF-16 unit 24 of the line (22 in code points).
  assert.deepEqual(placed(r.warnings), [['url', 'url.https', 2, 25]]);
});

test('a card inside a request body: positions relative to the card\'s own text', () => {
  const body = `{"options": {"include_score": true},\n "agent_card": ${warnedCard}}`;
  const inBody = (text: string, result: CardResult) => locateCards(text, [{ result, at: ['agent_card'] }])[0]!;
  assert.deepEqual(placed(inBody(body, validateCard(JSON.parse(warnedCard))).warnings), placed(located(warnedCard).warnings));
  // On the card's first line, columns count from its opening brace.
  assert.deepEqual(placed(inBody(body, resultWith('(root)', 'name')).warnings), [['(root)', 'url.https', 1, 1], ['name', 'url.https', 3, 11]]);
  const oneLine = `{"agent_card": {"name": 1, "url": "http://x"}}`;
  assert.deepEqual(placed(inBody(oneLine, resultWith('url')).warnings), [['url', 'url.https', 1, 20]]);
});

test('several cards in one text (a batch): each relative to its own text; a card without findings is left as it is', () => {
  const body = `{"cards": [\n{"id": "a", "agent_card": ${warnedCard}},\n{"id": "b", "agent_card": {"name": "x"}},\n{"id": "c", "agent_card": {\n"url": "http://x"}}]}`;
  const clean: CardResult = { ...resultWith(), warnings: [] };
  delete clean.infos; // findings of every kind gone
  const [a, b, c] = locateCards(body, [
    { result: validateCard(JSON.parse(warnedCard)), at: ['cards', 0, 'agent_card'] },
    { result: clean, at: ['cards', 1, 'agent_card'] },
    { result: resultWith('url'), at: ['cards', 2, 'agent_card'] },
  ]);
  assert.deepEqual(placed(a!.warnings), placed(located(warnedCard).warnings));
  assert.equal(b, clean);
  assert.deepEqual(placed(c!.warnings), [['url', 'url.https', 2, 8]]);
});

test('a duplicate key: the positions of the occurrence JSON.parse keeps, not those under the one it drops', () => {
  const text = '{"skills": [{"tags": []}],\n "skills": "none"}';
  assert.deepEqual(placed(locate(text, resultWith('skills[0].tags')).warnings), [['skills[0].tags', 'url.https', 2, 12]]);
});

test('a result without findings is returned as it is: the text is not parsed', () => {
  const result = validateCard(JSON.parse(warnedCard));
  const clean: CardResult = { ...result, warnings: [] };
  delete clean.infos; // findings of every kind gone
  assert.equal(locate('not even JSON', clean), clean);
});

test('every finding of the real-card corpus, under every rule set, sits where jsonc-parser\'s full tree puts it', () => {
  const files = readdirSync(cardsDir).filter((f) => f.endsWith('.json'));
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(join(cardsDir, file), 'utf8');
    let card: unknown;
    try {
      card = JSON.parse(text);
    } catch {
      continue; // not JSON: the syntax errors' positions are tested apart
    }
    const tree = parseTree(text)!;
    const lines = new LineIndex(text);
    for (const protocolVersion of ['0.2.0', '0.3.0', '1.0']) {
      const result = locate(text, validateCard(card, { protocolVersion }));
      for (const issue of [...result.errors, ...result.warnings, ...(result.infos ?? [])]) {
        // The oracle: the deepest node of the path that the tree has; the key for a finding about a name.
        const segments = pathSegments(issue.path);
        let depth = segments.length;
        while (depth > 0 && !findNodeAtLocation(tree, segments.slice(0, depth))) depth--;
        const node = depth === 0 ? tree : findNodeAtLocation(tree, segments.slice(0, depth))!;
        const aboutName = ['field.unknown', 'field.snake-case', 'field.legacy-0x', 'field.from-1.0', 'security.undefined-scheme'].includes(issue.rule);
        const spot = aboutName && depth === segments.length && node.parent?.type === 'property' ? node.parent.children![0]! : node;
        const { line, column } = lines.position(spot.offset);
        assert.deepEqual([issue.line, issue.column], [line, column], `${file} ${protocolVersion} ${issue.path} ${issue.rule}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, `${checked} findings checked`);
});

test('path segments: the root has none; an index of several digits; a path cut inside a quoted key ends before that key', () => {
  const cases: Array<[string, PathSegment[]]> = [
    ['(root)', []],
    ['skills[12].tags', ['skills', 12, 'tags']],
    ['a["b c…', ['a']],
    ['a.b["c d"]', ['a', 'b', 'c d']],
  ];
  for (const [path, segments] of cases) assert.deepEqual(pathSegments(path), segments, path);
  // Placed at the deepest segment read: the object `a`, not its member `b`.
  assert.deepEqual(placed(locate('{"a": {"b": 5}}', resultWith('a["b c…')).warnings), [['a["b c…', 'url.https', 1, 7]]);
});

test('compact JSON: a number, literal or string ends at the comma or bracket right after it, and the next members are still found', () => {
  const text = '{"a":1,"b":{"c":true},"d":[null,-2.5e3],"e":"x"}';
  const r = locate(text, resultWith('b.c', 'd[1]', 'e'));
  const column = (value: string) => text.indexOf(value) + 1;
  assert.deepEqual(placed(r.warnings), [
    ['b.c', 'url.https', 1, column('true')],
    ['d[1]', 'url.https', 1, column('-2.5e3')],
    ['e', 'url.https', 1, column('"x"')],
  ]);
});

test('a card that is a bare number: its finding at the number, the scan ending with the text', () => {
  assert.deepEqual(placed(located('42').errors), [['(root)', 'card.root.object', 1, 1]]);
  assert.deepEqual(placed(located('\n -7.5').errors), [['(root)', 'card.root.object', 2, 2]]);
});

test('a text with blank lines before the card: a missing field, and a name finding with no key to point at, both at the card\'s brace', () => {
  const text = '\n\n  {"a": 1}';
  assert.deepEqual(placed(locate(text, resultWith('name')).warnings), [['name', 'url.https', 3, 3]]);
  assert.deepEqual(placed(locate(text, findingsOf('field.unknown', ['nowhere', '(root)', 'a[0]'])).warnings), [
    ['nowhere', 'field.unknown', 3, 3],
    ['(root)', 'field.unknown', 3, 3],
    ['a[0]', 'field.unknown', 3, 9], // no element 0: the value of `a`
  ]);
});

test('a result with warnings only, or errors only (no infos), is located', () => {
  const onlyWarnings = resultWith('a');
  delete onlyWarnings.infos;
  assert.deepEqual(placed(locate('{"a": 1}', onlyWarnings).warnings), [['a', 'url.https', 1, 7]]);
  const onlyErrors: CardResult = { ...onlyWarnings, errors: onlyWarnings.warnings, warnings: [] };
  assert.deepEqual(placed(locate('{"a": 1}', onlyErrors).errors), [['a', 'url.https', 1, 7]]);
});
