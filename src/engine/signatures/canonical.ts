/**
 * The payload a card's signatures sign: the card without `signatures`, canonicalized with RFC 8785
 * (JCS). The 1.0 form first removes the fields left at their protocol buffer defaults; the 0.3.0
 * form is the card as sent.
 */
import canonicalize from 'canonicalize';
import type { CanonicalForm } from '../types.ts';
import { withoutProtoDefaults } from './proto-defaults.ts';
export const canonicalForms: readonly CanonicalForm[] = ['1.0', '0.3.0'];

/** The form a card of this rule set is signed in: 1.0 cards drop their defaults, 0.x cards do not. */
export const formFor = (version: string): CanonicalForm => (version === '1.0' ? '1.0' : '0.3.0');

/** The canonical payload text, or undefined when JCS cannot write the card (a lone surrogate in a string). */
export function canonicalPayload(card: Record<string, unknown>, form: CanonicalForm): string | undefined {
  const { signatures: _excluded, ...content } = card;
  try {
    return canonicalize(form === '1.0' ? withoutProtoDefaults(content) : content);
  } catch {
    return undefined;
  }
}
