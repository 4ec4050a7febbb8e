/** The text format: clickable `file:line:col` lines, a summary, colour only when asked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCardText, formatResults } from '../../../src/engine/formats/index.ts';
import { sampleInputs } from './cards.ts';

test('one line per problem, file:line:col severity message rule, then the summary', () => {
  assert.equal(
    formatResults('text', sampleInputs()),
    [
      'cards/warned.json:1:1  info     the card names no provider: clients cannot tell who runs the agent  provider.missing',
      'cards/warned.json:4:10  warning  url uses plain http: http://localhost:8000/a2a  url.https',
      'cards/warned.json:4:10  warning  url names localhost, loopback; clients outside that network cannot reach it  url.private-host',
      'cards/warned.json:12:58  warning  tags is empty  skills.tags.empty',
      'cards/warned.json:13:20  warning  scheme "oauth" is not defined in securitySchemes (securitySchemes defines none)  security.undefined-scheme',
      'cards/warned.json:15:3  warning  extra_field is not a field of A2A 0.3.0; clients ignore it  field.unknown',
      'cards/invalid.json:1:1  error    name is required  schema.required',
      'cards/invalid.json:1:1  info     the card names no provider: clients cannot tell who runs the agent  provider.missing',
      'cards/invalid.json:4:13  error    url must be an absolute URL, got "relative/path"  url.absolute',
      'bad.json:3:1  error    not valid JSON: Expected double-quoted property name at line 3, column 1  input.unreadable',
      '',
      '2 cards checked: 1 invalid; 1 input could not be checked; 3 errors, 5 warnings',
      '',
    ].join('\n'),
  );
});

test('colour only when asked: the severity in red or yellow, the rule dimmed', () => {
  assert.doesNotMatch(formatResults('text', sampleInputs()), /\u001b/);
  const coloured = formatResults('text', sampleInputs(), { color: true });
  assert.match(coloured, /\u001b\[31merror {2}\u001b\[0m/);
  assert.match(coloured, /\u001b\[33mwarning\u001b\[0m/);
  assert.match(coloured, /\u001b\[2murl\.https\u001b\[0m/);
  assert.ok(coloured.endsWith('\n\u001b[1m2 cards checked: 1 invalid; 1 input could not be checked; 3 errors, 5 warnings\u001b[0m\n'), 'the summary in bold');
});

test('a clean card prints only the summary; control characters in a name cannot reach the terminal', () => {
  const clean = checkCardText('ok.json', JSON.stringify({ protocolVersion: '0.3.0', name: 'n', description: 'd', url: 'https://agents.cardgate.dev/a2a', version: '1', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'a', name: 'A', description: 'd', tags: ['t'] }], preferredTransport: 'JSONRPC', provider: { organization: 'o', url: 'https://cardgate.dev' } }));
  assert.equal(formatResults('text', [clean]), '1 card checked: all valid; 0 errors, 0 warnings\n');
  const sneaky = checkCardText('evil\u001b[2J.json', '{');
  assert.match(formatResults('text', [sneaky]), /^evil\\u001b\[2J\.json:1:2 {2}error/);
});
