/**
 * Collects findings while the rules run; severity comes from the catalogue, or from the compiled
 * ruleset the caller passed (which can never lower a rule that enforces a MUST: compileRuleset refuses).
 * At most `maxFindings` errors and as many warnings are kept; the rest are only counted, so a card
 * with 90,000 faulty skills costs counters, not millions of findings. Each kept finding's path,
 * message and fix is cut at MAX_FINDING_TEXT, so no card makes a finding large either.
 */
import { ruleInfo, type RuleId } from './catalogue.ts';
import { clip } from './paths.ts';
import type { Issue, RuleLevel } from './types.ts';

export class Report {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  /** Information (`info` rules): kept up to the cap like the others, never weighed nor counted past it. */
  readonly infos: Issue[] = [];
  /** What to write instead, per warning (same index as `warnings`); becomes its suggestion. */
  readonly fixes: string[] = [];
  /** Findings past the cap: counted, not kept. */
  readonly leftOut = { errors: 0, warnings: 0 };
  /** Warnings per rule, kept or not: the score weighs them all. */
  readonly warningsPerRule = new Map<string, number>();
  /** Paths that have a finding, kept or not: a rule that would only say again what one says there looks here. */
  private readonly pathsFound = new Set<string>();

  constructor(
    readonly maxFindings = Infinity,
    /** Effective severities of a ruleset; rules it does not name keep the catalogue's. */
    private readonly severities: Readonly<Record<string, RuleLevel>> = {},
  ) {}

  /** Whether another error would be kept: past the cap `add` only counts it, so a caller may skip spelling it out. */
  get roomForErrors(): boolean {
    return this.errors.length < this.maxFindings;
  }

  /** Whether a finding (error or warning) was reported at `path`. */
  hasFindingAt(path: string): boolean {
    return this.pathsFound.has(path);
  }

  add(rule: RuleId, path: string, message: string, fix?: string): void {
    this.addAs(this.severities[rule] ?? ruleInfo(rule).severity, rule, path, message, fix ?? ruleInfo(rule).fix);
  }

  /** A finding at `level`: a built-in rule's effective severity, or a custom rule's. */
  addAs(level: RuleLevel, rule: string, path: string, message: string, fix: string): void {
    this.pathsFound.add(path); // an "off" finding still judged the value: other rules stay as quiet there as without a ruleset
    if (level === 'off') return;
    if (level === 'info') {
      if (this.infos.length < this.maxFindings) this.infos.push({ path: clip(path), message: clip(message), rule });
      return;
    }
    if (level === 'error') {
      if (this.errors.length < this.maxFindings) this.errors.push({ path: clip(path), message: clip(message), rule });
      else this.leftOut.errors++;
      return;
    }
    this.warningsPerRule.set(rule, (this.warningsPerRule.get(rule) ?? 0) + 1);
    if (this.warnings.length < this.maxFindings) {
      this.warnings.push({ path: clip(path), message: clip(message), rule });
      this.fixes.push(clip(fix));
    } else {
      this.leftOut.warnings++;
    }
  }
}
