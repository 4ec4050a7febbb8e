/**
 * validateCard: shape and version detection (decisions §5), the schema of the chosen rule set, the
 * semantic rules, then score and suggestions. Pure and synchronous; never throws for any JSON value.
 */
import { Report } from './report.ts';
import { checkSchema } from './schema-check.ts';
import { cardSchemas } from './schemas.ts';
import { jsonType, ROOT_PATH } from './paths.ts';
import { scoreCard } from './score.ts';
import { checkFields } from './rules/fields.ts';
import { checkUrls } from './rules/urls.ts';
import { checkSkills } from './rules/skills.ts';
import { checkSecurity } from './rules/security.ts';
import { checkTransports } from './rules/transports.ts';
import { checkSecrets } from './rules/secrets.ts';
import { checkSignatures } from './rules/signatures.ts';
import type { RuleContext } from './rules/context.ts';
import type { CardResult, CardShape, ValidateOptions } from './types.ts';
import { detectShape, isRecord, latestFor, ruleSetFor, supportedVersionsText, type RuleSetVersion } from './versions.ts';

const ruleChecks: ReadonlyArray<(ctx: RuleContext) => void> = [
  checkTransports, checkUrls, checkSkills, checkSecurity, checkSignatures, checkFields, checkSecrets,
];

/** Findings about the version itself; added after the schema's so that e.g. a missing name stays first. */
type VersionFinding = (report: Report) => void;

function chooseVersion(card: unknown, shape: CardShape, options: ValidateOptions): { version: RuleSetVersion; findings: VersionFinding[] } {
  const findings: VersionFinding[] = [];
  const declared = isRecord(card) && shape !== '1.0' && typeof card.protocolVersion === 'string' ? card.protocolVersion : undefined;
  const declaredSet = declared === undefined ? undefined : ruleSetFor(declared);
  if (declared !== undefined && declaredSet === undefined) {
    findings.push((r) => r.add('protocolVersion.unsupported', 'protocolVersion',
      `protocolVersion "${declared}" is not an A2A version; supported: ${supportedVersionsText()}`));
  }
  const detected = shape === '1.0' ? '1.0' : declaredSet ?? latestFor(shape);
  const forced = options.protocolVersion;
  if (forced === undefined) return { version: detected, findings };
  const forcedSet = ruleSetFor(forced);
  if (forcedSet === undefined) {
    findings.push((r) => r.add('protocolVersion.unsupported', 'protocolVersion',
      `options.protocolVersion "${forced}" is not supported; supported: ${supportedVersionsText()}`));
    return { version: detected, findings };
  }
  if (forcedSet !== detected && isRecord(card)) {
    const card_ = shape === '1.0' ? 'card has the 1.0 shape' : declared !== undefined ? `card declares "${declared}"` : `card's shape means ${detected}`;
    findings.push((r) => r.add('protocolVersion.forced', 'protocolVersion', `validated as ${forcedSet} as asked, but the ${card_}`));
  }
  return { version: forcedSet, findings };
}

export function validateCard(card: unknown, options: ValidateOptions = {}): CardResult {
  const shape = detectShape(card);
  const { version, findings } = chooseVersion(card, shape, options);
  const report = new Report(options.maxFindings);
  if (!isRecord(card)) {
    report.add('card.root.object', ROOT_PATH, `The card must be a JSON object, not ${jsonType(card)}`);
    for (const f of findings) f(report);
    return { valid: false, errors: report.errors, warnings: report.warnings, score: 0, suggestions: [], version, shape, ...leftOut(report, 0) };
  }
  checkSchema(card, version, report);
  for (const f of findings) f(report);
  const ctx: RuleContext = { card, version, parts: cardSchemas.get(version)!, report };
  for (const check of ruleChecks) check(ctx);
  const valid = report.errors.length === 0;
  const { score, suggestions, suggestionsLeftOut } = scoreCard(card, valid, report);
  return { valid, errors: report.errors, warnings: report.warnings, score, suggestions, version, shape, ...leftOut(report, suggestionsLeftOut) };
}

/** `truncated`, only when the cap left something out. */
const leftOut = (report: Report, suggestions: number): Pick<CardResult, 'truncated'> => {
  const { errors, warnings } = report.leftOut;
  return errors + warnings + suggestions === 0 ? {} : { truncated: { errors, warnings, suggestions } };
};
