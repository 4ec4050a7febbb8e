/**
 * The AgentCard part of the 1.0 a2a.proto as data: each message's fields, by their JSON (camelCase)
 * names, with their kind and presence. Presence: `R` REQUIRED, `O` explicit presence (`optional`,
 * oneof members, singular messages, google.protobuf.Struct), `-` neither (lists, maps and plain
 * scalars). The canonical forms read it: the specification's (defaults removed: proto-defaults.ts)
 * and the SDKs' projections through their protobuf codecs (sdk-variants.ts).
 */

export type Presence = 'R' | 'O' | '-';

/** What a field holds: a string, a bool, a list of strings, a Struct, a map of strings (OAuth scopes), or messages. */
export type ProtoKind =
  | { type: 'string' | 'bool' | 'strings' | 'struct' | 'scopes' }
  | { type: 'message'; message: string; holds: 'one' | 'list' | 'map' };

export interface ProtoField {
  kind: ProtoKind;
  presence: Presence;
  /** A member of the message's one oneof (SecurityScheme, OAuthFlows): at most one of them is set. */
  oneof?: true;
}

const field = (type: 'string' | 'bool' | 'strings' | 'struct' | 'scopes', presence: Presence): ProtoField => ({ kind: { type }, presence });
const str = (presence: Presence) => field('string', presence);
const one = (presence: Presence, message: string): ProtoField => ({ kind: { type: 'message', message, holds: 'one' }, presence });
const list = (presence: Presence, message: string): ProtoField => ({ kind: { type: 'message', message, holds: 'list' }, presence });
const map = (presence: Presence, message: string): ProtoField => ({ kind: { type: 'message', message, holds: 'map' }, presence });
const member = (message: string): ProtoField => ({ ...one('O', message), oneof: true });

export const protoMessages: Record<string, Record<string, ProtoField>> = {
  AgentCard: {
    name: str('R'), description: str('R'), supportedInterfaces: list('R', 'AgentInterface'), provider: one('O', 'AgentProvider'), version: str('R'),
    documentationUrl: str('O'), capabilities: one('R', 'AgentCapabilities'), securitySchemes: map('-', 'SecurityScheme'),
    securityRequirements: list('-', 'SecurityRequirement'), defaultInputModes: field('strings', 'R'), defaultOutputModes: field('strings', 'R'),
    skills: list('R', 'AgentSkill'), signatures: list('-', 'AgentCardSignature'), iconUrl: str('O'),
  },
  AgentInterface: { url: str('R'), protocolBinding: str('R'), tenant: str('-'), protocolVersion: str('R') },
  AgentProvider: { url: str('R'), organization: str('R') },
  AgentCapabilities: { streaming: field('bool', 'O'), pushNotifications: field('bool', 'O'), extensions: list('-', 'AgentExtension'), extendedAgentCard: field('bool', 'O') },
  AgentExtension: { uri: str('-'), description: str('-'), required: field('bool', '-'), params: field('struct', 'O') },
  AgentSkill: {
    id: str('R'), name: str('R'), description: str('R'), tags: field('strings', 'R'), examples: field('strings', '-'), inputModes: field('strings', '-'),
    outputModes: field('strings', '-'), securityRequirements: list('-', 'SecurityRequirement'),
  },
  AgentCardSignature: { protected: str('R'), signature: str('R'), header: field('struct', 'O') },
  SecurityRequirement: { schemes: map('-', 'StringList') },
  StringList: { list: field('strings', '-') },
  SecurityScheme: {
    apiKeySecurityScheme: member('APIKeySecurityScheme'), httpAuthSecurityScheme: member('HTTPAuthSecurityScheme'),
    oauth2SecurityScheme: member('OAuth2SecurityScheme'), openIdConnectSecurityScheme: member('OpenIdConnectSecurityScheme'),
    mtlsSecurityScheme: member('MutualTlsSecurityScheme'),
  },
  APIKeySecurityScheme: { description: str('-'), location: str('R'), name: str('R') },
  HTTPAuthSecurityScheme: { description: str('-'), scheme: str('R'), bearerFormat: str('-') },
  OAuth2SecurityScheme: { description: str('-'), flows: one('R', 'OAuthFlows'), oauth2MetadataUrl: str('-') },
  OpenIdConnectSecurityScheme: { description: str('-'), openIdConnectUrl: str('R') },
  MutualTlsSecurityScheme: { description: str('-') },
  OAuthFlows: {
    authorizationCode: member('AuthorizationCodeOAuthFlow'), clientCredentials: member('ClientCredentialsOAuthFlow'),
    implicit: member('ImplicitOAuthFlow'), password: member('PasswordOAuthFlow'), deviceCode: member('DeviceCodeOAuthFlow'),
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: str('R'), tokenUrl: str('R'), refreshUrl: str('-'), scopes: field('scopes', 'R'), pkceRequired: field('bool', '-') },
  ClientCredentialsOAuthFlow: { tokenUrl: str('R'), refreshUrl: str('-'), scopes: field('scopes', 'R') },
  ImplicitOAuthFlow: { authorizationUrl: str('-'), refreshUrl: str('-'), scopes: field('scopes', '-') },
  PasswordOAuthFlow: { tokenUrl: str('-'), refreshUrl: str('-'), scopes: field('scopes', '-') },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: str('R'), tokenUrl: str('R'), refreshUrl: str('-'), scopes: field('scopes', 'R') },
};

/** A field's proto name: its JSON name in snake_case (`protocolBinding` is `protocol_binding`), which codecs accept too. */
export const protoName = (jsonName: string): string => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The fields of `message` by their JSON name; undefined for a name the message does not define. */
export const fieldOf = (message: string, jsonName: string): ProtoField | undefined => {
  const fields = protoMessages[message]!;
  return Object.hasOwn(fields, jsonName) ? fields[jsonName] : undefined;
};
