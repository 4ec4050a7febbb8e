/** The markdown format: a summary table per run, findings with lines per input, card text escaped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { markdownCode, markdownText } from '../../../src/engine/formats/markdown.ts';
import { madeResult, sampleInputs } from './cards.ts';

test('a table of inputs (verdict, score, counts), then each input\'s findings with line:column', () => {
  const md = formatResults('markdown', sampleInputs());
  assert.match(md, /^## cardgate: agent card validation\n\n2 cards checked: 1 invalid; 1 input could not be checked; 3 errors, 5 warnings\.\n/);
  assert.match(md, /\| `cards\/warned\.json` \| ✅ valid \| \d+ \| 0 \| 5 \|\n/);
  assert.match(md, /\| `cards\/invalid\.json` \| ❌ invalid \| 0 \| 2 \| 0 \|\n/);
  assert.match(md, /\| `bad\.json` \| ⚠️ not checked \| - \| 1 \| 0 \|\n/);
  assert.match(md, /### `cards\/warned\.json`\n\n\| Line \| Severity \| Field \| Message \| Rule \|\n/);
  assert.match(md, /\| 12:58 \| warning \| `skills\[1\]\.tags` \| tags is empty \| `skills\.tags\.empty` \|\n/);
  assert.match(md, /\| 3:1 \| error \|  \| not valid JSON: Expected double-quoted property name at line 3, column 1 \| `input\.unreadable` \|/);
});

test('escaping: | and backticks cannot break a table, markup does not render, line ends become spaces', () => {
  assert.equal(markdownText('a | b `c` <b>*x*</b> [l](u)\nnext'), 'a \\| b \\`c\\` \\<b\\>\\*x\\*\\</b\\> \\[l\\](u) next');
  assert.equal(markdownCode('skills[0].tags'), '`skills[0].tags`');
  assert.equal(markdownCode('x["a`b|c"]'), '`` x["a`b\\|c"] ``');
  assert.equal(markdownCode('``'), '``` `` ```');
  const input: CheckedInput = { name: 'a|b`.json', failure: { message: 'pipe | and `tick`' } };
  const md = formatResults('markdown', [input]);
  assert.match(md, /\| `` a\\\|b`\.json `` \| ⚠️ not checked \|/);
  assert.match(md, /\|  \| error \|  \| pipe \\\| and \\`tick\\` \| `input\.unreadable` \|/);
  // Every table row keeps its five cells: no unescaped | inside one.
  for (const row of md.split('\n').filter((l) => l.startsWith('|'))) assert.equal(row.replaceAll('\\|', '').split('|').length, 7, row);
});

test('the whole summary: a row per input, a findings table per input that has findings (none for a clean card, no cap line)', () => {
  const inputs = [...sampleInputs(), { name: 'clean.json', result: madeResult() }];
  const head = ['| Line | Severity | Field | Message | Rule |', '| ---: | --- | --- | --- | --- |'];
  const noProvider = 'the card names no provider: clients cannot tell who runs the agent | `provider.missing` |';
  assert.equal(formatResults('markdown', inputs), [
    '## cardgate: agent card validation',
    '',
    '3 cards checked: 1 invalid; 1 input could not be checked; 3 errors, 5 warnings.',
    '',
    '| Card | Verdict | Score | Errors | Warnings |',
    '| --- | --- | ---: | ---: | ---: |',
    `| \`cards/warned.json\` | ✅ valid | ${inputs[0]!.result!.score} | 0 | 5 |`,
    '| `cards/invalid.json` | ❌ invalid | 0 | 2 | 0 |',
    '| `bad.json` | ⚠️ not checked | - | 1 | 0 |',
    '| `clean.json` | ✅ valid | 100 | 0 | 0 |',
    '',
    '### `cards/warned.json`',
    '',
    ...head,
    `| 1:1 | info | \`provider\` | ${noProvider}`,
    '| 4:10 | warning | `url` | url uses plain http: http://localhost:8000/a2a | `url.https` |',
    '| 4:10 | warning | `url` | url names localhost, loopback; clients outside that network cannot reach it | `url.private-host` |',
    '| 12:58 | warning | `skills[1].tags` | tags is empty | `skills.tags.empty` |',
    '| 13:20 | warning | `skills[1].security[0].oauth` | scheme "oauth" is not defined in securitySchemes (securitySchemes defines none) | `security.undefined-scheme` |',
    '| 15:3 | warning | `extra_field` | extra\\_field is not a field of A2A 0.3.0; clients ignore it | `field.unknown` |',
    '',
    '### `cards/invalid.json`',
    '',
    ...head,
    '| 1:1 | error | `name` | name is required | `schema.required` |',
    `| 1:1 | info | \`provider\` | ${noProvider}`,
    '| 4:13 | error | `supportedInterfaces[0].url` | url must be an absolute URL, got "relative/path" | `url.absolute` |',
    '',
    '### `bad.json`',
    '',
    ...head,
    '| 3:1 | error |  | not valid JSON: Expected double-quoted property name at line 3, column 1 | `input.unreadable` |',
    '',
  ].join('\n'));
});

test('line ends of every kind (CRLF, LF, a lone CR) become spaces, in text and in code spans', () => {
  assert.equal(markdownText('a\r\nb\nc\rd'), 'a b c d');
  assert.equal(markdownCode('a\r\nb\nc\rd'), '`a b c d`');
});
