/**
 * The compatibility classes of a card's changes: each change of a card diff is `breaking` (a client
 * built against the old card can fail against the new one), `compatible` (it cannot, but it may see
 * something new) or `cosmetic` (text and order for people: no request depends on it). The rules are
 * data, named by id, each with its class, what it covers and why; docs/compatibility.md lists them.
 */

export const CHANGE_CLASSES = ['breaking', 'compatible', 'cosmetic'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

export interface ChangeRule {
  class: ChangeClass;
  what: string;
  why: string;
}

export const changeRules = {
  'skill-removed': {
    class: 'breaking',
    what: 'A skill is removed (skills matched by id), or its id changed: the skill of the old id is gone.',
    why: 'Clients and registries pick an agent for the skills its card lists; one that chose this agent for that skill finds none.',
  },
  'interface-removed': {
    class: 'breaking',
    what: 'An interface is removed: an entry of supportedInterfaces or additionalInterfaces (matched by URL and binding), or the 0.x url.',
    why: 'Clients that connect through it have nowhere to send their requests.',
  },
  'interface-url-changed': {
    class: 'breaking',
    what: 'An interface\'s URL changed: the 0.x url, or the url of an interface paired with the old one by its place in the list.',
    why: 'Clients that kept the endpoint (configuration, caches, allow-lists) call the old address.',
  },
  'interface-binding-changed': {
    class: 'breaking',
    what: 'An interface\'s binding changed: preferredTransport (absent means JSONRPC), an interface\'s transport or protocolBinding.',
    why: 'A client speaking the old binding at that URL sends requests the agent does not understand.',
  },
  'interface-tenant-changed': {
    class: 'breaking',
    what: 'A 1.0 interface\'s tenant is added, removed or changed.',
    why: 'Clients set tenant in every request exactly as the interface declares it: requests made from the old card name another tenant.',
  },
  'protocol-version-changed': {
    class: 'breaking',
    what: 'A declared protocol version changed its major or minor number, or was added or removed where it was declared (the top-level protocolVersion, an interface\'s protocolVersion).',
    why: 'Versions differ in method names, routes and shapes: a client of the old version gets "method not found".',
  },
  'mode-removed': {
    class: 'breaking',
    what: 'An input or output mode (a media type) is removed: from defaultInputModes or defaultOutputModes, or from what a skill accepts or produces (its own modes, else the card\'s defaults).',
    why: 'Clients that send or expect that media type are refused, or get what they cannot read.',
  },
  'capability-removed': {
    class: 'breaking',
    what: 'A capability is switched off or removed: capabilities.streaming, pushNotifications, stateTransitionHistory, extendedAgentCard, or the 0.x supportsAuthenticatedExtendedCard.',
    why: 'Clients that use it (a stream, push notifications, the extended card) fail with an unsupported operation.',
  },
  'extension-removed': {
    class: 'breaking',
    what: 'An extension (capabilities.extensions, matched by uri) is removed, or its uri changed.',
    why: 'Clients that rely on what the extension adds lose it.',
  },
  'extension-required': {
    class: 'breaking',
    what: 'An extension is added with required: true, or an extension becomes required.',
    why: 'A client must understand a required extension: clients without it can no longer talk to the agent.',
  },
  'security-scheme-removed': {
    class: 'breaking',
    what: 'A security scheme is removed from securitySchemes.',
    why: 'Clients that authenticate with it cannot any more.',
  },
  'security-scheme-type-changed': {
    class: 'breaking',
    what: 'A security scheme changed its type: apiKey, http, oauth2, openIdConnect, mutualTLS (0.x: its type; 1.0: the member that holds it).',
    why: 'Credentials of the old type are of no use.',
  },
  'security-scheme-changed': {
    class: 'breaking',
    what: 'A security scheme kept its type but one of its settings was removed or changed: where an API key goes and its name, the HTTP scheme, an OAuth flow, its URLs or scopes, the OpenID Connect URL.',
    why: 'Clients configured with the old settings send credentials the agent no longer accepts.',
  },
  'security-scheme-added-required': {
    class: 'breaking',
    what: 'A security scheme is added and every alternative of the card\'s security requirements names it.',
    why: 'Every client must now present a credential it did not need before.',
  },
  'security-tightened': {
    class: 'breaking',
    what: 'Security requirements (security, securityRequirements, a skill\'s) changed so that credentials which satisfied an alternative before satisfy none now: an alternative removed, a scheme or scope added to it, requirements where there were none; requirements too large to compare (over 64 alternatives or schemes) that changed count here too.',
    why: 'Clients holding the credentials that worked are refused.',
  },
  'signature-removed': {
    class: 'breaking',
    what: 'The card was signed and carries no signature any more.',
    why: 'Clients that verify a card before trusting it reject an unsigned one.',
  },
  'skill-added': {
    class: 'compatible',
    what: 'A skill is added.',
    why: 'An addition: clients that do not use it are unaffected.',
  },
  'interface-added': {
    class: 'compatible',
    what: 'An interface is added (an entry of supportedInterfaces or additionalInterfaces, or the 0.x url where there was none).',
    why: 'An addition: the interfaces clients used are still there.',
  },
  'interface-order-changed': {
    class: 'compatible',
    what: 'supportedInterfaces holds the same interfaces in another order.',
    why: 'Every interface is still there, but the first is the preferred one: clients choosing the first they support may now choose another.',
  },
  'protocol-version-patch': {
    class: 'compatible',
    what: 'A declared protocol version changed only after its major and minor numbers ("0.3.0" to "0.3.1", "1.0" to "1.0.1").',
    why: 'Patch versions of one line keep its methods and shapes.',
  },
  'mode-added': {
    class: 'compatible',
    what: 'An input or output mode is added (to the defaults, or to what a skill accepts or produces).',
    why: 'An addition: the media types clients used are still accepted.',
  },
  'capability-added': {
    class: 'compatible',
    what: 'A capability is switched on.',
    why: 'An addition: clients that do not use it are unaffected.',
  },
  'extension-added': {
    class: 'compatible',
    what: 'An extension is added, not required.',
    why: 'Clients that do not know it may ignore it.',
  },
  'extension-relaxed': {
    class: 'compatible',
    what: 'A required extension is no longer required.',
    why: 'Clients that understood it still may use it; others may now talk to the agent too.',
  },
  'extension-params-changed': {
    class: 'compatible',
    what: 'An extension\'s params changed.',
    why: 'The extension stays declared; what its parameters mean is the extension\'s own contract, which no card rule can read (check the extension\'s documentation).',
  },
  'security-scheme-added': {
    class: 'compatible',
    what: 'A security scheme is added that not every alternative of the security requirements names.',
    why: 'An addition: clients may keep authenticating as before.',
  },
  'security-scheme-extended': {
    class: 'compatible',
    what: 'A setting is added to a security scheme: another OAuth flow or scope, a bearerFormat, an oauth2MetadataUrl.',
    why: 'Clients keep what they used; the addition is one more option.',
  },
  'security-relaxed': {
    class: 'compatible',
    what: 'Security requirements changed so that every set of credentials that satisfied them still does, and some that did not now do (an alternative added, a scheme or scope dropped from one, requirements removed).',
    why: 'No client is refused that was admitted before.',
  },
  'field-added': {
    class: 'compatible',
    what: 'A field that no other rule names is added.',
    why: 'Clients ignore fields they do not know.',
  },
  'field-other': {
    class: 'compatible',
    what: 'A field that no other rule names (none of the card\'s specification) changed or is removed.',
    why: 'The protocol gives it no meaning, so no protocol client depends on it; a client of your own that reads it may (compare such fields in your own tests).',
  },
  'descriptive-changed': {
    class: 'cosmetic',
    what: 'Text and labels for people changed: name, description (anywhere in the card), the agent\'s own version, iconUrl, documentationUrl, provider, a skill\'s name, tags and examples, an OAuth scope\'s description.',
    why: 'No request a client makes depends on them.',
  },
  'order-changed': {
    class: 'cosmetic',
    what: 'A list holds the same items in another order: skills, modes, tags, additionalInterfaces, extensions.',
    why: 'Their order means nothing (supportedInterfaces\' order does: interface-order-changed).',
  },
  'requirements-rewritten': {
    class: 'cosmetic',
    what: 'Security requirements are written differently but admit exactly the same credentials (alternatives reordered or repeated, or one implied by another).',
    why: 'Every client is admitted or refused as before.',
  },
  'default-stated': {
    class: 'cosmetic',
    what: 'A field now states its default, or drops it: a capability or an extension\'s required false or absent, preferredTransport JSONRPC or absent, a skill\'s modes equal to the card\'s defaults or absent.',
    why: 'Absent means the default: the card means the same.',
  },
  'signature-changed': {
    class: 'cosmetic',
    what: 'The card\'s signatures changed (signed again, a signature added, replaced or removed) while it still carries one.',
    why: 'Whether they verify is each validation\'s finding (the signature.* rules), not a change of what the card offers.',
  },
} as const satisfies Record<string, ChangeRule>;

export type ChangeRuleId = keyof typeof changeRules;

export const changeRuleIds = Object.keys(changeRules) as ChangeRuleId[];

export const classOf = (rule: ChangeRuleId): ChangeClass => changeRules[rule].class;

/** How many changes of each class. */
export type ClassCounts = Record<ChangeClass, number>;

/** The most severe class with a change (breaking > compatible > cosmetic); null when there is none. */
export const worstClass = (counts: ClassCounts): ChangeClass | null => CHANGE_CLASSES.find((c) => counts[c] > 0) ?? null;
