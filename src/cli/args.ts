/**
 * What every subcommand does with its line: parse the flags strictly, answer -h/--help with the
 * help on stdout (exit 0), and answer a bad line with the problem and the help on stderr (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { USAGE, type CliIO } from './io.ts';

const helpFlag = { help: { type: 'boolean', short: 'h' } } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof helpFlag; allowPositionals: true; strict: true }>>;

export type CommandLine<O extends Options> =
  | { exit: number }
  | { values: Parsed<O>['values']; positionals: string[]; usage: (problem: string) => number };

/** The parsed line and `usage`, which prints a problem with the help and gives the exit code to return. */
export const readCommandLine = <O extends Options>(
  command: string,
  help: string,
  io: Pick<CliIO, 'stdout' | 'stderr'>,
  args: string[],
  options: O,
  { allowPositionals = true } = {},
): CommandLine<O> => {
  const usage = (problem: string): number => {
    io.stderr(`cardgate ${command}: ${problem}\n\n${help}`);
    return USAGE;
  };
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args, options: { ...options, ...helpFlag }, allowPositionals, strict: true }) as Parsed<O>;
  } catch (e) {
    return { exit: usage((e as Error).message) };
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
