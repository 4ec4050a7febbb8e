import path from 'node:path';
import { boundedText, readTextFile, type FileText, type ReadBound } from '../lib/read-file.ts';

/** What a subcommand may touch of the outside world; tests pass their own. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input's bytes; undefined once they passed `maxBytes` (the rest is not read). */
  readStdin: (maxBytes: number) => Promise<Buffer | undefined>;
  /** The environment (colour, configuration); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (colour). */
  stdoutIsTTY?: boolean;
}

export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async (maxBytes) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > maxBytes) return undefined;
    }
    return Buffer.concat(chunks);
  },
  env: process.env,
  // Read when asked, not when this module loads: the single executable loads it before it runs.
  get stdoutIsTTY() {
    return process.stdout.isTTY === true;
  },
};

/** Exit code of a usage error (bad flags, unknown subcommand, bad configuration). */
export const USAGE = 2;

/** The text of a FILE operand or of `-` (standard input), within the bound; or why there is none. */
export const readOperand = async (operand: string, bound: ReadBound, readStdin: CliIO['readStdin']): Promise<FileText> =>
  operand === '-' ? boundedText(await readStdin(bound.maxBytes), bound) : readTextFile(operand, bound);

/** A path as messages show it: relative to the working directory when inside it. */
export const shownPath = (file: string): string => {
  const relative = path.relative(process.cwd(), path.resolve(file));
  return relative === '' || relative.startsWith('..') ? path.resolve(file) : relative;
};

/** A file's text within its bound, read as every file the CLI names is (a regular file, UTF-8), or the problem after its name. */
export const readBounded = async (file: string, maxBytes: number, what: string): Promise<FileText> => {
  const read = readTextFile(file, { maxBytes, what });
  return 'problem' in read ? { problem: `${shownPath(file)}: ${read.problem}` } : read;
};
