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

/** Base62 characters of the count that orders ids made in one millisecond: 62^3 ids a millisecond. */
const SEQUENCE_CHARS = 3;
const SEQUENCE_MAX = 62 ** SEQUENCE_CHARS - 1;
let lastMs = -1;
let sequence = 0;

/** `n` as `width` base62 digits; base62's digits sort in ASCII order, so the text sorts as the number. */
const base62Fixed = (n: number, width: number): string => {
  let out = '';
  for (let i = 0; i < width; i++, n = Math.floor(n / 62)) out = base62[n % 62] + out;
  return out;
};

/**
 * Ids of records: `<prefix>_<epoch_ms>_<20 base62 chars>`, the 20 being a count of the ids this
 * process made before in that millisecond (3 characters) and 17 crypto-random ones. Lists order
 * records made in one millisecond by id, so the count keeps them in the order they were made (an
 * agent's two reports of one millisecond: the later one is its latest). The random part makes a
 * report URL a capability link: it needs no login.
 */
export const newId = (prefix: 'rpt' | 'batch' | 'val' | 'gh' | 'acct' | 'key' | 'tk' | 'mon' | 'evt', nowMs: number): string => {
  // Past 62^3 in one millisecond (never seen) the count stays at its last value: ids stay unique by their random part.
  sequence = nowMs === lastMs ? Math.min(sequence + 1, SEQUENCE_MAX) : 0;
  lastMs = nowMs;
  return `${prefix}_${nowMs}_${base62Fixed(sequence, SEQUENCE_CHARS)}${randomBase62(20 - SEQUENCE_CHARS)}`;
};

export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_\\d{13}_[0-9A-Za-z]{16,}$`);
