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
