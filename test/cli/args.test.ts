/** The command-line scaffolding every subcommand shares, and `cardgate healthcheck`'s use of it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCommandLine, runCommand } from '../../src/cli/args.ts';
import { runHealthcheck } from '../../src/cli/healthcheck.ts';

const capture = () => {
  const io = { out: '', err: '', stdout: (s: string) => void (io.out += s), stderr: (s: string) => void (io.err += s), readStdin: async () => Buffer.alloc(0) };
  return io;
};

const HELP = 'Usage: cardgate demo [--name N] A\n\nWhat demo does.\n\nOptions:\n  --name N   a name\n';

test('readCommandLine: values and positionals; -h/--help prints the help (0); a bad flag prints the problem, the usage line and the --help hint, not the help (2)', () => {
  const io = capture();
  const line = readCommandLine('demo', HELP, io, ['a', '--name', 'x'], { name: { type: 'string' } });
  assert.ok(!('exit' in line));
  assert.equal(line.values.name, 'x');
  assert.deepEqual(line.positionals, ['a']);
  assert.equal(line.usage('too many things'), 2);
  assert.equal(io.err, "cardgate demo: too many things\nUsage: cardgate demo [--name N] A\nRun 'cardgate demo --help' for more.\n");

  for (const flag of ['-h', '--help']) {
    const help = capture();
    assert.deepEqual(readCommandLine('demo', HELP, help, [flag], {}), { exit: 0 });
    assert.equal(help.out, HELP);
  }
  const bad = capture();
  assert.deepEqual(readCommandLine('demo', HELP, bad, ['--bogus'], {}), { exit: 2 });
  assert.match(bad.err, /^cardgate demo: unknown option --bogus \(an operand that starts with '-' goes after '--': -- --bogus\)\nUsage: cardgate demo \[--name N\] A\nRun 'cardgate demo --help' for more\.\n$/);
  assert.doesNotMatch(bad.err, /Options:/);
  const negative = capture();
  const withNegative = readCommandLine('demo', HELP, negative, ['--name', '-1', 'a'], { name: { type: 'string' } });
  assert.ok(!('exit' in withNegative), negative.err);
  assert.equal(withNegative.values.name, '-1', 'a negative number is a value, not a flag');
  const positional = capture();
  assert.deepEqual(readCommandLine('demo', 'HELP\n', positional, ['extra'], {}, { allowPositionals: false }), { exit: 2 });
  assert.match(positional.err, /extra/);
});

test('runCommand: runs the named command; a missing or unknown one (or an inherited name) is a usage error', async () => {
  const problems: string[] = [];
  const usage = (problem: string) => (problems.push(problem), 2);
  const commands = { list: () => 0 };
  assert.equal(await runCommand('list', commands, usage), 0);
  assert.equal(await runCommand(undefined, commands, usage), 2);
  assert.equal(await runCommand('toString', commands, usage), 2);
  assert.deepEqual(problems, ['a command is required', "unknown command 'toString'"]);
});

test('healthcheck: --help, and usage errors for unknown flags, two URLs and a bad URL', async () => {
  const help = capture();
  assert.equal(await runHealthcheck(['--help'], help), 0);
  assert.match(help.out, /^Usage: cardgate healthcheck/);
  for (const [args, message] of [
    [['-x'], /unknown option -x \(an operand that starts with '-' goes after '--': -- -x\)/],
    [['http://a.test', 'http://b.test'], /give at most one URL/],
    [['not a url'], /not a URL: not a url/],
  ] as const) {
    const io = capture();
    assert.equal(await runHealthcheck([...args], io), 2, args.join(' '));
    assert.match(io.err, message);
  }
});
