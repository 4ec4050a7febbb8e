/**
 * The rule catalogue: every finding the engine can report, as data (served at GET /v1/rules).
 * Schema violations and static MUSTs are errors; SHOULDs and practices that hurt real clients are
 * warnings. `weight` is what a warning costs the score.
 */
import type { RuleInfo, RuleSeverity } from './types.ts';
import { ruleSetVersions, since } from './versions.ts';

const ALL = [...ruleSetVersions];
const V0 = ruleSetVersions.filter((v) => v !== '1.0');
const V0_INTERFACES = ['0.2.4', '0.2.5', '0.2.6', '0.3.0'];
const V1 = ['1.0'];
/** Rule sets whose cards carry `signatures` (verified when the caller trusts keys). */
const SIGNED = ['0.3.0', '1.0'];
/** Rule sets whose schema does not itself require a top-level protocolVersion. */
const NO_SCHEMA_PROTOCOL_VERSION = ruleSetVersions.filter((v) => v === '1.0' || !since(v, '0.2.5'));

interface RuleData {
  severity: RuleSeverity;
  versions: string[];
  spec: string;
  description: string;
  fix: string;
  source: RuleInfo['source'];
  weight: number;
}

const error = (source: RuleInfo['source'], versions: string[], spec: string, description: string, fix: string): RuleData =>
  ({ severity: 'error', versions, spec, description, fix, source, weight: 0 });
const info = (source: RuleInfo['source'], versions: string[], spec: string, description: string, fix: string): RuleData =>
  ({ severity: 'info', versions, spec, description, fix, source, weight: 0 });
const warning = (source: RuleInfo['source'], weight: number, versions: string[], spec: string, description: string, fix: string): RuleData =>
  ({ severity: 'warning', versions, spec, description, fix, source, weight });

