/**
 * The command line as eslint and Spectral users expect it, each convention a test, run as a process:
 * short flags, --max-warnings -1, why a run failed in one line, short usage errors, a required
 * subcommand, -V, version --help, unchecked inputs counted apart, findings in text order, messages
 * that do not repeat their field, -o wherever a file is written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clean03 } from '../engine/fixtures.ts';
import { warnedCard } from '../engine/formats/cards.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = tempDirFactory('cardgate-conventions-')();
const write = (name: string, text: string): string => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const cardText = (extra: Record<string, unknown>) => JSON.stringify({ ...clean03(), ...extra }, null, 2);
const clean = write('clean.json', cardText({}));
/** One warning: an unknown field. */
const oneWarning = write('one-warning.json', cardText({ extra_field: true }));
const warned = write('warned.json', warnedCard);
/** A warning on line 2, an error on line 4 (the url), and one without a place (a missing field, line 1). */
const mixed = write(
  'mixed.json',
  ['{', '  "extra_field": true,', '  "protocolVersion": "0.3.0",', '  "url": "relative/path",', '  "description": "d",', '  "version": "1"', '}'].join('\n'),
);
const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

test('-f, -o and -q are --format, --output and --quiet', async () => {
  const out = path.join(dir, 'report.json');
  const r = await runCli(['validate', '-f', 'json', '-o', out, '-q', warned, mixed, '--fail-on', 'never']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  const entries = JSON.parse(fs.readFileSync(out, 'utf8')) as Array<{ warnings: unknown[]; errors: unknown[] }>;
  assert.equal(entries.length, 2);
  assert.deepEqual(entries.map((e) => e.warnings.length), [0, 0], '-q: errors only');
  assert.ok(entries[1]!.errors.length > 0);
});

test('-o names the file on every subcommand that writes one (export and keygen too)', async () => {
  const subcommands = [...(await runCli(['--help'])).stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]!);
  assert.ok(subcommands.includes('export') && subcommands.includes('keygen'), subcommands.join(' '));
  const writers: string[] = [];
  for (const subcommand of subcommands) {
    const help = (await runCli([subcommand, '--help'])).stdout;
    if (!/ --out(?:put)? [A-Z]/.test(help)) continue;
    writers.push(subcommand);
    assert.match(help, /^ {2}-o, --out(?:put)? [A-Z]+/m, `${subcommand} --help`);
  }
  assert.deepEqual(writers, ['validate', 'probe', 'sign', 'keygen', 'export']);
  const out = path.join(dir, 'export.jsonl');
  const exported = await runCli(['export', '--data-dir', path.join(dir, 'data'), '-o', out], { env: { CARDGATE_DATABASE_URL: '' } });
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(exported.stdout, '');
  assert.match(fs.readFileSync(out, 'utf8'), /^\{"format":"cardgate-export",/);
  const keygen = await runCli(['keygen', '-o', path.join(dir, 'signer')]);
  assert.equal(keygen.code, 0, keygen.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'signer.private.jwk')) && fs.existsSync(path.join(dir, 'signer.jwks')));
});

test('--max-warnings -1 is no limit; another negative number is a usage error', async () => {
  assert.equal((await runCli(['validate', warned, '--max-warnings', '-1'])).code, 0);
  assert.equal((await runCli(['validate', warned, '--max-warnings=-1'])).code, 0);
  const bad = await runCli(['validate', warned, '--max-warnings', '-2']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-warnings must be a whole number, or -1 for no limit, not "-2"/);
});

test('--max-warnings N: exactly N warnings pass, N + 1 fail', async () => {
  assert.equal((await runCli(['validate', warned, '--max-warnings', '5'])).code, 0, 'the card has 5 warnings');
  assert.equal((await runCli(['validate', warned, '--max-warnings', '4'])).code, 1);
});

test('a run that fails says why in one line on standard error', async () => {
  const cases: Array<[string[], number, string]> = [
    [[warned, '--max-warnings', '2'], 1, 'too many warnings: 5 (--max-warnings 2)'],
    [[oneWarning, '--fail-on', 'warning'], 1, 'a warning fails the run (--fail-on warning)'],
    [[warned, '--fail-on', 'warning'], 1, '5 warnings fail the run (--fail-on warning)'],
    [[mixed], 1, `${'\\d+'} errors fail the run (--fail-on error)`],
    [[clean, path.join(dir, 'missing.json')], 2, 'an input could not be checked'],
  ];
  for (const [args, code, reason] of cases) {
    const r = await runCli(['validate', ...args]);
    assert.equal(r.code, code, args.join(' '));
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`^cardgate validate: ${reason.replace(/[()]/g, '\\$&')}$`));
  }
  const pass = await runCli(['validate', clean]);
  assert.equal(pass.code, 0);
  assert.equal(pass.stderr, '', 'a run that passes says nothing on stderr');
});

