/** `cardgate validate` through runValidate: exit codes, formats, usage errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runValidate } from '../../src/cli/validate.ts';
import { formatSummary, validateCard } from '../../src/engine/index.ts';
import { rulesRoutes } from '../../src/api/routes/rules.ts';
import { tempDirFactory } from '../helpers/temp.ts';
import { clean03 } from '../engine/fixtures.ts';

const dir = tempDirFactory('cardgate-validate-')();
const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

async function run(args: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const code = await runValidate(args, { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; }, readStdin: async () => stdin });
  return { code, stdout, stderr };
}

test('valid card: exit 0, text report equals formatSummary', async () => {
  const file = write('ok.json', JSON.stringify(clean03()));
  const r = await run([file]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, formatSummary(validateCard(clean03()), { name: file }));
  assert.match(r.stdout, /^.*VALID agent card/);
});

test('invalid card: exit 1; json format is the engine result', async () => {
  const card = { ...clean03(), name: undefined };
  const file = write('bad.json', JSON.stringify(card));
  const r = await run([file, '--format', 'json']);
  assert.equal(r.code, 1);
  const result = JSON.parse(r.stdout);
  assert.equal(result.valid, false);
  assert.deepEqual(result.errors[0], { path: 'name', message: 'name is required', rule: 'schema.required' });
});

test('stdin and --protocol-version', async () => {
  const r = await run(['-', '--protocol-version', '0.2.6', '--format', 'json'], JSON.stringify(clean03()));
  assert.equal(JSON.parse(r.stdout).version, '0.2.6');
  assert.equal(r.code, 0);
});

test('usage errors and unreadable input exit 2 with a clear message', async () => {
  const notJson = write('nope.json', '{"name": ');
  const cases: [string[], RegExp][] = [
    [[], /missing FILE/],
    [['a', 'b'], /exactly one FILE/],
    [['x.json', '--format', 'xml'], /--format must be text or json/],
    [['x.json', '--protocol-version', '0.2.9'], /unsupported --protocol-version "0.2.9"; supported: 0.2.0/],
    [['x.json', '--bogus'], /Unknown option/],
    [[path.join(dir, 'missing.json')], /cannot read .*missing.json: ENOENT/],
    [[notJson], /nope.json is not valid JSON/],
  ];
  for (const [args, message] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
  }
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: cardgate validate/);
});

test('GET /v1/rules serves the versions and the catalogue', async () => {
  const res = await rulesRoutes.request('/');
  assert.equal(res.status, 200);
  const body = (await res.json()) as { versions: string[]; version_selection: string; rules: { id: string; severity: string; fix: string }[] };
  assert.ok(body.versions.includes('1.0') && body.versions.includes('0.2.0'));
  assert.ok(body.rules.some((r) => r.id === 'skills.id.unique' && r.severity === 'warning' && r.fix.length > 0));
  assert.match(body.version_selection, /"forced".*"declared".*"detected"/);
});
