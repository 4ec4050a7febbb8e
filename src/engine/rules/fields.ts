/**
 * Field names: unknown fields, snake_case spellings, 0.x fields left in a 1.0 card and 1.0 fields in a
 * 0.x card, each with the exact replacement. Known names come from the zod schemas themselves.
 */
import { cardSchemaParts, fieldNames } from '../schemas.ts';
import { joinPath, keyName } from '../paths.ts';
import type { RuleSetVersion } from '../versions.ts';
import { arrayOf, entriesOf, recordOf, type RuleContext } from './context.ts';
import { toV0Endpoint, toV0Requirements, toV1Interfaces, toV1Requirements, toV1Scheme } from './migrate.ts';

interface KnownFields {
  card: ReadonlySet<string>;
  skill: ReadonlySet<string>;
  capabilities: ReadonlySet<string>;
  provider: ReadonlySet<string>;
  iface: ReadonlySet<string>;
}

const knownByVersion = new Map<RuleSetVersion, KnownFields>();

/** The field names of one rule set, from its schema parts (made on first use, as they are). */
const knownFields = (version: RuleSetVersion): KnownFields => {
  let k = knownByVersion.get(version);
  if (!k) {
    const p = cardSchemaParts(version);
    k = { card: fieldNames(p.card), skill: fieldNames(p.skill), capabilities: fieldNames(p.capabilities), provider: fieldNames(p.provider), iface: fieldNames(p.iface) };
    knownByVersion.set(version, k);
  }
  return k;
};

/** A field of the other generation: its hint, given the object that holds it. */
type Crossover = (holder: Record<string, unknown>, card: Record<string, unknown>) => string;

const legacyTop = new Map<string, Crossover>([
  ['url', (_, card) => `replace "url" (and "preferredTransport") with "supportedInterfaces": ${toV1Interfaces(card)}`],
  ['preferredTransport', (_, card) => `move it into "protocolBinding" of the first interface: "supportedInterfaces": ${toV1Interfaces(card)}`],
  ['additionalInterfaces', (_, card) => `list every interface in "supportedInterfaces": ${toV1Interfaces(card)}`],
  ['protocolVersion', () => 'it only serves 0.3 clients; 1.0 declares versions per interface ("supportedInterfaces[i].protocolVersion": "1.0"); drop it unless you still serve 0.3 clients'],
  ['supportsAuthenticatedExtendedCard', (h) => `write "capabilities": {"extendedAgentCard": ${h.supportsAuthenticatedExtendedCard === true}}`],
  ['security', (h) => `write "securityRequirements": ${toV1Requirements(h.security)}`],
]);
const legacyCapabilities = new Map<string, Crossover>([
  ['stateTransitionHistory', () => 'remove it: 1.0 dropped stateTransitionHistory from capabilities'],
]);
const legacySkill = new Map<string, Crossover>([
  ['security', (h) => `write "securityRequirements": ${toV1Requirements(h.security)}`],
]);
const legacyIface = new Map<string, Crossover>([
  ['transport', (h) => `rename it: "protocolBinding": ${JSON.stringify(h.transport)}`],
]);

const futureTop = new Map<string, Crossover>([
  ['supportedInterfaces', (h) => `0.x declares the endpoint as ${toV0Endpoint(h.supportedInterfaces)}`],
  ['securityRequirements', (h) => `write "security": ${toV0Requirements(h.securityRequirements)}`],
]);
const futureCapabilities = new Map<string, Crossover>([
  ['extendedAgentCard', (h) => `write "supportsAuthenticatedExtendedCard": ${h.extendedAgentCard === true} at the top level of the card`],
]);
const futureSkill = new Map<string, Crossover>([
  ['securityRequirements', (h) => `write "security": ${toV0Requirements(h.securityRequirements)} (0.3.0)`],
]);
const futureIface = new Map<string, Crossover>([
  ['protocolBinding', (h) => `rename it: "transport": ${JSON.stringify(h.protocolBinding)}`],
]);

const snakeToCamel = (k: string): string => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function checkObject(
  ctx: RuleContext,
  holder: Record<string, unknown>,
  path: string,
  names: ReadonlySet<string>,
  crossover: ReadonlyMap<string, Crossover>,
): void {
  const v1 = ctx.version === '1.0';
  for (const key of Object.keys(holder)) {
    if (names.has(key)) continue;
    const at = joinPath(path, key);
    const cross = crossover.get(key);
    if (cross) {
      const hint = cross(holder, ctx.card);
      if (v1) ctx.report.add('field.legacy-0x', at, `${key} is a 0.x field; in a 1.0 card ${hint}`, hint);
      else ctx.report.add('field.from-1.0', at, `${key} is a 1.0 field; for ${ctx.version} ${hint}`, hint);
      continue;
    }
    const camel = snakeToCamel(key);
    if (camel !== key && names.has(camel)) {
      ctx.report.add('field.snake-case', at, `${key} is snake_case; rename it to "${camel}"`, `rename "${key}" to "${camel}"`);
      continue;
    }
    ctx.report.add('field.unknown', at, `${keyName(key)} is not a field of A2A ${ctx.version}; clients ignore it`);
  }
}

export function checkFields(ctx: RuleContext): void {
  const k = knownFields(ctx.version);
  const v1 = ctx.version === '1.0';
  const { card } = ctx;
  checkObject(ctx, card, '', k.card, v1 ? legacyTop : futureTop);
  const caps = recordOf(card.capabilities);
  if (caps) checkObject(ctx, caps, 'capabilities', k.capabilities, v1 ? legacyCapabilities : futureCapabilities);
  const provider = recordOf(card.provider);
  if (provider) checkObject(ctx, provider, 'provider', k.provider, new Map());
  arrayOf(card.skills).forEach((s, i) => {
    const skill = recordOf(s);
    if (skill) checkObject(ctx, skill, `skills[${i}]`, k.skill, v1 ? legacySkill : futureSkill);
  });
  const ifaceKey = v1 ? 'supportedInterfaces' : 'additionalInterfaces';
  if (k.iface.size > 0) {
    arrayOf(card[ifaceKey]).forEach((x, i) => {
      const iface = recordOf(x);
      if (iface) checkObject(ctx, iface, `${ifaceKey}[${i}]`, k.iface, v1 ? legacyIface : futureIface);
    });
  }
  // 0.x scheme objects ({type: ...}) in a 1.0 card: give the wrapped form.
  if (v1) {
    for (const [name, s] of entriesOf(card.securitySchemes)) {
      const scheme = recordOf(s);
      if (!scheme || !Object.hasOwn(scheme, 'type')) continue;
      const at = joinPath(joinPath('securitySchemes', name), 'type');
      const hint = `write ${JSON.stringify(name)}: ${toV1Scheme(scheme)}`;
      ctx.report.add('field.legacy-0x', at, `type is the 0.x form of a security scheme; in a 1.0 card ${hint}`, hint);
    }
  }
}

/** provider.missing: information only; the score already weighs the missing recommended field. */
export function checkProvider(ctx: RuleContext): void {
  if (!Object.hasOwn(ctx.card, 'provider')) ctx.report.add('provider.missing', 'provider', 'the card names no provider: clients cannot tell who runs the agent');
}
