/**
 * The parts of a run every format may carry beside the findings: verified signatures, live checks
 * that passed or were skipped, findings the cap left out, warnings `--quiet` did not show, the
 * ruleset, the verdict, compatibility, a baseline; shown on made-up results so that each part's
 * exact words are known.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { countsOf, problemsOf, signedDelta, summaryOf, totalsOf } from '../../../src/engine/formats/input.ts';
import { madeResult as result } from './cards.ts';


const warning = { rule: 'url.https', message: 'url uses plain http', path: 'url', line: 2, column: 3 };

/** A card with every part: one warning shown, one error and one warning capped, two quieted, two signatures, four live checks. */
const full = (): CheckedInput => ({
  name: 'a.json',
  quieted: 2,
  baseline: [{ rule: 'field.unknown', message: 'x is not a field', path: 'x' }],
  result: result({
    warnings: [warning],
    score: 90,
    truncated: { errors: 1, warnings: 1, suggestions: 0 },
    compatibility: { '1.0': { valid: false, errors: 2, warnings: 0 } },
    signatures: [
      { index: 0, kid: 'k\u001b1', alg: 'ES256', jku: null, verified: true, rule: 'signature.verified', form: '1.0' },
      { index: 1, kid: 'k2', alg: 'RS256', jku: null, verified: false, rule: 'signature.invalid', reason: 'bad' },
    ],
    live: [
      { id: 'live.card.fetch', status: 'pass', message: 'fetched', evidence: {}, path: 'url' },
      { id: 'live.errors.parse', status: 'skip', message: 'not probed', evidence: {} },
      { id: 'live.version', status: 'fail', message: 'does not speak 1.0', evidence: {} },
      { id: 'live.card.caching', status: 'warn', message: 'no ETag', evidence: {} },
    ],
  }),
});

const fileRuleset = { id: 'file' as const, file: '.cardgate.yaml', hash: 'sha256:abc' };
const recommended = { id: 'cardgate:recommended' as const, hash: 'sha256:def' };

test('text: verified signatures and passed or skipped live checks as lines, what the cap left out, the ruleset file, the quieted warnings', () => {
  assert.equal(
    formatResults('text', [full()], { ruleset: fileRuleset }),
    [
      'a.json:2:3  warning  url uses plain http  url.https',
      'a.json  info     signature by kid "k\\u001b1" (ES256) verified over the 1.0 canonical form  signature.verified',
      'a.json  pass     url: fetched  live.card.fetch',
      'a.json  skip     not probed  live.errors.parse',
      'a.json  2 more findings left out (findings cap)',
      '',
      'Ruleset: .cardgate.yaml (sha256:abc)',
      '1 card checked: all valid; 1 error, 4 warnings (2 not shown: --quiet)',
      '',
    ].join('\n'),
  );
});

test('text: the built-in ruleset named; one finding left out in the singular; every warning quieted', () => {
  const input: CheckedInput = { name: 'b.json', quieted: 1, result: result({ valid: false, score: 0, truncated: { errors: 1, warnings: 0, suggestions: 0 } }) };
  assert.equal(
    formatResults('text', [input], { ruleset: recommended }),
    ['b.json  1 more finding left out (findings cap)', '', 'Ruleset: built-in recommended (cardgate:recommended)', '1 card checked: 1 invalid; 1 error, 1 warning (not shown: --quiet)', ''].join('\n'),
  );
});

test('an input with neither result nor failure has no problems and counts nothing', () => {
  const none: CheckedInput = { name: 'none' };
  assert.deepEqual(problemsOf(none), []);
  assert.deepEqual(countsOf(none), { errors: 0, warnings: 0 });
  assert.deepEqual(JSON.parse(formatResults('json', [none])), [
    { file: 'none', valid: false, errors: [{ message: 'no result', rule: 'input.unreadable' }], warnings: [], score: 0 },
  ]);
  assert.equal(summaryOf(totalsOf([none])), '1 card checked: 1 invalid; 0 errors, 0 warnings');
});

test('a score change as every output writes it: plus, the true minus sign, plus-minus zero', () => {
  assert.deepEqual([5, 1, 0, -1, -93].map(signedDelta), ['+5', '+1', '\u00b10', '\u22121', '\u221293']);
});

