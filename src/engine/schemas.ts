/**
 * The official AgentCard schemas as zod, one per rule set, built once at load.
 *
 * 0.x: `specification/json/a2a.json` at each tag (0.2.0 .. 0.3.0): open objects, no formats;
 * fields appear in the version that introduced them, so older rule sets leave newer fields untyped,
 * exactly like the official files. 1.0: the published `v1AgentCard` plus what the 1.0 text adds
 * (§5.7: REQUIRED fields are set, so REQUIRED arrays are non-empty and REQUIRED strings are not "",
 * the unset value of a proto string; proto oneofs `SecurityScheme` and `OAuthFlows` hold exactly one
 * of their own members, an unknown key being ignored). test/engine/conformance.test.ts checks every
 * one against ajv on the official file with the same additions.
 *
 * `z.object` (strip) is used rather than `looseObject`: unknown keys are allowed either way, and
 * strip is about twice as fast because it does not copy them. Only the two oneof wrappers are loose,
 * since their member count must include unknown keys.
 */
import * as z from 'zod';
import { since, type RuleSetVersion } from './versions.ts';

const str = z.string();
const strList = z.array(z.string());
const scopes = z.record(z.string(), z.string());
/** JSON-schema `type: object` with any members (extension params, signature header). */
const anyObject = z.record(z.string(), z.unknown());

/** The objects whose field names the engine checks for unknown / snake_case / cross-generation keys. */
export interface CardSchemaParts {
  card: z.ZodObject;
  skill: z.ZodObject;
  capabilities: z.ZodObject;
  provider: z.ZodObject;
  /** `additionalInterfaces[i]` (0.2.4+) or `supportedInterfaces[i]` (1.0); absent before 0.2.4. */
  iface?: z.ZodObject;
}

