/** Time source, injected so tests can cross UTC midnight and minute windows without sleeping. */
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

export const DAY_MS = 86_400_000;

let lastMs = NaN;
let lastIso = '';
/** ISO 8601 UTC with milliseconds, the one timestamp format of every body (the last one is kept: many requests share a millisecond). */
export const iso = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};

/** `YYYY-MM-DD` of the UTC day containing `ms`. */
export const utcDay = (ms: number): string => iso(ms).slice(0, 10);

/** Epoch ms of the next 00:00 UTC after `ms`. */
export const nextUtcMidnight = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
};

/**
 * When `at` comes, in words for a person: "in 16 h 30 min, at 00:00 UTC" (whole minutes, rounded
 * up, so it is never sooner than said); under a minute "in 42 s, at 23:59 UTC".
 */
export const whenInWords = (at: number, now: number): string => {
  const seconds = Math.max(1, Math.ceil((at - now) / 1000));
  const minutes = Math.ceil(seconds / 60);
  const wait = seconds < 60 ? `${seconds} s` : minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${wait}, at ${iso(at).slice(11, 16)} UTC`;
};
