/**
 * validateCard: the choice of the rule set (forced, declared or detected), the schema of that rule
 * set, the semantic rules, a compatibility check against the other generation when the card also
 * addresses it, then score and suggestions. Pure and synchronous; never throws for any JSON value.
 */
import { ruleInfo, type RuleId } from './catalogue.ts';
import { Report } from './report.ts';
import { checkSchema } from './schema-check.ts';
import { cardSchemaParts } from './schemas.ts';
import { jsonType, ROOT_PATH } from './paths.ts';
import { scoreCard } from './score.ts';
import { checkFields, checkProvider } from './rules/fields.ts';
import { checkUrls } from './rules/urls.ts';
import { checkSkills } from './rules/skills.ts';
import { checkSecurity } from './rules/security.ts';
import { checkTransports } from './rules/transports.ts';
import { checkSecrets } from './rules/secrets.ts';
import { checkBlank } from './rules/blank.ts';
import { checkSignatures } from './rules/signatures.ts';
import { verifySignatures } from './signatures/verify.ts';
import { checkCustomRules } from './ruleset/custom.ts';
import type { RuleContext } from './rules/context.ts';
import { addLiveFindings } from './live/findings.ts';
import type { CardResult, CardShape, CompatibilityVerdict, ValidateOptions, VersionSource } from './types.ts';
import { detectShape, isRecord, latestFor, readDeclared, ruleSetFor, supportedVersionsText, type RuleSetVersion } from './versions.ts';

const ruleChecks: ReadonlyArray<(ctx: RuleContext) => void> = [
  checkTransports, checkUrls, checkSkills, checkSecurity, checkSignatures, checkFields, checkProvider, checkSecrets,
  checkBlank, // last: it stays silent where another rule already judged the value
];

/** Findings about the version itself; added after the schema's so that e.g. a missing name stays first. */
type VersionFinding = (report: Report) => void;

interface VersionChoice {
  version: RuleSetVersion;
  source: VersionSource;
  findings: VersionFinding[];
}

/** Forced by the options, else declared by the card's top-level protocolVersion, else detected from its shape. */
function chooseVersion(card: unknown, shape: CardShape, options: ValidateOptions): VersionChoice {
  const findings: VersionFinding[] = [];
  const raw = isRecord(card) && typeof card.protocolVersion === 'string' ? card.protocolVersion : undefined;
  const declared = raw === undefined ? undefined : readDeclared(raw);
  const forced = options.protocolVersion === undefined ? undefined : ruleSetFor(options.protocolVersion);
  if (raw !== undefined && declared === undefined) {
    findings.push((r) => r.add('protocolVersion.unsupported', 'protocolVersion',
      `protocolVersion "${raw}" is not an A2A version; supported: ${supportedVersionsText()}`));
  }
  if (raw !== undefined && declared?.published === false) {
    const line = raw.split('.').slice(0, 2).join('.');
    const rules = forced === undefined
      ? `validated by the ${declared.ruleSet} rules, those of the latest published ${line} version`
      : `the latest published ${line} version has the ${declared.ruleSet} rules`;
    findings.push((r) => r.add('protocolVersion.unpublished', 'protocolVersion', `protocolVersion "${raw}" was never published; ${rules}`,
      `declare "${declared.ruleSet}", the published version whose rules apply`));
  }
  if (options.protocolVersion !== undefined && forced === undefined) {
    findings.push((r) => r.add('protocolVersion.unsupported', 'protocolVersion',
      `options.protocolVersion "${options.protocolVersion}" is not supported; supported: ${supportedVersionsText()}`));
  }
  const fromCard: VersionChoice = declared
    ? { version: declared.ruleSet, source: 'declared', findings }
    : { version: latestFor(shape), source: 'detected', findings };
  if (forced === undefined) return fromCard;
  if (forced !== fromCard.version && isRecord(card)) {
    const why = declared ? `card declares "${raw}"` : `card's shape means ${fromCard.version}`;
    findings.push((r) => r.add('protocolVersion.forced', 'protocolVersion', `validated as ${forced} as asked, but the ${why}`));
  }
  return { version: forced, source: 'forced', findings };
}

/**
 * A card states its protocol version at the top level (0.x) or per interface (1.0). Without either,
 * that is an error whatever the rules used; where their schema requires the field, it reports it.
 */
function checkVersionDeclared(ctx: RuleContext): void {
  const { card } = ctx;
  if (Object.hasOwn(card, 'protocolVersion') || Object.hasOwn(card, 'supportedInterfaces')) return;
  if (Object.hasOwn(ctx.parts.card.shape, 'protocolVersion')) return;
  ctx.report.add('protocolVersion.required', 'protocolVersion',
    'protocolVersion is required: the card declares no protocol version (neither protocolVersion nor supportedInterfaces)');
}

