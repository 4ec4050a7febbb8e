import { randomFillSync } from 'node:crypto';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Crypto-random bytes drawn in blocks: one call to the CSPRNG per 4 KiB instead of one per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
const randomByte = (): number => {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
};

/** `n` crypto-random base62 characters (rejection sampling keeps them uniform). */
export const randomBase62 = (n: number): string => {
  let out = '';
  while (out.length < n) {
    const byte = randomByte();
    if (byte < 248) out += base62[byte % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out;
};

/**
 * Ids of reports and validations: `<prefix>_<epoch_ms>_<20 base62 chars>`.
 * The random part makes a report URL a capability link: it needs no login.
 */
export const newId = (prefix: 'rpt' | 'batch' | 'val' | 'gh' | 'acct' | 'key' | 'tk' | 'mon' | 'evt', nowMs: number): string =>
  `${prefix}_${nowMs}_${randomBase62(20)}`;

export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_\\d{13}_[0-9A-Za-z]{16,}$`);
