/** The roles of people signed in, and how a person's role comes from their provider's claim. */
import type { SessionRole } from '../../store/contract/sessions.ts';

/** Lowest first: each role may do what the ones before it may. */
export const ROLE_ORDER: readonly SessionRole[] = ['viewer', 'editor', 'admin'];

export const roleAllows = (role: SessionRole, needed: SessionRole): boolean => ROLE_ORDER.indexOf(role) >= ROLE_ORDER.indexOf(needed);

/** The highest role any of the claim's values (a string, or an array of them) maps to; undefined when none does. */
export const roleFromClaim = (claim: unknown, mapping: Readonly<Record<string, SessionRole>>): SessionRole | undefined => {
  const values = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim.filter((v): v is string => typeof v === 'string') : [];
  let best: SessionRole | undefined;
  for (const value of values.slice(0, 1000)) {
    const role = Object.hasOwn(mapping, value) ? mapping[value] : undefined;
    if (role !== undefined && (best === undefined || roleAllows(role, best))) best = role;
  }
  return best;
};
