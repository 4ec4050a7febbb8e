/** The junit format: a testsuite per input, a testcase per card, a failure per error; XML escaped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatResults, type CheckedInput } from '../../../src/engine/formats/index.ts';
import { xmlText } from '../../../src/engine/formats/junit.ts';
import { madeResult, sampleInputs } from './cards.ts';

test('one testsuite per input, one testcase per card; failures per error, warnings as output, an unreadable input as an error', () => {
  const xml = formatResults('junit', sampleInputs());
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="cardgate" tests="3" failures="1" errors="1">\n/);
  assert.equal(xml.match(/<testsuite /g)?.length, 3);
  assert.equal(xml.match(/<testcase /g)?.length, 3);
  assert.match(xml, /<testsuite name="cards\/warned\.json" tests="1" failures="0" errors="0" skipped="0">\n {4}<testcase name="agent card \(A2A 0\.3\.0 rules, score \d+\)" classname="cards\/warned\.json">\n {6}<system-out>cards\/warned\.json:4:10: url uses plain http/);
  assert.match(xml, /<failure message="name is required" type="schema\.required">cards\/invalid\.json:1:1: name is required \[schema\.required\]<\/failure>/);
  assert.match(xml, /<failure message="url must be an absolute URL, got &quot;relative\/path&quot;" type="url\.absolute">cards\/invalid\.json:4:13: url must be an absolute URL/);
  assert.match(xml, /<testsuite name="bad\.json" tests="1" failures="0" errors="1" skipped="0">\n {4}<testcase name="agent card" classname="bad\.json">\n {6}<error message="not valid JSON: [^"]+" type="input\.unreadable">bad\.json:3:1: not valid JSON/);
});

test('XML escaping: the five specials, control characters XML cannot hold, line ends kept in text and escaped in attributes', () => {
  assert.equal(xmlText(`<a href="x">&'</a>`), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
  assert.equal(xmlText('bell\u0007 nul\u0000 esc\u001b ffff\uffff lone\ud800 pair😀'), 'bell\ufffd nul\ufffd esc\ufffd ffff\ufffd lone\ufffd pair😀');
  assert.equal(xmlText('a\tb\nc\rd'), 'a\tb\nc\rd');
  assert.equal(xmlText('a\tb\nc\rd', true), 'a&#9;b&#10;c&#13;d');
  const input: CheckedInput = {
    name: 'cards/<&"\'>.json',
    failure: { message: 'bad <&"\'> \u0001 message\nsecond line' },
  };
  const xml = formatResults('junit', [input]);
  assert.match(xml, /<testsuite name="cards\/&lt;&amp;&quot;&apos;&gt;\.json"/);
  assert.match(xml, /<error message="bad &lt;&amp;&quot;&apos;&gt; \ufffd message&#10;second line" type="input\.unreadable">cards\/&lt;&amp;&quot;&apos;&gt;\.json: bad &lt;&amp;&quot;&apos;&gt; \ufffd message\nsecond line \[input\.unreadable\]<\/error>/);
  assert.doesNotMatch(xml, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
});

test('the whole report: suites of a valid, an invalid, an unreadable and a clean card, warnings one a line', () => {
  const inputs = [...sampleInputs(), { name: 'clean.json', result: madeResult() }];
  assert.equal(formatResults('junit', inputs), [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="cardgate" tests="4" failures="1" errors="1">',
    '  <testsuite name="cards/warned.json" tests="1" failures="0" errors="0" skipped="0">',
    `    <testcase name="agent card (A2A 0.3.0 rules, score ${inputs[0]!.result!.score})" classname="cards/warned.json">`,
    '      <system-out>cards/warned.json:4:10: url uses plain http: http://localhost:8000/a2a [url.https]',
    'cards/warned.json:4:10: url names localhost, loopback; clients outside that network cannot reach it [url.private-host]',
    'cards/warned.json:12:58: tags is empty [skills.tags.empty]',
    'cards/warned.json:13:20: skills[1].security[0].oauth: scheme &quot;oauth&quot; is not defined in securitySchemes (securitySchemes defines none) [security.undefined-scheme]',
    'cards/warned.json:15:3: extra_field is not a field of A2A 0.3.0; clients ignore it [field.unknown]</system-out>',
    '    </testcase>',
    '  </testsuite>',
    '  <testsuite name="cards/invalid.json" tests="1" failures="1" errors="0" skipped="0">',
    '    <testcase name="agent card (A2A 1.0 rules, score 0)" classname="cards/invalid.json">',
    '      <failure message="name is required" type="schema.required">cards/invalid.json:1:1: name is required [schema.required]</failure>',
    '      <failure message="url must be an absolute URL, got &quot;relative/path&quot;" type="url.absolute">cards/invalid.json:4:13: url must be an absolute URL, got &quot;relative/path&quot; [url.absolute]</failure>',
    '    </testcase>',
    '  </testsuite>',
    '  <testsuite name="bad.json" tests="1" failures="0" errors="1" skipped="0">',
    '    <testcase name="agent card" classname="bad.json">',
    '      <error message="not valid JSON: Expected double-quoted property name at line 3, column 1" type="input.unreadable">bad.json:3:1: not valid JSON: Expected double-quoted property name at line 3, column 1 [input.unreadable]</error>',
    '    </testcase>',
    '  </testsuite>',
    '  <testsuite name="clean.json" tests="1" failures="0" errors="0" skipped="0">',
    '    <testcase name="agent card (A2A 0.3.0 rules, score 100)" classname="clean.json" />',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n'));
});