const rules = {
  'card.root.object': error('schema', ALL, 'all: AgentCard is a JSON object',
    'The card is not a JSON object.', 'Send the agent card itself: a JSON object such as {"name": "...", ...}.'),
  'schema.required': error('schema', ALL, 'official schema `required`; 0.2.5+/0.3.0 §5.5, 1.0 §4.4.1',
    'A field the official schema of this version requires is missing.', 'Add the field; the message names it.'),
  'schema.type': error('schema', ALL, 'official schema `type`',
    'A field has the wrong JSON type (string, boolean, array, object).', 'Give the field the type the message names.'),
  'schema.enum': error('schema', ALL, 'official schema `enum`/`const`',
    'A field holds a value outside its closed set (security scheme `type`, apiKey `in`).', 'Use one of the values the message lists.'),
  'schema.non-empty': error('spec', V1, '1.0 §5.7 (REQUIRED fields MUST be present and set; REQUIRED arrays hold at least one element)',
    'A required array is empty (supportedInterfaces, defaultInputModes, defaultOutputModes, skills, skills[i].tags), or a string the 1.0 proto marks REQUIRED is "" (name, description, version; a skill\'s id, name, description; an interface\'s url, protocolBinding, protocolVersion; provider url and organization; a signature\'s protected and signature; a security scheme\'s required fields): "" is the unset value of a proto string.',
    'Put at least one element in the array; give the string its value.'),
  'schema.one-of': error('spec', V1, '1.0 proto oneof `SecurityScheme`, `OAuthFlows`; 1.0 §5.7 (unrecognised fields are ignored)',
    'A 1.0 security scheme or OAuth flows object does not hold exactly one of its members: none, two, or only a key that is no member (e.g. "bearerAuthScheme"), which clients ignore, leaving the scheme empty.',
    'Wrap each scheme in exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme; give flows exactly one flow.'),
  'protocolVersion.unsupported': error('spec', ALL, '0.2.5+ §5.5 protocolVersion; 1.0 §3.6, §8.3',
    'The declared protocol version belongs to no known version line (0.2, 0.3, 1.0).', 'Declare one of the supported versions (GET /v1/rules lists them).'),
  'protocolVersion.required': error('spec', NO_SCHEMA_PROTOCOL_VERSION, '0.2.5+ §5.5 protocolVersion (REQUIRED); 1.0 §8.3 (the card declares its protocols)',
    'The card declares no protocol version: neither a top-level protocolVersion nor supportedInterfaces (whose entries carry it). Reported whatever version the card is validated as, also where that version\'s schema predates the field.',
    'Add "protocolVersion": "0.3.0" (0.x), or declare "supportedInterfaces" with a "protocolVersion" per interface (1.0).'),
  'url.absolute': error('spec', ALL, '0.2.5+ §5.5 `url` (absolute); OAuth flow URLs "MUST be in the form of a URL"; 1.0 AgentInterface.url',
    'An endpoint or security URL is not an absolute URL.', 'Write the full URL with scheme and host, e.g. "https://agent.example.net/a2a".'),
  'url.scheme': error('spec', ALL, '0.3.0 §3.2 (JSON-RPC, gRPC, HTTP+JSON over HTTP(S)); 1.0 §5 (protocol bindings; gRPC also `host:port`); RFC 6749 §3 (OAuth endpoints)',
    'An endpoint or security URL has a scheme its transport cannot use: only http and https carry JSON-RPC, HTTP+JSON, gRPC and OAuth (ftp:, ws:, file:, javascript: are not endpoints). A custom transport\'s URL is not judged.',
    'Write the https:// URL where the transport is served, e.g. "https://agent.example.net/a2a".'),
  'transport.url-conflict': error('spec', V0_INTERFACES, '0.3.0 §5.6.4',
    'The same URL is declared with different transports.', 'Give each transport its own URL, or declare one transport per URL.'),
  'signature.protected-header': error('spec', SIGNED, '1.0 §8.4.2; RFC 7515 §4.1.11 (crit)',
    'A signature\'s `protected` value is not a base64url JSON header with `alg` and `kid` (or makes an extension critical). Checked on every 1.0 card, and on 0.3.0 cards when signatures are verified.',
    'Encode the JWS protected header {"alg": "ES256", "kid": "<key id>", "typ": "JOSE"} as base64url.'),
  'signature.invalid': error('spec', SIGNED, '1.0 §8.4.3; RFC 7515 §5.2',
    'A signature does not verify with the trusted key its kid names: the card changed since it was signed, it was signed by another key, or the trusted key does not fit the algorithm.',
    'Sign the card as published (cardgate sign) after its last change, with the private key of the trusted kid.'),
  'signature.algorithm': error('spec', SIGNED, '1.0 §8.4.2; RFC 7518 §3.1',
    'A signature uses an algorithm that is not accepted: `none` and HMAC (HS256...) never are, and others only when signatures.allowedAlgorithms lists them.',
    'Sign with an asymmetric algorithm the validator allows, e.g. ES256 or EdDSA.'),
  'signature.key-revoked': error('spec', SIGNED, '1.0 §8.4.3 (expired or revoked keys MUST NOT be used)',
    'A signature\'s kid names a trusted key that is revoked (its revocation time has passed).',
    'Sign the card again with a key in force and publish its public key to the trust store.'),
  'signature.required': error('practice', SIGNED, '1.0 §8.4.3 (clients SHOULD verify at least one signature); signatures.requireSignature',
    'Signatures are required (signatures.requireSignature or --require-signature) and no signature of the card verifies with a trusted key.',
    'Sign the card with a key the validator trusts (cardgate keygen, cardgate sign) and add its public key to the trust store.'),

  'protocolVersion.forced': warning('practice', 0, ALL, 'options.protocolVersion',
    'The version asked for in options.protocolVersion differs from the one the card declares.',
    'Validate against the declared version, or update the card to the version you target.'),
  'protocolVersion.unpublished': warning('spec', 3, ALL, '0.2.5+ §5.5 protocolVersion; published versions: 0.2.0-0.2.6, 0.3.0, 1.0.0, 1.0.1',
    'The declared version was never published but belongs to a known line (e.g. "0.2.9", which the official sample cards use); the card is validated by the latest published version of that line, which the message names.',
    'Declare the published version the card follows, e.g. "0.2.6" or "0.3.0".'),
  'compatibility.other-version': warning('practice', 3, ALL, '1.0 §5 / 0.3.0 §5.5 (one card serving both generations)',
    'The card also addresses the other generation (a 0.x card with supportedInterfaces, or a 1.0 card keeping the 0.x url for 0.3 clients) and fails one of its rules; clients of that version may reject the card. The result\'s compatibility gives that version\'s verdict.',
    'Fix the field for clients of the other version as the message says, or drop the other generation\'s fields.'),
  'url.https': warning('spec', 5, ALL, '0.x §5.5 "HTTPS for production"; 1.0 §7.1',
    'A URL uses plain http://.', 'Serve it over https:// and write the https:// URL.'),
  'url.placeholder': warning('practice', 10, ALL, '0.x §5.5, 1.0 §8.3.1 (URLs must be the real endpoint)',
    'A URL is a placeholder (example.com, REPLACE_ME, YOUR-SERVICE.onrender.com, <host>, ${VAR}).', 'Write the URL where the agent is actually served.'),
  'url.unreachable-host': warning('practice', 10, ALL, '0.x §5.5, 1.0 §8.3.1',
    'A URL names a host no client can reach: a bind-all address (0.0.0.0, ::), an mDNS *.local name, a bare container name. Loopback and private addresses are url.private-host.',
    'Advertise the public host name of the agent, not its bind address or container name.'),
  'url.private-host': warning('practice', 10, ALL, '0.x §5.5, 1.0 §8.3.1 (the card names the endpoint clients call); RFC 1918, RFC 6598, RFC 3927, RFC 4193',
    'A URL names a private address or name: loopback (localhost, 127/8, ::1), RFC 1918 (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT (100.64/10), unique-local IPv6 (fc00::/7), or an internal name (*.internal, *.localhost, *.lan, *.home.arpa, *.corp). Clients outside that network cannot reach it; a ruleset with settings.network "internal" turns it off.',
    'Advertise the public host name of the agent; on a private network, say so in a ruleset (settings.network: internal).'),
  'url.link-invalid': warning('practice', 3, ALL, 'provider.url, documentationUrl, iconUrl',
    'A link (provider.url, documentationUrl, iconUrl) is not an absolute http(s) URL.', 'Write an absolute https:// URL.'),
  'modes.media-type': warning('spec', 5, ALL, '0.x §5.5 / 1.0 §5 defaultInputModes: media types',
    'An input/output mode is not a media type (e.g. "text" instead of "text/plain").', 'Use media types such as "text/plain", "application/json", "image/png".'),
  'skills.empty': warning('spec', 10, V0, '0.2.5+ §5.5 skills',
    'The card lists no skills.', 'Describe at least one skill with id, name, description and tags.'),
  'skills.tags.empty': warning('practice', 5, V0, '0.x AgentSkill.tags',
    'A skill has an empty tags array.', 'Add keywords that describe the skill, e.g. "tags": ["search", "travel"].'),
  'skills.id.unique': warning('practice', 10, ALL, 'AgentSkill.id "unique identifier"',
    'Two skills share one id.', 'Give every skill its own id.'),
  'security.undefined-scheme': warning('spec', 10, ALL, '0.x `security`, 1.0 `securityRequirements` reference securitySchemes',
    'A security requirement names a scheme that securitySchemes does not define.', 'Define the scheme under securitySchemes or fix the name.'),
  'security.scope.undeclared': warning('practice', 5, ALL, 'OAuth2 flows `scopes`',
    'A requirement asks for an OAuth scope that none of the scheme\'s flows declares.', 'Declare the scope in the flow\'s "scopes" map or remove it from the requirement.'),
  'extended-card.no-security': warning('spec', 10, ALL, '0.x §7.10, 1.0 §3.1.11 / §13.3',
    'An authenticated extended card is advertised, but the card declares no security scheme to authenticate with.',
    'Declare the scheme clients must use under securitySchemes (and a requirement naming it).'),
  'field.unknown': warning('spec', 2, ALL, '1.0 §5.7 (unrecognised fields SHOULD be ignored)',
    'A field is not part of this protocol version; clients ignore it.', 'Remove it or move the data into an extension (capabilities.extensions[].params).'),
  'field.snake-case': warning('spec', 5, ALL, '1.0 §5.5 (JSON names MUST be camelCase)',
    'A field is spelt in snake_case; clients look for the camelCase name.', 'Rename it to the camelCase name the message gives.'),
  'field.legacy-0x': warning('spec', 5, V1, '1.0 §5 / "What\'s new in 1.0"',
    'A 0.x field is left in a 1.0 card; 1.0 clients ignore it.', 'Replace it with its 1.0 form (the message gives it).'),
  'field.from-1.0': warning('spec', 5, V0, '1.0 §5 vs 0.x §5.5',
    'A 1.0 field appears in a card validated as 0.x; 0.x clients ignore it.', 'Use the 0.x form (the message gives it) or declare the card as 1.0.'),
  'transport.preferred.missing': warning('spec', 3, ['0.3.0'], '0.3.0 §5.6.1, §5.6.4 (text: REQUIRED; schema: optional, default JSONRPC)',
    'preferredTransport is missing; clients assume JSONRPC.', 'Add "preferredTransport": "JSONRPC" (or the transport served at url).'),
  'transport.non-core': warning('spec', 3, ALL, '0.3.0 §5.5.5, 1.0 §5.8',
    'A transport / protocolBinding is not JSONRPC, GRPC or HTTP+JSON (1.0: and not a URI).', 'Use JSONRPC, GRPC or HTTP+JSON; name a custom binding by a URI.'),
  'interface.protocolVersion.patch': warning('spec', 3, V1, '1.0 §3.6 (patch versions SHOULD NOT appear in cards)',
    'An interface protocolVersion carries a patch number.', 'Write Major.Minor, e.g. "1.0".'),
  'signature.unknown-key': warning('spec', 0, SIGNED, '1.0 §8.4.3 (the key comes from a trusted key store by kid)',
    'A signature\'s kid names no key the validator trusts, so it cannot be verified (an error under signatures.requireSignature when no other signature verifies).',
    'Add the signer\'s public key (JWKS) to the trust store, or sign with a key already in it.'),
  'signature.jku-untrusted': warning('spec', 0, SIGNED, '1.0 §8.4.2 jku, §8.4.3',
    'A signature names a jku (a JWKS URL) but no trusted key has its kid at that URL, and the URL is not fetched (signatures.fetchJku off, or the fetch was refused or failed).',
    'Add the keys published at the jku to the trust store, or enable signatures.fetchJku.'),
  'signature.sdk-variant': warning('spec', 0, SIGNED, '1.0 §8.4.1 (canonicalization); §8.4.3',
    'A signature does not verify over the card as §8.4.1 canonicalizes it, but does over the bytes an A2A SDK signs for it (@a2a-js/sdk 1.x and a2a-python 1.x drop every empty value, REQUIRED fields included, and the fields outside the 1.0 proto; a2a-python writes JSON with Python\'s json.dumps): the card was signed by that SDK, not forged, and verifiers of the specification\'s form reject it. The message names the SDKs, how their form differs, and the fields the signature does not cover. It counts as verified (signatures.requireSignature).',
    'Sign with a signer that follows §8.4.1 (cardgate sign), or leave out empty values and fields outside the proto so that both forms are the same bytes.'),
  'field.blank': warning('practice', 5, ALL, '0.x official schema `required` (presence only); 1.0 §5.7',
    'A required string has no content: "" in a 0.x card (the 0.x schema requires the field but not a value; in 1.0 "" is an error, schema.non-empty), or only whitespace in any version. Not reported where another rule already judged the value (an empty url is url.absolute).',
    'Give the field its value: a name, a description, an id clients can show and use.'),
  'discovery.legacy-path': warning('spec', 3, SIGNED, '0.3.0 §5.3, 1.0 §8.2 (the well-known URI is /.well-known/agent-card.json)',
    'A card fetched by URL was found only at the legacy /.well-known/agent.json (its /.well-known/agent-card.json answered 4xx), though its version names /.well-known/agent-card.json: clients of that version look there first.',
    'Serve the card at /.well-known/agent-card.json (keep agent.json as well for older clients).'),
  'content.secret': warning('spec', 20, ALL, '0.x §5.4, 1.0 §14.3 (no plaintext credentials in cards)',
    'A value looks like a credential (API key, token, private key, password).', 'Remove the credential from the card and rotate it.'),

  'live.card.delivery': error('spec', ALL, '0.3.0 §5.3, 1.0 §8.2 (the well-known URI MUST return an AgentCard); live probe',
    'Probed: the card\'s well-known path (/.well-known/agent-card.json, else the legacy /.well-known/agent.json, redirects followed and each hop checked) did not answer with a JSON object (a warning when found only at the legacy path).',
    'Serve the card as JSON at /.well-known/agent-card.json with 200.'),
  'live.interface.reachable': error('practice', ALL, '0.3.0 §5.6.1, 1.0 §8.3.1 (the url is where clients connect); live probe',
    'Probed: an interface\'s host does not resolve, or refuses or drops the connection.', 'Serve the interface at the URL the card declares, reachable from its clients.'),
  'live.interface.tls': error('spec', ALL, '1.0 §7.1 (production MUST use TLS); RFC 9325 (TLS 1.2 or later); live probe',
    'Probed: the TLS handshake fails (certificate expired, self-signed, not for this host) or uses TLS older than 1.2.', 'Serve a certificate from a public CA for the host, in date, over TLS 1.2 or 1.3.'),
  'live.version': error('spec', ALL, '0.3.0 §3.5, 1.0 §5.3 and §5.4 (TaskNotFound -32001 / 404); live probe, read-only',
    'Probed: an interface does not speak the protocol version the card declares: a get of a task that cannot exist (GetTask, tasks/get, GET …/tasks/{id}) answered method not found or the route\'s own 404 instead of TaskNotFound (a warning for any other answer, reported as is).',
    'Serve the declared version at that URL, or declare the version the endpoint speaks (1.0: GetTask and A2A-Version; 0.3: tasks/get).'),
  'live.version.negotiation': error('spec', V1, '1.0 §3.2.6 (an unsupported A2A-Version MUST answer VersionNotSupportedError, -32009 / 400); live probe, read-only',
    'Probed: a 1.0 interface asked for A2A-Version 99.0 did not answer VersionNotSupported: it ignores the version clients ask for.', 'Read the A2A-Version header and answer VersionNotSupportedError for versions the interface does not serve.'),
  'live.errors.parse': error('spec', ALL, 'JSON-RPC 2.0 error object (-32700); 1.0 §9.5, §11.6 (HTTP 400, google.rpc.Status); live probe, read-only',
    'Probed: invalid JSON was not answered with a parse error in the binding\'s form (JSON-RPC -32700; HTTP+JSON 400 with an error body).', 'Answer unparsable requests with the binding\'s parse error.'),
  'live.errors.method': error('spec', ALL, 'JSON-RPC 2.0 error object (-32601); 1.0 §9.5, §11.3; live probe, read-only',
    'Probed: an unknown method was not answered with method not found (JSON-RPC -32601; HTTP+JSON an unknown route 404).', 'Answer unknown methods with -32601 (JSON-RPC) and unknown routes with 404.'),
  'live.extended-card': error('spec', ALL, '0.3.0 §7.10, 1.0 §3.1.11 and §3.3.4 (UnsupportedOperationError when not declared); live probe, read-only',
    'Probed: the authenticated extended card does not behave as the card declares: declared, it must answer 401/403 without credentials (and the card with them); not declared, UnsupportedOperation (a warning).',
    'Protect GetExtendedAgentCard with the card\'s security schemes, or answer UnsupportedOperationError when no extended card is declared.'),
  'live.send-message': error('practice', ALL, '0.3.0 §7.1, 1.0 §3.1.1; live probe, only with --send-message',
    'Probed (opt-in): the marked message ("cardgate probe, safe to ignore") was not answered with a Task or a Message.', 'Answer SendMessage / message/send with a Task or a Message.'),
  'live.streaming': error('spec', ALL, '0.3.0 §7.2, 1.0 §3.1.2 and §9.4 (Server-Sent Events); live probe, only with --send-message',
    'Probed (opt-in, capabilities.streaming): the streaming request was not answered with text/event-stream events, each a JSON object (JSON-RPC: a response); a warning for a stream still open when the probe stopped reading.',
    'Answer SendStreamingMessage / message/stream with Server-Sent Events whose data are the binding\'s responses, and end the stream.'),

  'live.card.media-type': warning('spec', 3, ALL, '1.0 §8.2, §14.1 (application/json; 1.0 also application/a2a+json); live probe',
    'Probed: the card is served with another Content-Type than application/json or application/a2a+json.', 'Serve the card with Content-Type: application/json.'),
  'live.card.caching': warning('spec', 2, ALL, '1.0 §8.6 (Cache-Control max-age SHOULD, ETag SHOULD, conditional requests); live probe',
    'Probed: the card is served without Cache-Control max-age or ETag, or a conditional request (If-None-Match) is not answered 304.', 'Send Cache-Control: max-age=<seconds> and an ETag, and answer If-None-Match with 304.'),
  'live.card.matches': warning('practice', 5, ALL, 'the card validated is the card clients read; live probe',
    'Probed: the card its agent serves differs from the card validated (a file, or the request\'s agent_card).', 'Publish the card you validated, or validate the one you publish.'),
  'live.interface.https': warning('spec', 5, ALL, '0.x §5.5, 1.0 §7.1 (HTTPS for production); live probe',
    'Probed: an HTTP interface is served over plain http. A ruleset may turn it off for internal agents.', 'Serve the interface over https:// and declare the https:// URL.'),
  'live.interface.certificate-expiry': warning('practice', 3, ALL, 'RFC 5280 §4.1.2.5 (validity); live probe',
    'Probed: an interface\'s certificate expires within 30 days.', 'Renew the certificate (or automate its renewal).'),

  'signature.verified': info('spec', SIGNED, '1.0 §8.4.3',
    'A signature verified with a trusted key; the result\'s signatures entry says which canonical form (1.0 with defaults removed, or 0.3.0 as sent).',
    'Nothing to fix.'),
  'provider.missing': info('practice', ALL, '0.x AgentCard.provider, 1.0 §4.4.1 AgentCard.provider (optional)',
    'The card names no provider (organization and url): clients cannot tell who runs the agent. Information only (the missing field already costs the score its weight as a recommended field).',
    'Add "provider": {"organization": "<who runs the agent>", "url": "https://<their site>"}.'),
  'signature.missing': info('practice', SIGNED, '1.0 §8.4.3 (signing is optional; clients SHOULD verify signatures)',
    'The card carries no signature though signatures are verified (keys are trusted, or a ruleset asks for it). When a signature is required (signatures.requireSignature), signature.required reports it instead: one finding, never both.',
    'Sign the card with a key your clients trust (cardgate keygen, cardgate sign).'),
  'live.card.cors': info('practice', ALL, 'Fetch standard (CORS); live probe, reported and never required',
    'Probed: browser clients on other origins cannot read the card (no Access-Control-Allow-Origin for them, or a preflight for GET with A2A-Version refused). Information only.',
    'Send Access-Control-Allow-Origin: * with the public card, and answer its preflight.'),
} satisfies Record<string, RuleData>;

export type RuleId = keyof typeof rules;

/** The errors a specification text or the official schema states; the practice ones (signature.required) are policy. */
const enforcesMust = (r: RuleData): boolean => r.severity === 'error' && r.source !== 'practice';

export const ruleCatalogue: RuleInfo[] = Object.entries(rules).map(([id, r]) => ({ id, ...r, versions: [...r.versions], must: enforcesMust(r) }));

const byId = new Map<string, RuleInfo>(ruleCatalogue.map((r) => [r.id, r]));
export const ruleInfo = (id: RuleId): RuleInfo => byId.get(id) as RuleInfo;
