/**
 * A card whose validation runs far past a time limit while its request still parses well within
 * it, on a quiet machine and on a loaded one. A fixed limit cannot do both: the same validation
 * took 0.4 s in one run and 3.5 s in another, its parse from 15 ms to over 150 ms. So the limit is
 * measured, in this process, now: the geometric mean of this card's parse and its validation (the
 * validation about 80 times the parse), which leaves each side the same margin, about nine (a
 * fifth of the validation left the validation a margin of five, and on a machine at load 17 a
 * worker once validated the card within it).
 */
import { validateCard } from '../../src/engine/index.ts';

/** 90,000 faulty skills: the slowest validation per byte of parsing among the shapes measured. */
export const slowCardText = `{"name":"x","protocolVersion":"0.3.0","skills":[${Array(90_000).fill('{"id":"a"}').join(',')}]}`;

/** The time limit to configure for `slowCardText` to run past it (ms, whole). */
export const timeLimitForSlowCard = (): number => {
  let started = performance.now();
  const card = JSON.parse(slowCardText) as Record<string, unknown>;
  const parseMs = performance.now() - started;
  validateCard({ name: 'warm-up', protocolVersion: '0.3.0', skills: [{ id: 'a' }] }); // one-time set-up is not timed
  started = performance.now();
  validateCard(card);
  const validationMs = performance.now() - started;
  return Math.max(20, Math.round(Math.sqrt(parseMs * validationMs)));
};
