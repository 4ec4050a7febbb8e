/**
 * Trusted signing keys from JWKS files: those a setting or the command line names, and every
 * `*.jwks` in `<dataDir>/trust/` (a directory an air-gapped operator fills by hand).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJwks } from '../../engine/signatures/jwks.ts';
import type { TrustedKey } from '../../engine/signatures/trusted-key.ts';
import { readTextFile, type ReadBound } from '../../lib/read-file.ts';

/** A key file holds more than keys only by mistake (a certificate chain is the most any has). */
export const keyFileBound: ReadBound = { maxBytes: 1 << 20, what: 'a key or JWKS file' };

export type TrustFiles = { keys: TrustedKey[] } | { problem: string };

/** The keys of every file, or the first problem (a file that cannot be read, is not JSON, or holds a bad key). */
export async function readTrustFiles(paths: readonly string[], addedAt: string): Promise<TrustFiles> {
  const keys: TrustedKey[] = [];
  for (const path of paths) {
    const read = readTextFile(path, keyFileBound);
    if ('problem' in read) return { problem: `trust file ${path}: ${read.problem}` };
    let value: unknown;
    try {
      value = JSON.parse(read.text);
    } catch (e) {
      return { problem: `trust file ${path}: not JSON: ${(e as Error).message}` };
    }
    const parsed = parseJwks(value, { addedAt });
    if (parsed.problems.length) return { problem: `trust file ${path}: ${parsed.problems.join('; ')}` };
    keys.push(...parsed.keys);
  }
  return { keys };
}

/** The `*.jwks` files of `<dataDir>/trust/`, sorted; none when the directory does not exist. */
export async function dataDirTrustFiles(dataDir: string): Promise<string[]> {
  const dir = join(dataDir, 'trust');
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jwks')).sort().map((name) => join(dir, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