test('json: every part of a result in its place, the ruleset on each entry', () => {
  const input = full();
  const r = input.result!;
  assert.equal(
    formatResults('json', [input], { ruleset: fileRuleset }),
    `${JSON.stringify([{
      file: 'a.json',
      valid: true,
      errors: [],
      warnings: [warning],
      score: 90,
      suggestions: [],
      truncated: r.truncated,
      version: '0.3.0',
      version_source: 'declared',
      compatibility: r.compatibility,
      ruleset: fileRuleset,
      signatures: r.signatures,
      live: r.live,
      baseline: input.baseline,
    }], null, 2)}\n`,
  );
  assert.deepEqual(Object.keys(JSON.parse(formatResults('json', [{ name: 'c.json', result: result() }]))[0]), ['file', 'valid', 'errors', 'warnings', 'score', 'suggestions', 'version', 'version_source']);
});

test('json-summary: the entries and the run\'s totals, with the quieted warnings, the ruleset and the verdict', () => {
  const input = full();
  const out = formatResults('json-summary', [input, { name: 'bad.json', failure: { message: 'not JSON', line: 1, column: 2 } }], { ruleset: recommended, verdict: { code: 1, reason: 'errors' } });
  assert.ok(out.endsWith('}\n'));
  const parsed = JSON.parse(out);
  assert.deepEqual(parsed.cards, JSON.parse(formatResults('json', [input, { name: 'bad.json', failure: { message: 'not JSON', line: 1, column: 2 } }], { ruleset: recommended })));
  assert.deepEqual(parsed.summary, { inputs: 2, cards: 1, valid: 1, invalid: 0, unchecked: 1, errors: 2, warnings: 4, warnings_not_shown: 2, ruleset: recommended, exit_code: 1, reason: 'errors' });
  assert.equal(
    formatResults('json-summary', [{ name: 'c.json', result: result() }], { verdict: { code: 0 } }),
    `${JSON.stringify({ cards: [{ file: 'c.json', valid: true, errors: [], warnings: [], score: 100, suggestions: [], version: '0.3.0', version_source: 'declared' }], summary: { inputs: 1, cards: 1, valid: 1, invalid: 0, unchecked: 0, errors: 0, warnings: 0, exit_code: 0 } }, null, 2)}\n`,
  );
  assert.deepEqual(JSON.parse(formatResults('json-summary', [])).summary, { inputs: 0, cards: 0, valid: 0, invalid: 0, unchecked: 0, errors: 0, warnings: 0 });
});

test('markdown: what the findings cap left out, under the card\'s findings', () => {
  const out = formatResults('markdown', [full()]);
  assert.ok(out.endsWith('| 2:3 | warning | `url` | url uses plain http | `url.https` |\n\n…and 2 more findings, left out by the findings cap.\n'), out);
});

test('junit: a card without errors or warnings is an empty test case', () => {
  const xml = formatResults('junit', [{ name: 'c.json', result: result() }]);
  assert.match(xml, /\n {4}<testcase name="agent card \(A2A 0\.3\.0 rules, score 100\)" classname="c\.json" \/>\n {2}<\/testsuite>\n/);
});

test('sarif: each rule\'s help links to its page when the rules\' address is known', () => {
  const log = JSON.parse(formatResults('sarif', [{ name: 'c.json', result: result() }], { rulesUrl: 'https://cardgate.example/rules' }));
  const rule = log.runs[0].tool.driver.rules.find((r: { id: string }) => r.id === 'url.https');
  assert.equal(rule.helpUri, 'https://cardgate.example/rules/url.https');
});

test('github: the summary counts the inputs that could not be checked', () => {
  const out = formatResults('github', [{ name: 'bad.json', failure: { message: 'not JSON' } }, { name: 'c.json', result: result() }]);
  assert.ok(out.endsWith('cardgate: 1 card checked, 0 invalid, 1 input could not be checked; 1 error, 0 warnings\n'), out);
});

test('gitlab: each repeat of a problem at the same field has its own fingerprint', () => {
  const same = { rule: 'security.undefined-scheme', message: 'scheme "x" is not defined', path: 'security[0]', line: 3, column: 1 };
  const issues = JSON.parse(formatResults('gitlab', [{ name: 'c.json', result: result({ warnings: [same, same, same] }) }])) as Array<{ fingerprint: string }>;
  assert.equal(new Set(issues.map((i) => i.fingerprint)).size, 3);
});
