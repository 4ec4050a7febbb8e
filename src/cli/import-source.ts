/**
 * What `cardgate import` reads: a regular file or standard input, as lines of bounded length and
 * valid UTF-8, read twice: once to check every line, then to store them, so that a bad line keeps
 * nothing on any engine. Standard input cannot be read twice: it is kept in a private temporary
 * file while it is checked.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { openRegularFile, tooLarge, type ReadBound } from '../lib/read-file.ts';

/** The longest line an import takes: a report line holds a card and its findings, escaped once more. */
export const importLineBound = (maxBodyBytes: number): ReadBound => ({
  maxBytes: Math.max(64 * 1024 * 1024, 8 * maxBodyBytes),
  what: 'a line of an import (8 x http.maxBodyBytes, at least 64 MiB)',
});

/**
 * The lines of a byte stream (split at "\n", a "\r" before it dropped), each checked as it ends:
 * no longer than the bound (a line without end, as /dev/zero gives, is refused at the bound) and
 * valid UTF-8. Throws an Error naming the line. `copy`, when given, receives every byte read.
 */
export async function* boundedLines(input: AsyncIterable<Buffer>, bound: ReadBound, copy?: Writable): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let size = 0;
  let lineNo = 0;
  const finish = (last: Buffer): string => {
    lineNo++;
    const bytes = parts.length > 0 ? Buffer.concat([...parts, last]) : last;
    parts = [];
    size = 0;
    const text = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (!isUtf8(text)) throw new Error(`line ${lineNo}: not valid UTF-8 text`);
    return text.toString('utf8');
  };
  const checkSize = (added: number): void => {
    size += added;
    if (size > bound.maxBytes) throw new Error(`line ${lineNo + 1}: ${tooLarge(bound)}`);
  };
  for await (const chunk of input) {
    if (copy && !copy.write(chunk)) await once(copy, 'drain');
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      checkSize(nl - start);
      yield finish(chunk.subarray(start, nl));
      start = nl + 1;
    }
    checkSize(chunk.length - start);
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (size > 0) yield finish(Buffer.alloc(0));
}

/** An import's input, to be read from its start as many times as asked; `close` removes what it kept. */
export interface ImportSource {
  /** The stream of its bytes; `copy` (the first read of standard input) keeps them for the next reads. */
  read(): { stream: Readable; copy?: Writable };
  /** The next reads go to what the first one kept. */
  kept(): Promise<void>;
  close(): Promise<void>;
}

/** A regular file, read from its start each time. */
const fileSource = (fd: number): ImportSource => ({
  read: () => ({ stream: createReadStream('', { fd, start: 0, autoClose: false }) }),
  kept: async () => {},
  close: async () => closeSync(fd),
});

/** Standard input, copied into a file readable by its owner only as it is first read. */
const stdinSource = async (stdin: Readable): Promise<ImportSource> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'cardgate-import-'));
  const file = path.join(dir, 'stdin.jsonl');
  let handle: FileHandle | undefined;
  let copy: Writable | undefined = createWriteStream(file, { mode: 0o600 });
  return {
    read: () => (handle ? { stream: handle.createReadStream({ start: 0, autoClose: false }) } : { stream: stdin, ...(copy ? { copy } : {}) }),
    kept: async () => {
      const writer = copy!;
      copy = undefined;
      await new Promise<void>((resolve, reject) => writer.end((e?: Error | null) => (e ? reject(e) : resolve())));
      handle = await open(file);
    },
    close: async () => {
      copy?.destroy();
      await handle?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/** The source of FILE or `-`, or why it cannot be read (a FIFO, a device, a directory, missing). */
export const importSource = async (from: string, stdin: Readable): Promise<ImportSource | { problem: string }> => {
  if (from === '-') return stdinSource(stdin);
  const opened = openRegularFile(from);
  return 'problem' in opened ? opened : fileSource(opened.fd);
};
