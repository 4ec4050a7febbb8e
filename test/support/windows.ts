/**
 * The server counts limits in windows aligned to the clock (minute, hour, UTC day: multiples
 * of their length since the epoch), so a black-box test that counts within one window on the
 * real clock must not start just before the window rolls over.
 */
import { setTimeout as delay } from 'node:timers/promises';

export const MINUTE_MS = 60_000;

/** Waits, if need be, for the next window of `windowMs`, so that at least `marginMs` of the current one is left. */
export const awaitWindowRoom = async (windowMs: number, marginMs: number): Promise<void> => {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await delay(left + 10);
};
