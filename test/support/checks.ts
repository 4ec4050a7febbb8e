/**
 * Checks that cannot pass by default. A check looped over a list passes whatever the behaviour
 * when the list is empty (`[].every(...)` is true, a `for` over nothing asserts nothing), and a
 * skipped test passes too: these make both fail where they would hide a broken behaviour.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';

/** `list`, after asserting it holds at least `atLeast` items (`what` names them in the failure). */
export const nonEmpty = <T>(list: readonly T[], what: string, atLeast = 1): readonly T[] => {
  assert.ok(list.length >= atLeast, `expected at least ${atLeast} ${what}, found ${list.length}: a check over them would pass for nothing`);
  return list;
};

/** Asserts `list` is not empty and `holds` for each item, naming the first that fails. */
export const everyOf = <T>(list: readonly T[], what: string, holds: (item: T) => boolean): void => {
  for (const item of nonEmpty(list, what)) assert.ok(holds(item), `${what}: ${JSON.stringify(item)}`);
};

/** True when running under CI (the `CI` variable set, as CI services and .ci/run do). */
export const underCi = (): boolean => !['', '0', 'false'].includes((process.env.CI ?? '').toLowerCase());

/**
 * Skips the test because this machine lacks something (`reason` says what and where it comes
 * from); under CI, which provides everything a test needs (.ci/run), it fails instead.
 */
export const skipOutsideCi = (t: TestContext, reason: string): void => {
  if (underCi()) assert.fail(`${reason}: under CI no test may be skipped (.ci/run provides what the tests need)`);
  t.skip(reason);
};
