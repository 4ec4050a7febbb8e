/**
 * What every subcommand does with its line: parse the flags strictly, answer -h/--help with the
 * help on stdout (exit 0), and answer a bad line on stderr with the problem, the usage line and
 * where the help is (exit 2): the whole help would bury the problem.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { USAGE, type CliIO } from './io.ts';

const helpFlag = { help: { type: 'boolean', short: 'h' } } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof helpFlag; allowPositionals: true; strict: true }>>;

export type CommandLine<O extends Options> =
  | { exit: number }
  | { values: Parsed<O>['values']; positionals: string[]; usage: (problem: string) => number };

/** The help's first paragraph: its `Usage:` line(s). */
export const usageOf = (help: string): string => help.split(/\n\s*\n/, 1)[0]!.trimEnd();

/** What a usage error prints: the problem, the usage, and how to get the help. */
export const usageError = (command: string, problem: string, help: string): string =>
  `${command}: ${problem}\n${usageOf(help)}\nRun '${command} --help' for more.\n`;

/**
 * `--name -1` as `--name=-1`: a string option's value may be a negative number (`--max-warnings
 * -1`), which the parser would otherwise take for a flag.
 */
const negativeValuesJoined = (args: string[], options: Options): string[] => {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && /^-\d+$/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]!);
  }
  return out;
};

/**
 * The parser's complaint as a usage problem. Its unknown-option message ends in an unbalanced
 * quote (`as in '-- "--foo"`): said again plainly, with the way to pass an operand that starts
 * with a dash.
 */
const parseProblem = (e: Error & { code?: string }): string => {
  const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(.*?)'(\. To specify.*)?$/s.exec(e.message) : null;
  if (!unknown) return e.message;
  return `unknown option ${unknown[1]}${unknown[2] ? ` (an operand that starts with '-' goes after '--': -- ${unknown[1]})` : ''}`;
};

/** The parsed line and `usage`, which prints a problem with the usage and gives the exit code to return. */
export const readCommandLine = <O extends Options>(
  command: string,
  help: string,
  io: Pick<CliIO, 'stdout' | 'stderr'>,
  args: string[],
  options: O,
  { allowPositionals = true } = {},
): CommandLine<O> => {
  const usage = (problem: string): number => {
    io.stderr(usageError(`cardgate ${command}`, problem, help));
    return USAGE;
  };
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: negativeValuesJoined(args, options), options: { ...options, ...helpFlag }, allowPositionals, strict: true }) as Parsed<O>;
  } catch (e) {
    return { exit: usage(parseProblem(e as Error & { code?: string })) };
  }
  if ((parsed.values as { help?: boolean }).help) {
    io.stdout(help);
    return { exit: 0 };
  }
  return { values: parsed.values, positionals: parsed.positionals, usage };
};

/** Runs the named command of `commands`; a missing or unknown one is a usage error. */
export const runCommand = (
  command: string | undefined,
  commands: Record<string, () => Promise<number> | number>,
  usage: (problem: string) => number,
): Promise<number> | number => {
  if (command === undefined) return usage('a command is required');
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  return run ? run() : usage(`unknown command '${command}'`);
};