/** The schema, the version findings and every rule of one rule set, into `report`. */
function runRules(card: Record<string, unknown>, version: RuleSetVersion, report: Report, findings: readonly VersionFinding[]): void {
  checkSchema(card, version, report);
  for (const f of findings) f(report);
  const ctx: RuleContext = { card, version, parts: cardSchemaParts(version), report };
  checkVersionDeclared(ctx);
  for (const check of ruleChecks) check(ctx);
}

/**
 * The other generation a card also addresses: a card judged by 0.x rules that carries
 * supportedInterfaces speaks to 1.0 clients; a card judged by 1.0 rules that keeps the 0.x endpoint
 * `url` (what 0.3 clients connect to) speaks to 0.3 clients.
 */
function otherGeneration(card: Record<string, unknown>, version: RuleSetVersion): RuleSetVersion | undefined {
  if (version !== '1.0') return Object.hasOwn(card, 'supportedInterfaces') ? '1.0' : undefined;
  return Object.hasOwn(card, 'url') ? '0.3.0' : undefined;
}

/**
 * Runs the other generation's rules: its errors become compatibility warnings (never errors of the
 * rules used), except where the rules used already report the same error at the same spot.
 */
function checkCompatibility(card: Record<string, unknown>, other: RuleSetVersion, report: Report): Record<string, CompatibilityVerdict> {
  const sub = new Report(report.maxFindings); // counts stay exact past the cap (leftOut)
  runRules(card, other, sub, []);
  const reported = new Set(report.errors.map((e) => `${e.rule} ${e.path}`));
  for (const e of sub.errors) {
    if (reported.has(`${e.rule} ${e.path}`)) continue;
    report.add('compatibility.other-version', e.path, `${e.message} (fails the ${other} rules: ${e.rule})`,
      `for ${other} clients: ${ruleInfo(e.rule as RuleId).fix}`);
  }
  const errors = sub.errors.length + sub.leftOut.errors;
  return { [other]: { valid: errors === 0, errors, warnings: sub.warnings.length + sub.leftOut.warnings } };
}

export function validateCard(card: unknown, options: ValidateOptions = {}): CardResult {
  const shape = detectShape(card);
  const { version, source, findings } = chooseVersion(card, shape, options);
  const report = new Report(options.maxFindings, options.ruleset?.severities);
  if (!isRecord(card)) {
    report.add('card.root.object', ROOT_PATH, `The card must be a JSON object, not ${jsonType(card)}`);
    for (const f of findings) f(report);
    return { valid: false, errors: report.errors, warnings: report.warnings, score: 0, suggestions: [], version, versionSource: source, shape, ...leftOut(report, 0) };
  }
  runRules(card, version, report, findings);
  const signatures = options.signatures === undefined ? undefined : verifySignatures(card, version, options.signatures, report);
  if (options.signatures === undefined && asksForSignature(options) && !Object.hasOwn(card, 'signatures') && ruleInfo('signature.missing').versions.includes(version)) {
    report.add('signature.missing', 'signatures', 'the card is not signed, and the ruleset asks for a signature');
  }
  if (options.ruleset?.custom) checkCustomRules(card, version, options.ruleset.custom, report);
  const other = otherGeneration(card, version);
  const compatibility = other === undefined ? undefined : checkCompatibility(card, other, report);
  if (options.foundAtLegacyPath === true && ruleInfo('discovery.legacy-path').versions.includes(version)) {
    report.add('discovery.legacy-path', ROOT_PATH, `the card was found only at /.well-known/agent.json; ${version} clients look for /.well-known/agent-card.json`);
  }
  if (options.live) addLiveFindings(report, options.live, options.ruleset?.severities ?? {});
  const valid = report.errors.length === 0;
  const { score, suggestions, suggestionsLeftOut } = scoreCard(card, valid, report);
  return {
    valid, errors: report.errors, warnings: report.warnings, ...infosOf(report), score, suggestions, version, versionSource: source, shape,
    ...(compatibility ? { compatibility } : {}),
    ...leftOut(report, suggestionsLeftOut),
    ...(signatures ? { signatures } : {}),
    ...(options.live ? { live: options.live } : {}),
  };
}

/** A ruleset that sets signature.missing (to anything but off) asks for it without trusted keys too. */
const asksForSignature = (options: ValidateOptions): boolean => {
  const level = options.ruleset?.severities['signature.missing'];
  return level !== undefined && level !== 'off';
};

/** `infos`, only when there is some. */
const infosOf = (report: Report): Pick<CardResult, 'infos'> => (report.infos.length === 0 ? {} : { infos: report.infos });

/** `truncated`, only when the cap left something out. */
const leftOut = (report: Report, suggestions: number): Pick<CardResult, 'truncated'> => {
  const { errors, warnings } = report.leftOut;
  return errors + warnings + suggestions === 0 ? {} : { truncated: { errors, warnings, suggestions } };
};
