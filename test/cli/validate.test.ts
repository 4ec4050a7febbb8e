/** `cardgate validate`: many inputs, formats, limits, exit codes; in process through runValidate, and as a child process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runValidate } from '../../src/cli/validate.ts';
import { rulesRoutes } from '../../src/api/routes/rules.ts';
import { tempDirFactory } from '../support/temp.ts';
import { clean03 } from '../engine/fixtures.ts';
import { invalidCard, notJson, warnedCard } from '../engine/formats/cards.ts';
import { runCli } from '../support/server.ts';
import { startCardHost } from '../support/card-host.ts';
import { testDeps } from '../support/app.ts';

const newDir = tempDirFactory('cardgate-validate-');
const dir = newDir();
const write = (name: string, text: string, where = dir): string => {
  const file = path.join(where, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
};
const clean = write('clean.json', JSON.stringify(clean03(), null, 2));
const warned = write('warned.json', warnedCard);
const invalid = write('invalid.json', invalidCard);
const broken = write('broken.json', notJson);

async function run(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv; tty?: boolean } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runValidate(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async (maxBytes) => (options.stdin !== undefined && Buffer.byteLength(options.stdin) > maxBytes ? undefined : Buffer.from(options.stdin ?? '')),
    env: options.env ?? {},
    stdoutIsTTY: options.tty ?? false,
  });
  return { code, stdout, stderr };
}

test('a valid card: exit 0; text lists each finding as file:line:col severity message rule, then a summary', async () => {
  const r = await run([clean]);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /1 card checked: all valid; 0 errors, \d+ warnings?\n$/);
  const w = await run([warned]);
  assert.equal(w.code, 0);
  assert.ok(w.stdout.includes(`${warned}:12:58  warning  `), w.stdout); // skills[1].tags, on a later line
  assert.ok(w.stdout.includes(`${warned}:15:3  warning  `), w.stdout);
});

test('an invalid card: exit 1; json is one entry per input with positions on the findings', async () => {
  const r = await run([invalid, clean, '--format', 'json']);
  assert.equal(r.code, 1);
  const entries = JSON.parse(r.stdout);
  assert.deepEqual(entries.map((e: { file: string; valid: boolean }) => [e.file, e.valid]), [[invalid, false], [clean, true]]);
  const url = entries[0].errors.find((e: { path: string }) => e.path === 'supportedInterfaces[0].url');
  assert.deepEqual([url.line, url.column], [4, 13]);
  assert.deepEqual(entries[0].errors.find((e: { path: string }) => e.path === 'name').line, 1);
});

test('standard input and --protocol-version', async () => {
  const r = await run(['-', '--protocol-version', '0.2.6', '--format', 'json'], { stdin: JSON.stringify(clean03()) });
  const [entry] = JSON.parse(r.stdout);
  assert.equal(entry.file, 'stdin');
  assert.equal(entry.version, '0.2.6');
  assert.equal(r.code, 0);
});

test('--fail-on, --max-warnings and --quiet decide the exit code and what is shown', async () => {
  assert.equal((await run([warned])).code, 0);
  assert.equal((await run([warned, '--fail-on', 'warning'])).code, 1);
  assert.equal((await run([invalid, '--fail-on', 'never'])).code, 0);
  assert.equal((await run([warned, '--max-warnings', '0'])).code, 1);
  assert.equal((await run([warned, '--max-warnings', '99'])).code, 0);
  assert.equal((await run([warned, '--fail-on', 'never', '--max-warnings', '0'])).code, 1, 'max-warnings applies whatever fail-on says');
  const quiet = await run([warned, invalid, '--quiet', '--fail-on', 'warning']);
  assert.equal(quiet.code, 1);
  assert.doesNotMatch(quiet.stdout, /warning {2}/);
  assert.match(quiet.stdout, /invalid\.json:4:13 {2}error {4}/);
  const informed = await run([write('no-provider.json', JSON.stringify({ ...clean03(), provider: undefined })), '--quiet']);
  assert.equal(informed.code, 0);
  assert.doesNotMatch(informed.stdout, /info {2}|provider\.missing/, 'information is not an error: --quiet leaves it out');
});

test('inputs that cannot be checked: reported with the others, exit 2 (even with --fail-on never)', async () => {
  const empty = newDir();
  const deep = write('deep.json', `{"name": ${'['.repeat(40)}${']'.repeat(40)}}`);
  const big = write('big.json', JSON.stringify({ ...clean03(), description: 'x'.repeat(3000) }));
  const r = await run(
    [clean, broken, path.join(dir, 'missing.json'), path.join(dir, 'nothing-*.json'), empty, deep, big, '--format', 'json', '--fail-on', 'never'],
    { env: { CARDGATE_MAX_BODY_BYTES: '2048', CARDGATE_MAX_JSON_DEPTH: '32' } },
  );
  assert.equal(r.code, 2);
  const entries = JSON.parse(r.stdout) as Array<{ file: string; valid: boolean; errors: Array<{ message: string; rule: string; line?: number; column?: number }> }>;
  assert.equal(entries.length, 7);
  assert.equal(entries[0]!.valid, true);
  const failures = Object.fromEntries(entries.slice(1).map((e) => [path.basename(e.file), e.errors[0]!]));
  assert.deepEqual([failures['broken.json']!.line, failures['broken.json']!.column], [3, 1]);
  assert.match(failures['broken.json']!.message, /^not valid JSON/);
  assert.equal(failures['missing.json']!.message, `no such file or directory: ${path.join(dir, 'missing.json')}`);
  assert.equal(failures['nothing-*.json']!.message, `no file matches ${path.join(dir, 'nothing-*.json')}`);
  assert.match(failures[path.basename(empty)]!.message, /^no agent card under .* \(searched for agent-card\.json, agent_card\.json, agent\.json, \*\.agent-card\.json\); it holds no JSON file$/);
  assert.equal(failures['deep.json']!.message, 'the card nests arrays and objects more than 32 levels deep');
  assert.equal(failures['big.json']!.message, 'larger than 2048 bytes, the size limit for a card (http.maxBodyBytes)');
  assert.ok(Object.values(failures).every((f) => f.rule === 'input.unreadable'));
  // Said on stderr too, since the report is JSON.
  assert.match(r.stderr, /missing\.json: no such file or directory/);
  const stdin = await run(['-'], { stdin: 'x'.repeat(3000), env: { CARDGATE_MAX_BODY_BYTES: '2048' } });
  assert.equal(stdin.code, 2);
  assert.match(stdin.stdout, /^stdin {2}error {4}larger than 2048 bytes/);
});

test('usage errors exit 2 with a clear message and the help', async () => {
  const cases: [string[], RegExp][] = [
    [[], /missing FILE, DIR, GLOB, URL or -/],
    [['x.json', '--format', 'xml'], /--format must be one of text, json, json-summary, sarif, junit, github, gitlab, markdown, not "xml"/],
    [['x.json', '--fail-on', 'info'], /--fail-on must be one of error, warning, never, not "info"/],
    [['x.json', '--max-warnings', 'some'], /--max-warnings must be a whole number, or -1 for no limit, not "some"/],
    [['x.json', '--protocol-version', '0.2.9'], /unsupported --protocol-version "0.2.9"; supported: 0.2.0/],
    [['x.json', '--bogus'], /unknown option --bogus \(an operand that starts with '-' goes after '--': -- --bogus\)/],
  ];
  for (const [args, message] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.match(r.stderr, /Usage: cardgate validate/);
  }
  const badConfig = await run([clean], { env: { CARDGATE_MAX_JSON_DEPTH: '2' } });
  assert.equal(badConfig.code, 2);
  assert.match(badConfig.stderr, /http\.maxJsonDepth/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit codes: 0 every card passes/);
});

test('--output writes the report to a file; every format is reachable', async () => {
  const out = path.join(newDir(), 'report.sarif');
  const r = await run([invalid, '--format', 'sarif', '--output', out]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  const sarif = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(sarif.version, '2.1.0');
  assert.ok(sarif.runs[0].results.some((x: { ruleId: string }) => x.ruleId === 'schema.required'));
  const unwritable = await run([clean, '--output', path.join(dir, 'no-such-dir', 'x.txt')]);
  assert.equal(unwritable.code, 2);
  assert.match(unwritable.stderr, /cannot write .*x\.txt: ENOENT/);
  for (const format of ['junit', 'github', 'gitlab', 'markdown']) {
    const f = await run([warned, '--format', format]);
    assert.equal(f.code, 0, format);
    assert.ok(f.stdout.length > 0, format);
  }
  assert.match((await run([warned, '--format', 'github'])).stdout, /^::warning file=.*warned\.json,line=12,col=58,/m);
});

test('colour: in a terminal unless NO_COLOR; FORCE_COLOR forces it; never into --output', async () => {
  const ansi = /\u001b\[/;
  assert.doesNotMatch((await run([warned])).stdout, ansi);
  assert.match((await run([warned], { tty: true })).stdout, ansi);
  assert.doesNotMatch((await run([warned], { tty: true, env: { NO_COLOR: '1' } })).stdout, ansi);
  assert.match((await run([warned], { env: { FORCE_COLOR: '1' } })).stdout, ansi);
  assert.doesNotMatch((await run([warned], { tty: true, env: { FORCE_COLOR: '0' } })).stdout, ansi);
  const out = path.join(newDir(), 'report.txt');
  await run([warned, '--output', out], { tty: true });
  assert.doesNotMatch(readFileSync(out, 'utf8'), ansi);
});

test('a URL: a bare origin\'s well-known card (private hosts are the user\'s to reach); a URL without a card exits 2', async () => {
  const host = await startCardHost({ '/.well-known/agent.json': { body: warnedCard } });
  try {
    const r = await run([host.url]);
    assert.equal(r.code, 0, r.stdout);
    // Named by the URL fetched, never `host:port:12:58`.
    assert.ok(r.stdout.includes(`${host.url}/.well-known/agent.json:12:58  warning  `), r.stdout);
    const missing = await run([`${host.url}/cards/none.json`]);
    assert.equal(missing.code, 2);
    assert.ok(missing.stdout.includes(`${host.url}/cards/none.json  error    ${host.url}/cards/none.json answered HTTP 404`), missing.stdout);
  } finally {
    await host.close();
  }
});

test('as a child process: directories searched (sorted, .well-known in, node_modules and .git out), quoted globs, stdin, each file once', async () => {
  const work = newDir();
  write('site/.well-known/agent-card.json', JSON.stringify(clean03()), work);
  write('site/b/agent.json', JSON.stringify(clean03()), work);
  write('site/a/x.agent-card.json', invalidCard, work);
  write('site/a/other.json', '{}', work);
  write('site/node_modules/dep/agent-card.json', '{}', work);
  write('site/.git/agent-card.json', '{}', work);
  write('more/one.json', JSON.stringify(clean03()), work);
  const r = await runCli(['validate', 'site', 'more/*.json', 'site/b/agent.json', '-', '--format', 'json'], { cwd: work, stdin: JSON.stringify(clean03()) });
  assert.equal(r.code, 1, r.stderr);
  assert.deepEqual(
    JSON.parse(r.stdout).map((e: { file: string }) => e.file),
    ['site/.well-known/agent-card.json', 'site/a/x.agent-card.json', 'site/b/agent.json', 'more/one.json', 'stdin'],
  );
  const empty = await runCli(['validate', 'nowhere/**/*.json'], { cwd: work });
  assert.equal(empty.code, 2);
  assert.match(empty.stdout, /^nowhere\/\*\*\/\*\.json {2}error {4}no file matches nowhere\/\*\*\/\*\.json/);
});

test('GET /v1/rules serves the versions and the catalogue', async () => {
  const res = await rulesRoutes(testDeps().deps).request('/v1/rules');
  assert.equal(res.status, 200);
  const body = (await res.json()) as { versions: string[]; version_selection: string; rules: { id: string; severity: string; fix: string }[] };
  assert.ok(body.versions.includes('1.0') && body.versions.includes('0.2.0'));
  assert.ok(body.rules.some((r) => r.id === 'skills.id.unique' && r.severity === 'warning' && r.fix.length > 0));
  assert.match(body.version_selection, /"forced".*"declared".*"detected"/);
});

test('a report larger than a pipe\'s buffer reaches a piped stdout whole (the process exits after the flush)', async () => {
  const file = write('huge.json', JSON.stringify({ name: 'x', protocolVersion: '0.3.0', skills: Array(5000).fill({ id: 'a' }) }));
  const r = await runCli(['validate', file, '--format', 'json']); // stdout is a pipe
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stdout.length > 1024 * 1024, `${r.stdout.length} bytes`);
  assert.equal(JSON.parse(r.stdout)[0].valid, false);
});
