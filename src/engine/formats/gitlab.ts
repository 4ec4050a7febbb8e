/**
 * `gitlab`: a GitLab Code Quality report (the CodeClimate subset GitLab reads): per problem a
 * description, check_name (the rule), a fingerprint, a severity and the file and line. Errors are
 * `major`, warnings `minor`, warnings that cost the score nothing and information `info`.
 */
import { ruleCatalogue } from '../catalogue.ts';
import { messageWithField, problemsOf, type CheckedInput, type Problem } from './input.ts';

const freeWarnings = new Set(ruleCatalogue.filter((r) => r.severity === 'warning' && r.weight === 0).map((r) => r.id));

const severity = (p: Problem): 'major' | 'minor' | 'info' => {
  if (p.severity === 'error') return 'major';
  return p.severity === 'info' || freeWarnings.has(p.rule) ? 'info' : 'minor';
};

/** FNV-1a, 64 bits, over the UTF-8 bytes, in hex: a stable name for a problem (not a secret, so no cryptographic hash is needed). */
const fnv1a64 = (text: string): string => {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, '0');
};

export const formatGitlab = (inputs: readonly CheckedInput[]): string => {
  const seen = new Map<string, number>();
  const issues = inputs.flatMap((input) => {
    const path = input.name.replaceAll('\\', '/');
    return problemsOf(input).map((p) => {
      // Same file, rule and field: stable across runs as long as the card keeps that problem there;
      // a repeat (two scopes undeclared in one requirement) is told apart by its rank.
      const key = JSON.stringify([path, p.rule, p.path ?? '']);
      const repeat = seen.get(key) ?? 0;
      seen.set(key, repeat + 1);
      return {
        description: messageWithField(p),
        check_name: p.rule,
        fingerprint: fnv1a64(repeat === 0 ? key : `${key}#${repeat}`),
        severity: severity(p),
        location: { path, lines: { begin: p.line ?? 1 } },
      };
    });
  });
  return `${JSON.stringify(issues, null, 2)}\n`;
};
