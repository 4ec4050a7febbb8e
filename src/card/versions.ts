/**
 * Protocol versions the engine knows, their aliases, and how a card's shape and
 * declared version pick the rule set (decisions §5).
 */
import type { CardShape } from './types.ts';

/** Rule-set identifiers: every 0.2 patch has its own official schema; 1.0.0 and 1.0.1 share one shape. */
export const ruleSetVersions = [
  '0.2.0', '0.2.1', '0.2.2', '0.2.3', '0.2.4', '0.2.5', '0.2.6', '0.3.0', '1.0',
] as const;
export type RuleSetVersion = (typeof ruleSetVersions)[number];

/** Other spellings accepted in `options.protocolVersion` and in cards, and the rule set they mean. */
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

export function isSupportedVersion(v: string): boolean {
  return typeof v === 'string' && ruleSetFor(v) !== undefined;
}

export const isV1 = (v: RuleSetVersion): boolean => v === '1.0';

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
