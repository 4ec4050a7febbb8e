/** How one role compares with another, and how a person's role comes from their provider's claim. */
import { SESSION_ROLES, type SessionRole } from '../../config/roles.ts';

/** Whether `role` may do what `needed` may: it is `needed` or comes after it in SESSION_ROLES. */
export const roleAllows = (role: SessionRole, needed: SessionRole): boolean => SESSION_ROLES.indexOf(role) >= SESSION_ROLES.indexOf(needed);

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
