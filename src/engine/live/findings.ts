/** A probe's checks as findings of their `live.*` rules: each one not passed nor skipped, at the level findingLevel gives. */
import { ruleInfo, type RuleId } from '../catalogue.ts';
import type { Report } from '../report.ts';
import type { LiveCheck, RuleLevel } from '../types.ts';
import { findingLevel } from './checks.ts';
import { ROOT_PATH } from '../paths.ts';

const isLiveRule = (id: string): id is RuleId => id.startsWith('live.') && ruleInfo(id as RuleId) !== undefined;

export const addLiveFindings = (report: Report, checks: readonly LiveCheck[], severities: Readonly<Record<string, RuleLevel>>): void => {
  for (const check of checks) {
    if (!isLiveRule(check.id)) continue;
    const level = findingLevel(check.status, severities[check.id] ?? ruleInfo(check.id).severity);
    if (level !== undefined) report.addAs(level, check.id, check.path ?? ROOT_PATH, check.message, ruleInfo(check.id).fix);
  }
};
