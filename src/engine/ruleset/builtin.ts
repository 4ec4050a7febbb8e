/**
 * The built-in rulesets a ruleset may extend, as data over the catalogue:
 * - `cardgate:recommended`: the catalogue as it is (names no rule);
 * - `cardgate:strict`: warnings about security and endpoints raised to errors, provider.missing and
 *   signature.missing raised to warnings;
 * - `cardgate:spec`: only what a specification text or the official schema requires (every rule
 *   that enforces no MUST is off).
 */
import { ruleCatalogue } from '../catalogue.ts';
import type { RuleLevel } from '../types.ts';

/** The security and endpoint warnings cardgate:strict makes errors. */
const strictErrors = [
  'url.https', 'url.placeholder', 'url.unreachable-host', 'url.private-host', 'security.undefined-scheme',
  'security.scope.undeclared', 'extended-card.no-security', 'content.secret', 'signature.unknown-key', 'signature.jku-untrusted',
];

export const builtinRulesets: Readonly<Record<string, Readonly<Record<string, RuleLevel>>>> = {
  'cardgate:recommended': {},
  'cardgate:strict': {
    ...Object.fromEntries(strictErrors.map((id) => [id, 'error' as const])),
    'provider.missing': 'warning',
    'signature.missing': 'warning',
  },
  'cardgate:spec': Object.fromEntries(ruleCatalogue.filter((r) => !r.must).map((r) => [r.id, 'off' as const])),
};

/** Severities in order: raising a rule moves it right. */
export const severityRank: Readonly<Record<RuleLevel, number>> = { off: 0, info: 1, warning: 2, error: 3 };

export const builtinNames = Object.keys(builtinRulesets);
