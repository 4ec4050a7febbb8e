/**
 * What each field of an agent card means to a client, as nodes of the card diff's walk: which
 * compatibility rule (change-classes.ts) a change there falls under. The fields of every
 * generation are known by name (0.x `url`, `preferredTransport`, `additionalInterfaces`,
 * `security`; 1.0 `supportedInterfaces`, `securityRequirements`), so a card that carries both, or
 * moves from one to the other, is compared field by field all the same. A field no rule names is
 * compared generically (field-added, field-other).
 */
import type { ChangeRuleId } from '../change-classes.ts';
import { requirements, securitySchemes } from './security.ts';
import { ABSENT, descriptive, fields, generic, isContainer, isObject, itemText, keyedList, stringSet, type Node } from './walk.ts';

const every = (rule: ChangeRuleId) => ({ added: rule, removed: rule, changed: rule });

/** A flag that is on only when true: switched on is `on`, switched off (or removed) is `off`, false and absent mean the same. */
const flag = (on: ChangeRuleId, off: ChangeRuleId): Node => (walk, before, after) => {
  if (walk.unchanged(before, after)) return;
  const was = before === true;
  const is = after === true;
  walk.note(was && !is ? off : !was && is ? on : 'default-stated', before, after);
};

const majorMinor = (v: unknown): string | undefined => {
  const m = typeof v === 'string' ? /^\s*v?(\d+)\.(\d+)/.exec(v) : null;
  return m ? `${m[1]}.${m[2]}` : undefined;
};

const versionShape = generic(every('protocol-version-changed'));

/** A declared protocol version: the same major and minor is a patch change; anything else (added or removed too) changes the version. */
const protocolVersion: Node = (walk, before, after) => {
  if (isContainer(before) || isContainer(after)) return versionShape(walk, before, after);
  if (walk.unchanged(before, after)) return;
  const patch = before !== ABSENT && after !== ABSENT && majorMinor(before) !== undefined && majorMinor(before) === majorMinor(after);
  walk.note(patch ? 'protocol-version-patch' : 'protocol-version-changed', before, after);
};

/** The 0.x preferredTransport: absent means JSONRPC. */
const preferredTransport: Node = (walk, before, after) => {
  if (walk.unchanged(before, after)) return;
  const effective = (v: unknown) => (v === ABSENT ? 'JSONRPC' : v);
  walk.note(effective(before) === effective(after) ? 'default-stated' : 'interface-binding-changed', before, after);
};

const interfaceItem: Node = fields({
  url: generic(every('interface-url-changed')),
  transport: generic(every('interface-binding-changed')),
  protocolBinding: generic(every('interface-binding-changed')),
  protocolVersion,
  tenant: generic(every('interface-tenant-changed')),
});

/** An interface's identity: its URL and binding (0.x transport, 1.0 protocolBinding). */
const interfaceKey = (item: unknown): string | undefined =>
  isObject(item) && typeof item.url === 'string' ? JSON.stringify([item.url, item.protocolBinding ?? item.transport ?? null]) : undefined;

const interfaces = (reordered: ChangeRuleId): Node =>
  keyedList(
    { keyOf: interfaceKey, item: interfaceItem, added: () => 'interface-added', removed: 'interface-removed', reordered },
    generic({ added: 'interface-added', removed: 'interface-removed', changed: 'interface-removed' }),
  );

const modeRules = { removed: 'mode-removed', added: 'mode-added', reordered: 'order-changed' } as const;
const modes: Node = stringSet(modeRules, generic({ added: 'mode-added', removed: 'mode-removed', changed: 'mode-removed' }));

/**
 * A skill's inputModes or outputModes: compared as sets when the skill declares them in both
 * cards; when it declares them in one only, what it accepts (its own, else the card's defaults,
 * `defaults` of each card) is compared: a mode it no longer accepts is removed.
 */