test('a usage error prints the problem, the usage line and the --help hint, not the whole help', async () => {
  for (const args of [['validate', clean, '--bogus'], ['sign'], ['trust', 'nothing'], ['bogus']]) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /\nUsage: cardgate /);
    assert.match(r.stderr, /\nRun 'cardgate( \w+)? --help' for more\.\n$/);
    assert.doesNotMatch(r.stderr, /Options:|Exit codes/, 'not the whole help');
    assert.ok(r.stderr.split('\n').length <= 5, r.stderr);
  }
});

test('cardgate alone prints usage and starts nothing; flags without a subcommand are a usage error naming serve', async () => {
  const bare = await runCli([], { timeoutMs: 20_000 });
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /^cardgate: a subcommand is required\nUsage: cardgate <subcommand> \[options\]\nSubcommands: serve, validate, /);
  assert.doesNotMatch(bare.stdout + bare.stderr, /listening/);
  const flags = await runCli(['--port', '8080'], { timeoutMs: 20_000 });
  assert.equal(flags.code, 2);
  assert.match(flags.stderr, /^cardgate: a subcommand is required; to run the service: cardgate serve --port 8080\n/);
  for (const args of [['--help'], ['serve', '--help']]) {
    const help = await runCli(args);
    assert.equal(help.code, 0);
    assert.doesNotMatch(help.stdout, /default subcommand|run the HTTP service \(default\)/, 'serve is no default');
  }
});

test('what starts the service says serve: the image, the systemd unit, the GitLab service, npm start', () => {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  assert.match(read('Dockerfile'), /^ENTRYPOINT \["\/usr\/local\/bin\/cardgate"\]\nCMD \["serve"\]$/m);
  assert.match(read('deploy/cardgate.service'), /^ExecStart=\/usr\/local\/bin\/cardgate serve\b/m);
  assert.match((JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start, /src\/main\.ts serve$/);
  const serviceCommands = [...read('docs/ci.md').matchAll(/command: \[(.*)\]/g)].map((m) => m[1]!);
  assert.ok(serviceCommands.length > 0, 'docs/ci.md shows a service command');
  for (const command of serviceCommands) assert.match(command, /"serve"/);
  const gitlab = read('ci/gitlab/cardgate.gitlab-ci.yml');
  for (const run of gitlab.matchAll(/\$CARDGATE (\w+)/g)) assert.notEqual(run[1], '--port', 'every run names its subcommand');
});

test('-V and --version print the bare version, version the runtime too; version --help prints the help', async () => {
  for (const args of [['-V'], ['--version']]) {
    const r = await runCli(args);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${version}\n`);
  }
  const long = await runCli(['version']);
  assert.equal(long.code, 0);
  assert.equal(long.stdout, `cardgate ${version} (Node.js ${process.version}, ${process.platform}-${process.arch})\n`);
  const help = await runCli(['version', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: cardgate version\n/);
});

test('inputs that could not be checked are counted apart from the cards checked', async () => {
  const r = await runCli(['validate', clean, path.join(dir, 'missing.json'), '/dev/null']);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /\n1 card checked: all valid; 2 inputs could not be checked; 2 errors, 0 warnings\n$/);
  const md = await runCli(['validate', clean, path.join(dir, 'missing.json'), '-f', 'markdown']);
  assert.match(md.stdout, /\n1 card checked: all valid; 1 input could not be checked; 1 error, 0 warnings\.\n/);
  const gh = await runCli(['validate', clean, path.join(dir, 'missing.json'), '-f', 'github']);
  assert.match(gh.stdout, /\ncardgate: 1 card checked, 0 invalid, 1 input could not be checked; 1 error, 0 warnings\n$/);
});

test('findings are listed in the order of the text, errors and warnings together', async () => {
  const r = await runCli(['validate', mixed]);
  const places = [...r.stdout.matchAll(/^.*mixed\.json:(\d+):(\d+) {2}(error|warning)/gm)].map((m) => [Number(m[1]), Number(m[2]), m[3]] as const);
  assert.ok(places.some(([, , s]) => s === 'warning') && places.some(([line, , s]) => s === 'error' && line > 2), r.stdout);
  const sorted = [...places].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  assert.deepEqual(places, sorted);
});

test('github, gitlab and junit messages do not repeat the field before the message', async () => {
  const gh = await runCli(['validate', mixed, '-f', 'github']);
  assert.match(gh.stdout, /title=schema\.required::name is required$/m);
  assert.doesNotMatch(gh.stdout, /::(\w+): \1 /, 'no "name: name is required"');
  const gitlab = JSON.parse((await runCli(['validate', mixed, '-f', 'gitlab'])).stdout) as Array<{ description: string }>;
  assert.ok(gitlab.some((i) => i.description === 'name is required'));
  assert.ok(gitlab.every((i) => !/^([\w[\].]+): (?:[\w[\]]+\.)?\1 /.test(i.description)), JSON.stringify(gitlab));
  const junit = (await runCli(['validate', mixed, '-f', 'junit'])).stdout;
  assert.match(junit, /mixed\.json:1:1: name is required \[schema\.required\]/);
  assert.match(junit, /mixed\.json:4:\d+: url must be an absolute URL/);
});
