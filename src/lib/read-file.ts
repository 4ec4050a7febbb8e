/**
 * Reading a file a person named (a card, a key, a JWKS, a configuration) the way the service reads
 * a request body: a regular file only (a FIFO or a device such as /dev/zero would hang or never
 * end), at most a stated number of bytes, and valid UTF-8 (a leading byte order mark dropped).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The text, or why there is none, in words that follow the file's name (`cards/a.json: <problem>`). */
export type FileText = { text: string } | { problem: string };

/** A size bound and what it is called in messages: `the limit for a card (http.maxBodyBytes)`. */
export interface ReadBound {
  maxBytes: number;
  /** What is bounded, e.g. `a card (http.maxBodyBytes)`. */
  what: string;
}

/**
 * The bytes as text, or undefined when they are not UTF-8; a leading byte order mark is dropped.
 * ASCII (nearly every JSON text) is copied as it is, and each check runs at memory speed: ~1 ms
 * for 10 MB, where a fatal TextDecoder took 12-30 ms.
 */
export const utf8Text = (bytes: Buffer): string | undefined => {
  const text = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  if (isAscii(text)) return text.toString('latin1');
  return isUtf8(text) ? text.toString('utf8') : undefined;
};

export const tooLarge = (bound: ReadBound): string => `larger than ${bound.maxBytes} bytes, the size limit for ${bound.what}`;

/** Text from bytes already read within the bound (`undefined`: the bound was passed). */
export const boundedText = (bytes: Buffer | undefined, bound: ReadBound): FileText => {
  if (bytes === undefined || bytes.byteLength > bound.maxBytes) return { problem: tooLarge(bound) };
  const text = utf8Text(bytes);
  return text === undefined ? { problem: 'not valid UTF-8 text' } : { text };
};

const kindOf = (info: Stats): string =>
  info.isDirectory() ? 'a directory' : info.isFIFO() ? 'a FIFO' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : info.isSocket() ? 'a socket' : 'not a file';

const reasons: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ELOOP: 'too many symbolic links (a loop)',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * Up to `limit` bytes from the start of an open file of `size` bytes when opened: a buffer of its
 * size and one byte more (a card's few KB, not the bound's MiB zeroed for each of many files),
 * grown while the file grows, never past `limit`. Only the bytes read are returned.
 */
const readUpTo = (fd: number, size: number, limit: number): Buffer => {
  let buffer = Buffer.allocUnsafe(Math.min(limit, size + 1));
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (filled === limit) break;
      buffer = Buffer.concat([buffer], Math.min(limit, buffer.length * 2));
    }
    const read = readSync(fd, buffer, filled, buffer.length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
};

/**
 * A regular file opened for reading, or why not. Opened without blocking, so that a FIFO is
 * refused at once instead of waiting for a writer. The caller closes the descriptor.
 */
export const openRegularFile = (file: string): { fd: number; size: number } | { problem: string } => {
  if (file === '') return { problem: 'an empty path names no file' };
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = fstatSync(fd);
    if (info.isFile()) return { fd, size: info.size };
    closeSync(fd);
    return { problem: `${kindOf(info)}, not a regular file` };
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return { problem: reasons[code] ? `${code}: ${reasons[code]}` : `cannot read: ${code || (e as Error).message}` };
  }
};

/** A regular file's text within the bound: at most one byte more than the bound is read (a file that grows meanwhile is still cut). */
export const readTextFile = (file: string, bound: ReadBound): FileText => {
  const opened = openRegularFile(file);
  if ('problem' in opened) return opened;
  try {
    if (opened.size > bound.maxBytes) return { problem: tooLarge(bound) };
    const bytes = readUpTo(opened.fd, opened.size, bound.maxBytes + 1);
    return boundedText(bytes.byteLength > bound.maxBytes ? undefined : bytes, bound);
  } catch (e) {
    return { problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  } finally {
    closeSync(opened.fd);
  }
};