const skillModes = (defaults: { before: unknown; after: unknown }): Node => (walk, before, after) => {
  const was = before === ABSENT ? defaults.before : before;
  const is = after === ABSENT ? defaults.after : after;
  if ((Array.isArray(before) && Array.isArray(after)) || !Array.isArray(was) || !Array.isArray(is)) return modes(walk, before, after);
  if (!walk.visitMany(was.length + is.length + 1)) return;
  const [old, now] = [new Set(was.map(itemText)), new Set(is.map(itemText))];
  const lost = [...old].some((m) => !now.has(m));
  const gained = [...now].some((m) => !old.has(m));
  walk.note(lost ? 'mode-removed' : gained ? 'mode-added' : 'default-stated', before, after);
};

const member = (card: unknown, key: string): unknown => (isObject(card) && Object.hasOwn(card, key) ? card[key] : ABSENT);

const skill = (beforeCard: Record<string, unknown>, afterCard: Record<string, unknown>): Node =>
  fields({
    id: generic({ added: 'field-added', removed: 'skill-removed', changed: 'skill-removed' }),
    name: descriptive,
    description: descriptive,
    tags: descriptive,
    examples: descriptive,
    inputModes: skillModes({ before: member(beforeCard, 'defaultInputModes'), after: member(afterCard, 'defaultInputModes') }),
    outputModes: skillModes({ before: member(beforeCard, 'defaultOutputModes'), after: member(afterCard, 'defaultOutputModes') }),
    security: requirements('0.x'),
    securityRequirements: requirements('1.0'),
  });

const idOf = (field: string) => (item: unknown): string | undefined => (isObject(item) && typeof item[field] === 'string' ? item[field] : undefined);

const skills = (beforeCard: Record<string, unknown>, afterCard: Record<string, unknown>): Node =>
  keyedList(
    { keyOf: idOf('id'), item: skill(beforeCard, afterCard), added: () => 'skill-added', removed: 'skill-removed', reordered: 'order-changed' },
    generic({ added: 'skill-added', removed: 'skill-removed', changed: 'skill-removed' }),
  );

const extension: Node = fields({
  uri: generic({ added: 'field-added', removed: 'extension-removed', changed: 'extension-removed' }),
  required: flag('extension-required', 'extension-relaxed'),
  description: descriptive,
  params: generic(every('extension-params-changed')),
});

const extensions: Node = keyedList(
  {
    keyOf: idOf('uri'),
    item: extension,
    added: (item) => (isObject(item) && item.required === true ? 'extension-required' : 'extension-added'),
    removed: 'extension-removed',
    reordered: 'order-changed',
  },
  generic({ added: 'extension-added', removed: 'extension-removed', changed: 'extension-removed' }),
);

const capability = flag('capability-added', 'capability-removed');

const capabilities: Node = fields({
  streaming: capability,
  pushNotifications: capability,
  stateTransitionHistory: capability,
  extendedAgentCard: capability,
  extensions,
});

/** A signed card left unsigned breaks clients that verify; any other change of the signatures is cosmetic. */
const signatures: Node = (walk, before, after) => {
  if (walk.unchanged(before, after)) return;
  const signed = (v: unknown) => Array.isArray(v) && v.length > 0;
  walk.note(signed(before) && !signed(after) ? 'signature-removed' : 'signature-changed', before, after);
};

/** The node of a whole card, given both cards (a skill's modes default to its card's; a new scheme is required by the new card's requirements). */
export const cardNode = (beforeCard: Record<string, unknown>, afterCard: Record<string, unknown>): Node =>
  fields({
    name: descriptive,
    description: descriptive,
    version: descriptive,
    iconUrl: descriptive,
    documentationUrl: descriptive,
    provider: descriptive,
    protocolVersion,
    url: generic({ added: 'interface-added', removed: 'interface-removed', changed: 'interface-url-changed' }),
    preferredTransport,
    additionalInterfaces: interfaces('order-changed'),
    supportedInterfaces: interfaces('interface-order-changed'),
    capabilities,
    supportsAuthenticatedExtendedCard: capability,
    securitySchemes: securitySchemes(afterCard),
    security: requirements('0.x'),
    securityRequirements: requirements('1.0'),
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: skills(beforeCard, afterCard),
    signatures,
  });
