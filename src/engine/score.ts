/**
 * Score and suggestions (docs/scoring.md). Invalid card: 0. Valid card: 100 minus each warning's
 * catalogue weight (one rule costs at most 3x its weight) minus the weight of each missing
 * recommended field; floored at 0, always an integer, a pure function of the findings.
 */
import { ruleCatalogue } from './catalogue.ts';
import type { Report } from './report.ts';
import { clip } from './paths.ts';
import { arrayOf, recordOf } from './rules/context.ts';
import type { Suggestion } from './types.ts';

/**
 * What a warning costs: its catalogue weight when the rule is a warning by default; a rule a
 * ruleset made a warning (an info or practice error, a custom rule) costs RAISED_WARNING_WEIGHT.
 */
export const RAISED_WARNING_WEIGHT = 5;
const warningWeights = new Map(ruleCatalogue.filter((r) => r.severity === 'warning').map((r) => [r.id, r.weight]));
export const warningWeight = (rule: string): number => warningWeights.get(rule) ?? RAISED_WARNING_WEIGHT;

/** A rule repeated many times (say, ten http:// URLs) costs at most this many times its weight. */
export const MAX_COUNT_PER_RULE = 3;
/** Missing skill examples cost this much per skill, at most `EXAMPLES_CAP` in all. */
export const EXAMPLES_WEIGHT = 2;
export const EXAMPLES_CAP = 10;

interface Recommended {
  field: string;
  weight: number;
  suggestion: string;
}

/** Recommended top-level fields, their weights and what to write. */
export const recommendedFields: readonly Recommended[] = [
  { field: 'provider', weight: 5, suggestion: 'add "provider": {"organization": "<who runs the agent>", "url": "https://<their site>"}' },
  { field: 'documentationUrl', weight: 3, suggestion: 'add "documentationUrl": "https://<where the agent is documented>"' },
  { field: 'iconUrl', weight: 2, suggestion: 'add "iconUrl": "https://<a square PNG or SVG icon>"' },
  { field: 'securitySchemes', weight: 3, suggestion: 'declare how clients authenticate, e.g. "securitySchemes": {"bearer": <scheme>} (0.x: {"type": "http", "scheme": "bearer"}; 1.0: {"httpAuthSecurityScheme": {"scheme": "bearer"}}); an empty object states that no authentication is needed' },
];

const migrationRules = new Set<string>(['field.legacy-0x', 'field.from-1.0']);

export interface Scored {
  score: number;
  /** At most the report's `maxFindings`. */
  suggestions: Suggestion[];
  /** Suggestions past that cap (with one for each warning the report only counted). */
  suggestionsLeftOut: number;
}

/** One reason a valid card lost points: a warning's rule, a missing recommended field, or skills without examples. */
export interface ScorePart {
  kind: 'rule' | 'field' | 'examples';
  /** The rule id, the field name, or `skills[].examples`. */
  id: string;
  /** Findings of the rule, or skills lacking examples (1 for a field). */
  count: number;
  points: number;
}

/** The indexes of the skills that have no examples. */
const skillsWithoutExamples = (card: Record<string, unknown>): number[] => {
  const lacking: number[] = [];
  arrayOf(card.skills).forEach((s, index) => {
    const skill = recordOf(s);
    if (skill && !(Array.isArray(skill.examples) && skill.examples.length > 0)) lacking.push(index);
  });
  return lacking;
};

/** What the score lost for skills without examples, from how many there are. */
const examplesPoints = (lacking: number): number => Math.min(lacking * EXAMPLES_WEIGHT, EXAMPLES_CAP);

/** What a valid card's score lost, part by part: the score is 100 minus their points, floored at 0. */
export function scoreParts(
  card: Record<string, unknown> | undefined,
  warningsPerRule: Iterable<readonly [string, number]>,
  lacking = card ? skillsWithoutExamples(card).length : 0,
): ScorePart[] {
  const parts: ScorePart[] = [];
  for (const [rule, count] of warningsPerRule) {
    const points = warningWeight(rule) * Math.min(count, MAX_COUNT_PER_RULE);
    if (points > 0) parts.push({ kind: 'rule', id: rule, count, points });
  }
  if (!card) return parts;
  for (const r of recommendedFields) if (!Object.hasOwn(card, r.field)) parts.push({ kind: 'field', id: r.field, count: 1, points: r.weight });
  if (lacking > 0) parts.push({ kind: 'examples', id: 'skills[].examples', count: lacking, points: examplesPoints(lacking) });
  return parts;
}

/** The score weighs every warning, kept or only counted, so capping the findings never changes it. */
export function scoreCard(card: Record<string, unknown>, valid: boolean, report: Report): Scored {
  const suggestions: Suggestion[] = report.warnings.map((w, i) => ({
    type: migrationRules.has(w.rule) ? 'migration' : 'improvement',
    field: w.path,
    suggestion: report.fixes[i]!,
  }));
  let suggestionsLeftOut = report.leftOut.warnings;
  const suggest = (suggestion: Suggestion): void => {
    if (suggestions.length < report.maxFindings) suggestions.push({ ...suggestion, field: clip(suggestion.field), suggestion: clip(suggestion.suggestion) });
    else suggestionsLeftOut++;
  };
  const lacking = skillsWithoutExamples(card);
  const skills = arrayOf(card.skills);
  for (const r of recommendedFields) if (!Object.hasOwn(card, r.field)) suggest({ type: 'improvement', field: r.field, suggestion: r.suggestion });
  for (const index of lacking) {
    const name = recordOf(skills[index])?.name;
    suggest({ type: 'improvement', field: `skills[${index}].examples`, suggestion: `add "examples": ["<a request a user would send to ${typeof name === 'string' ? clip(name, 120) : `skill ${index}`}>"]` });
  }
  const penalty = scoreParts(card, report.warningsPerRule, lacking.length).reduce((sum, part) => sum + part.points, 0);
  return { score: valid ? Math.max(0, 100 - penalty) : 0, suggestions, suggestionsLeftOut };
}
