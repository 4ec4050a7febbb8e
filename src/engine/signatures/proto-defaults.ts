/**
 * The 1.0 canonicalization's first step: an AgentCard's JSON with the fields that hold their protocol
 * buffer default ("", false, 0, an empty list or map) removed, unless the field is REQUIRED or declared
 * `optional` (explicit presence: kept as sent). Singular message fields have presence too, so they stay
 * and only their own fields are pruned. Fields the proto does not define are kept untouched. The table
 * is the AgentCard part of the 1.0 a2a.proto: `R` REQUIRED, `O` explicit presence (`optional`, oneof
 * members, singular messages), `-` neither (list, map and plain scalar fields).
 */
import { isRecord } from '../versions.ts';

type Presence = 'R' | 'O' | '-';
/** A field: its presence and, for a message field, the message and whether the field holds one, a list or a map of them. */
interface Field {
  presence: Presence;
  message?: string;
  holds?: 'one' | 'list' | 'map';
}

const R: Field = { presence: 'R' };
const O: Field = { presence: 'O' };
const plain: Field = { presence: '-' };
/** A message field; google.protobuf.Struct (`params`) and oneof members are messages too, so they have presence. */
const kept: Field = { presence: 'O' };
const one = (presence: Presence, message: string): Field => ({ presence, message, holds: 'one' });
const list = (presence: Presence, message: string): Field => ({ presence, message, holds: 'list' });
const map = (presence: Presence, message: string): Field => ({ presence, message, holds: 'map' });

const messages: Record<string, Record<string, Field>> = {
  AgentCard: {
    name: R, description: R, supportedInterfaces: list('R', 'AgentInterface'), provider: one('O', 'AgentProvider'), version: R,
    documentationUrl: O, capabilities: one('R', 'AgentCapabilities'), securitySchemes: map('-', 'SecurityScheme'),
    securityRequirements: list('-', 'SecurityRequirement'), defaultInputModes: R, defaultOutputModes: R,
    skills: list('R', 'AgentSkill'), iconUrl: O,
  },
  AgentInterface: { url: R, protocolBinding: R, tenant: plain, protocolVersion: R },
  AgentProvider: { url: R, organization: R },
  AgentCapabilities: { streaming: O, pushNotifications: O, extensions: list('-', 'AgentExtension'), extendedAgentCard: O },
  AgentExtension: { uri: plain, description: plain, required: plain, params: kept },
  AgentSkill: {
    id: R, name: R, description: R, tags: R, examples: plain, inputModes: plain, outputModes: plain,
    securityRequirements: list('-', 'SecurityRequirement'),
  },
  SecurityRequirement: { schemes: map('-', 'StringList') },
  StringList: { list: plain },
  SecurityScheme: {
    apiKeySecurityScheme: one('O', 'APIKeySecurityScheme'), httpAuthSecurityScheme: one('O', 'HTTPAuthSecurityScheme'),
    oauth2SecurityScheme: one('O', 'OAuth2SecurityScheme'), openIdConnectSecurityScheme: one('O', 'OpenIdConnectSecurityScheme'),
    mtlsSecurityScheme: one('O', 'MutualTlsSecurityScheme'),
  },
  APIKeySecurityScheme: { description: plain, location: R, name: R },
  HTTPAuthSecurityScheme: { description: plain, scheme: R, bearerFormat: plain },
  OAuth2SecurityScheme: { description: plain, flows: one('R', 'OAuthFlows'), oauth2MetadataUrl: plain },
  OpenIdConnectSecurityScheme: { description: plain, openIdConnectUrl: R },
  MutualTlsSecurityScheme: { description: plain },
  OAuthFlows: {
    authorizationCode: one('O', 'AuthorizationCodeOAuthFlow'), clientCredentials: one('O', 'ClientCredentialsOAuthFlow'),
    implicit: one('O', 'ImplicitOAuthFlow'), password: one('O', 'PasswordOAuthFlow'), deviceCode: one('O', 'DeviceCodeOAuthFlow'),
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: R, tokenUrl: R, refreshUrl: plain, scopes: R, pkceRequired: plain },
  ClientCredentialsOAuthFlow: { tokenUrl: R, refreshUrl: plain, scopes: R },
  ImplicitOAuthFlow: { authorizationUrl: plain, refreshUrl: plain, scopes: plain },
  PasswordOAuthFlow: { tokenUrl: plain, refreshUrl: plain, scopes: plain },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: R, tokenUrl: R, refreshUrl: plain, scopes: R },
};

/** The proto3 default of a field as JSON: "", false, 0, an empty list or map; null is how JSON writes an unset field. */
const isDefault = (v: unknown): boolean =>
  v === null || v === '' || v === false || v === 0 ||
  (Array.isArray(v) ? v.length === 0 : isRecord(v) && Object.keys(v).length === 0);

/** A field's value with the defaults of the messages it holds removed. */
function pruneField(value: unknown, field: Field): unknown {
  const { message, holds } = field;
  if (message === undefined) return value;
  if (holds === 'list') return Array.isArray(value) ? value.map((v) => pruneMessage(v, message)) : value;
  if (holds === 'map') return isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pruneMessage(v, message)])) : value;
  return pruneMessage(value, message);
}

function pruneMessage(value: unknown, message: string): unknown {
  if (!isRecord(value)) return value;
  const fields = messages[message]!;
  // Built with fromEntries, not `out[key] = v`: assigning a `__proto__` member would set the prototype and
  // drop the member from the payload, so a member of that name could be added to a signed card unnoticed.
  return Object.fromEntries(Object.entries(value).flatMap(([key, v]) => {
    const field = Object.hasOwn(fields, key) ? fields[key]! : undefined;
    if (field === undefined) return [[key, v]]; // not in the proto: kept as sent
    return field.presence !== '-' || !isDefault(v) ? [[key, pruneField(v, field)]] : [];
  }));
}

/** The card with its 1.0 default-valued fields removed (a new object; the card is not changed). */
export const withoutProtoDefaults = (card: Record<string, unknown>): Record<string, unknown> =>
  pruneMessage(card, 'AgentCard') as Record<string, unknown>;
