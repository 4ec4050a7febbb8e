/**
 * Protocol versions the engine knows, their aliases, and how a card's shape and
 * declared version pick the rule set.
 */
import type { CardShape } from './types.ts';

/** Rule-set identifiers: every 0.2 patch has its own official schema; 1.0.0 and 1.0.1 share one shape. */
export const ruleSetVersions = [
  '0.2.0', '0.2.1', '0.2.2', '0.2.3', '0.2.4', '0.2.5', '0.2.6', '0.3.0', '1.0',
] as const;
export type RuleSetVersion = (typeof ruleSetVersions)[number];

/**
 * Other spellings accepted in `options.protocolVersion` and in cards, and the rule set they mean.
 * A Major.Minor spelling means the latest published version of that line (readDeclared relies on it).
 */
const aliases = new Map<string, RuleSetVersion>([
  ['0.2', '0.2.6'],
  ['0.3', '0.3.0'],
  ['1.0.0', '1.0'],
  ['1.0.1', '1.0'],
]);

const canonical = new Map<string, RuleSetVersion>(ruleSetVersions.map((v) => [v, v]));

/** Every value accepted in `options.protocolVersion`: the rule sets first, then the aliases. */
export const supportedVersions: readonly string[] = Object.freeze([...ruleSetVersions, ...aliases.keys()]);

/** The rule set a version string names, or undefined when no such version exists. */
export function ruleSetFor(version: string): RuleSetVersion | undefined {
  return canonical.get(version) ?? aliases.get(version);
}

/** How the version is chosen; served with the rule catalogue (GET /v1/rules). */
export const versionSelection = [
  'The rules used are those of options.protocolVersion when given (version_source "forced"); else of the card\'s own',
  'top-level protocolVersion ("declared"); else, when the card declares none or one of no known line, of its shape',
  '("detected"): supportedInterfaces means 1.0, anything else the latest 0.x rules (0.3.0; 0.2.6 when the version starts',
  'with 0.2). A declared version that was never published but belongs to a known line (0.2.x, 0.3.x, 1.0.x, e.g. "0.2.9")',
  'uses the latest published version of that line, with a warning; a version of no known line ("9.9", "abc") is an error.',
  'A card without protocolVersion and without supportedInterfaces is an error whatever the rules. A card judged by 0.x',
  'rules that carries supportedInterfaces is also checked against 1.0, and a card judged by 1.0 rules that keeps the 0.x',
  'endpoint field url (what 0.3 clients connect to) is also checked against 0.3.0: what fails there comes as',
  'compatibility.other-version warnings, and the verdict as compatibility {"<version>": {valid, errors, warnings}}.',
].join(' ');

/** A card's own protocolVersion: the rule set it names, and whether that exact version was ever published. */
export interface DeclaredVersion {
  ruleSet: RuleSetVersion;
  published: boolean;
}

/** Major.Minor.Patch without leading zeros: the form a version of a known line has. */
const patchVersion = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(?:0|[1-9]\d*)$/;

/**
 * The rule set a card's declared version names: a published version (or alias) as such; an
 * unpublished patch of a known line ("0.2.9", used by the official sample cards) the latest
 * published version of that line; anything else (no known line: "9.9", "abc") undefined.
 */
export function readDeclared(version: string): DeclaredVersion | undefined {
  const exact = ruleSetFor(version);
  if (exact) return { ruleSet: exact, published: true };
  const m = patchVersion.exec(version);
  const line = m ? ruleSetFor(`${m[1]}.${m[2]}`) : undefined;
  return line ? { ruleSet: line, published: false } : undefined;
}

export function isSupportedVersion(v: string): boolean {
  return typeof v === 'string' && ruleSetFor(v) !== undefined;
}

/** Versions before `feature` entered the 0.x schema lack its field; e.g. `since(v, '0.2.4')`. */
export function since(v: RuleSetVersion, first: RuleSetVersion): boolean {
  return ruleSetVersions.indexOf(v) >= ruleSetVersions.indexOf(first);
}

/** Major.Minor values a 1.0 card's `supportedInterfaces[i].protocolVersion` may hold. */
export const interfaceVersions: readonly string[] = ['0.3', '1.0'];
/** Patch spellings of those values: accepted, with a warning (1.0 §3.6). */
export const interfacePatchVersions = new Map<string, string>([
  ['0.3.0', '0.3'],
  ['1.0.0', '1.0'],
  ['1.0.1', '1.0'],
]);

export const supportedVersionsText = (): string => ruleSetVersions.join(', ');

/** The card's generation, judged from its shape alone. */
export function detectShape(card: unknown): CardShape {
  if (!isRecord(card)) return 'unknown';
  if (Object.hasOwn(card, 'supportedInterfaces')) return '1.0';
  const declared = card.protocolVersion;
  if (typeof declared === 'string' && declared.startsWith('0.2')) return '0.2';
  return '0.3';
}

/** Latest rule set of a shape: used when the card declares no (usable) version. */
export const latestFor = (shape: CardShape): RuleSetVersion => (shape === '1.0' ? '1.0' : shape === '0.2' ? '0.2.6' : '0.3.0');

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
