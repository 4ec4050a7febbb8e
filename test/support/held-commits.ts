/**
 * A store whose commits are held until the test lets them go: a use case that says a change
 * happened must not return before the change is durable.
 */
import assert from 'node:assert/strict';
import type { MemoryStore } from '../../src/store/memory/memory-store.ts';

/** One event-loop turn. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export const holdCommits = (store: MemoryStore) => {
  const held: Array<() => void> = [];
  const commit = store.commit.bind(store);
  store.commit = () => new Promise<void>((resolve) => held.push(() => void commit().then(resolve)));
  /** Runs `useCase`, asserts it waits for a commit made after its change, then lets that commit go. */
  const durableBeforeAnswer = async <T>(what: string, useCase: () => Promise<T>): Promise<T> => {
    let settled = false;
    const answer = useCase().finally(() => void (settled = true));
    // Until it asks for its commit or answers (its store calls may take several turns); bounded.
    for (let turns = 0; turns < 1000 && held.length === 0 && !settled; turns++) await turn();
    assert.equal(settled, false, `${what}: answered before its commit`);
    assert.equal(held.length, 1, `${what}: one commit asked for`);
    held.shift()!();
    return answer;
  };
  /** Runs a read, asserting it asks for no commit. */
  const noCommit = async <T>(what: string, useCase: () => Promise<T>): Promise<T> => {
    const answer = await useCase();
    assert.equal(held.length, 0, `${what}: a read asked for a commit`);
    return answer;
  };
  return { durableBeforeAnswer, noCommit };
};
