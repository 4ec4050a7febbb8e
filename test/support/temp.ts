/**
 * Temp directories for one test file, removed when its process exits: after every hook, so
 * also after a file-level after() that stops a server still using one (call at module level).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const tempDirFactory = (prefix: string): (() => string) => {
  const dirs: string[] = [];
  process.once('exit', () => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
};

/**
 * Copies a data directory as a crash at this moment would leave it, while the store may be
 * removing or renaming files in the threadpool (an old journal once a snapshot is durable): a file
 * gone between the listing and its copy means a later moment, so the copy starts again.
 */
export const copyWhileWritten = (dir: string, copy: string, keep: (file: string) => boolean = () => true): void => {
  for (let attempt = 1; ; attempt++) {
    try {
      fs.cpSync(dir, copy, { recursive: true, filter: keep });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 10) throw err;
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }
};
