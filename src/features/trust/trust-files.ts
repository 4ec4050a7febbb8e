/**
 * Trusted signing keys from JWKS files: those a setting or the command line names, and every
 * `*.jwks` in `<dataDir>/trust/` (a directory an air-gapped operator fills by hand).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJwks } from '../../engine/signatures/jwks.ts';
import type { TrustedKey } from '../../engine/signatures/trusted-key.ts';

export type TrustFiles = { keys: TrustedKey[] } | { problem: string };

/** The keys of every file, or the first problem (a file that cannot be read, is not JSON, or holds a bad key). */
export async function readTrustFiles(paths: readonly string[], addedAt: string): Promise<TrustFiles> {
  const keys: TrustedKey[] = [];
  for (const path of paths) {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(path, 'utf8'));
    } catch (e) {
      const error = e as NodeJS.ErrnoException;
      return { problem: `trust file ${path}: ${error instanceof SyntaxError ? `not JSON: ${error.message}` : `cannot read: ${error.code ?? error.message}`}` };
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
