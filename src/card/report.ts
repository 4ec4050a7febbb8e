/** Collects findings while the rules run; severity comes from the catalogue, never from the caller. */
import { ruleInfo, type RuleId } from './catalogue.ts';
import type { Issue } from './types.ts';

export class Report {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  /** What to write instead, per warning (same index as `warnings`); becomes its suggestion. */
  readonly fixes: string[] = [];

  add(rule: RuleId, path: string, message: string, fix?: string): void {
    const info = ruleInfo(rule);
    const issue = { path, message, rule };
    if (info.severity === 'error') this.errors.push(issue);
    else {
      this.warnings.push(issue);
      this.fixes.push(fix ?? info.fix);
    }
  }
}