function v0Parts(v: RuleSetVersion): CardSchemaParts {
  const provider = z.object({ organization: str, url: str });
  const is03 = since(v, '0.3.0');
  const requirements = z.array(z.record(z.string(), z.array(z.string())));
  const flows = z.object({
    authorizationCode: z.object({ authorizationUrl: str, tokenUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    clientCredentials: z.object({ tokenUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    implicit: z.object({ authorizationUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    password: z.object({ tokenUrl: str, refreshUrl: str.optional(), scopes }).optional(),
  });
  const description = str.optional();
  // The official `anyOf` is equivalent to a union on `type`: every branch requires a distinct const `type`.
  const scheme = z.discriminatedUnion('type', [
    z.object({ type: z.literal('apiKey'), in: z.enum(['cookie', 'header', 'query']), name: str, description }),
    z.object({ type: z.literal('http'), scheme: str, bearerFormat: str.optional(), description }),
    z.object({
      type: z.literal('oauth2'),
      flows,
      description,
      ...(is03 ? { oauth2MetadataUrl: str.optional() } : {}),
    }),
    z.object({ type: z.literal('openIdConnect'), openIdConnectUrl: str, description }),
    ...(is03 ? [z.object({ type: z.literal('mutualTLS'), description })] : []),
  ]);
  const extension = z.object({ uri: str, description, required: z.boolean().optional(), params: anyObject.optional() });
  const capabilities = z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    stateTransitionHistory: z.boolean().optional(),
    ...(since(v, '0.2.2') ? { extensions: z.array(extension).optional() } : {}),
  });
  const skill = z.object({
    id: str,
    name: str,
    description: str,
    tags: strList,
    examples: strList.optional(),
    inputModes: strList.optional(),
    outputModes: strList.optional(),
    ...(is03 ? { security: requirements.optional() } : {}),
  });
  const iface = since(v, '0.2.4') ? z.object({ url: str, transport: str }) : undefined;
  const card = z.object({
    name: str,
    description: str,
    ...(since(v, '0.2.5') ? { protocolVersion: str } : {}),
    url: str,
    ...(iface ? { preferredTransport: str.optional(), additionalInterfaces: z.array(iface).optional() } : {}),
    version: str,
    capabilities,
    defaultInputModes: strList,
    defaultOutputModes: strList,
    skills: z.array(skill),
    provider: provider.optional(),
    documentationUrl: str.optional(),
    ...(since(v, '0.2.2') ? { iconUrl: str.optional() } : {}),
    securitySchemes: z.record(z.string(), scheme).optional(),
    security: requirements.optional(),
    ...(since(v, '0.2.1') ? { supportsAuthenticatedExtendedCard: z.boolean().optional() } : {}),
    ...(is03 ? { signatures: z.array(z.object({ protected: str, signature: str, header: anyObject.optional() })).optional() } : {}),
  });
  return { card, skill, capabilities, provider, iface };
}

/**
 * A proto oneof as a loose object: exactly one key, and one of its own members. A loose object keeps
 * unknown keys, so they count too: a second key is an error, and a lone unknown key (ignored by
 * clients, 1.0 §5.7) leaves the oneof unset. `params.members` lets the finding name what is expected.
 */
function oneof<T extends z.core.$ZodLooseShape>(kind: string, shape: T) {
  const members = Object.keys(shape);
  return z.looseObject(shape).refine((o: object) => {
    const keys = Object.keys(o);
    return keys.length === 1 && members.includes(keys[0]!);
  }, { message: `must hold exactly one ${kind}`, params: { members } });
}

function v1Parts(): CardSchemaParts {
  /** A REQUIRED string: set, so not "" (1.0 §5.7); optional ones stay `str`. */
  const set = z.string().min(1);
  const provider = z.object({ organization: set, url: set });
  const requirement = z.object({ schemes: z.record(z.string(), z.object({ list: strList.optional() })).optional() });
  const requirements = z.array(requirement);
  const flows = oneof('flow', {
    authorizationCode: z
      .object({ authorizationUrl: set, tokenUrl: set, refreshUrl: str.optional(), scopes, pkceRequired: z.boolean().optional() })
      .optional(),
    clientCredentials: z.object({ tokenUrl: set, refreshUrl: str.optional(), scopes }).optional(),
    deviceCode: z.object({ deviceAuthorizationUrl: set, tokenUrl: set, refreshUrl: str.optional(), scopes }).optional(),
    implicit: z.object({ authorizationUrl: str.optional(), refreshUrl: str.optional(), scopes: scopes.optional() }).optional(),
    password: z.object({ tokenUrl: str.optional(), refreshUrl: str.optional(), scopes: scopes.optional() }).optional(),
  });
  const description = str.optional();
  const scheme = oneof('scheme', {
    apiKeySecurityScheme: z.object({ location: set, name: set, description }).optional(),
    httpAuthSecurityScheme: z.object({ scheme: set, bearerFormat: str.optional(), description }).optional(),
    oauth2SecurityScheme: z.object({ flows, oauth2MetadataUrl: str.optional(), description }).optional(),
    openIdConnectSecurityScheme: z.object({ openIdConnectUrl: set, description }).optional(),
    mtlsSecurityScheme: z.object({ description }).optional(),
  });
  const extension = z.object({
    uri: str.optional(),
    description,
    required: z.boolean().optional(),
    params: anyObject.optional(),
  });
  const capabilities = z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    extensions: z.array(extension).optional(),
    extendedAgentCard: z.boolean().optional(),
  });
  const skill = z.object({
    id: set,
    name: set,
    description: set,
    tags: strList.min(1),
    examples: strList.optional(),
    inputModes: strList.optional(),
    outputModes: strList.optional(),
    securityRequirements: requirements.optional(),
  });
  const iface = z.object({ url: set, protocolBinding: set, protocolVersion: set, tenant: str.optional() });
  const card = z.object({
    name: set,
    description: set,
    supportedInterfaces: z.array(iface).min(1),
    version: set,
    capabilities,
    defaultInputModes: strList.min(1),
    defaultOutputModes: strList.min(1),
    skills: z.array(skill).min(1),
    provider: provider.optional(),
    documentationUrl: str.optional(),
    iconUrl: str.optional(),
    securitySchemes: z.record(z.string(), scheme).optional(),
    securityRequirements: requirements.optional(),
    signatures: z.array(z.object({ protected: set, signature: set, header: anyObject.optional() })).optional(),
  });
  return { card, skill, capabilities, provider, iface };
}

const built = new Map<RuleSetVersion, CardSchemaParts>();

/**
 * The schema parts of one rule set, built on its first card: a card needs only its own, and
 * building all nine took ~20 ms of CPU at every start (`cardgate validate` runs in ~100 ms).
 */
export const cardSchemaParts = (version: RuleSetVersion): CardSchemaParts => {
  let parts = built.get(version);
  if (!parts) {
    parts = version === '1.0' ? v1Parts() : v0Parts(version);
    built.set(version, parts);
  }
  return parts;
};

/** Field names of one schema object, for the unknown-field rules. */
export const fieldNames = (o: z.ZodObject | undefined): ReadonlySet<string> => new Set(o ? Object.keys(o.shape) : []);
