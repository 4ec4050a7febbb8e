/**
 * The API described once: every route is registered with its description (createRoute: request,
 * responses with each error shape, security), from which GET /openapi.json derives an OpenAPI 3.1
 * document. Request bodies are read by the routes themselves (size limit, nesting, Content-Type,
 * each endpoint's error shape; the validating ones in a worker) and checked there by the zod
 * schemas the document shows by reference; path and query parameters are checked by theirs here.
 */
import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';
import * as z from 'zod';
import { ApiError } from '../errors/api-error.ts';
import { version } from '../lib/version.ts';
import type { AppEnv } from './env.ts';
import { flatError, nestedError } from './schemas.ts';

/** An issue's message; a parameter the route does not take is named as one (a list's query is strict: a misspelt filter filters nothing). */
const parameterProblem = (issue: z.core.$ZodIssue, target: string): string =>
  issue.code === 'unrecognized_keys' && target === 'query'
    ? `${issue.keys.length === 1 ? 'unknown query parameter' : 'unknown query parameters'} ${issue.keys
        .slice(0, 5)
        .map((key) => JSON.stringify(key.slice(0, 100)))
        .join(', ')}${issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : ''}: see this route in /openapi.json for those it takes`
    : issue.message;

/** A group of routes; a path or query parameter that fails its schema is 400 INVALID_REQUEST (flat). */
export const apiRoutes = () =>
  new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError('INVALID_REQUEST', result.error.issues.map((issue) => parameterProblem(issue, result.target)).join('; '));
    },
  });

export type ApiRoutes = ReturnType<typeof apiRoutes>;
type Headers = Record<string, { $ref: string }>;
interface JsonResponse<S = z.ZodType> {
  description: string;
  content: { 'application/json': { schema: S } };
  headers?: Headers;
}

const ref = (kind: 'headers' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Every /v1 response carries these; what the window is depends on the endpoint. */
export const rateLimitHeaders: Headers = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};
const limitExceededHeaders: Headers = { ...rateLimitHeaders, 'Retry-After': ref('headers', 'Retry-After') };

/** A GET route answering a text document (a page, a script, a style sheet) of `mediaType`. */
export const textRoute = (path: string, mediaType: string, summary: string, tags: string[] = ['service']) =>
  createRoute({
    method: 'get',
    path,
    tags,
    summary,
    responses: { 200: { description: summary, content: { [mediaType]: { schema: z.string() } } } },
  });

export const jsonContent = <S extends z.ZodType | { $ref: string }>(schema: S) => ({ 'application/json': { schema } });

export const response = <S extends z.ZodType>(description: string, schema: S, headers?: Headers): JsonResponse<S> => ({
  description,
  content: jsonContent(schema),
  ...(headers ? { headers } : {}),
});

/**
 * A JSON answer the route composed as text (its findings serialized once, in a validation worker),
 * typed as the body `schema` describes: the API tests check real answers against the document.
 * An answer in another format the route offers (SARIF, JUnit...) passes its own `mediaType`.
 */
export const jsonText = <S extends z.ZodType, Status extends ContentfulStatusCode>(c: Context, _schema: S, text: string, status: Status, mediaType = 'application/json') =>
  c.body(text, status, { 'Content-Type': mediaType }) as unknown as TypedResponse<JSONParsed<z.output<S>>, Status, 'json'>;

/** The zod schema of each request body a route describes, found again by describeApi. */
const bodySchemas = new WeakMap<object, z.ZodType>();

/**
 * A JSON request body, described by the zod schema its route checks it with (the schema's `meta`
 * id names it in the document). The description shows the schema by reference only: given the
 * schema itself, @hono/zod-openapi would check the body with it before the route reads it (its
 * size limit, its nesting, its error shape, in a worker for the validating ones).
 */
export const requestBody = (schema: z.ZodType, options: { description?: string; required?: boolean } = {}) => {
  const id = z.globalRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('requestBody: the schema has no meta id to be shown by');
  const body = {
    required: options.required ?? true,
    ...(options.description ? { description: options.description } : {}),
    content: jsonContent(ref('schemas', id)),
  };
  bodySchemas.set(body, schema);
  return body;
};

/** The request body schemas of the routes registered so far, in their order, each once. */
const requestSchemas = (app: ApiRoutes): z.ZodType[] => {
  const found = new Set<z.ZodType>();
  for (const definition of app.openAPIRegistry.definitions) {
    const body = definition.type === 'route' ? definition.route.request?.body : undefined;
    const schema = body && bodySchemas.get(body);
    if (schema) found.add(schema);
  }
  return [...found];
};

/** The error answers of a group of routes, by status; `rateLimited` adds the /v1 headers to each. */
export const errors = (answers: Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 415 | 500 | 503, string | [string, z.ZodType]>>, rateLimited = false) => {
  const out: Record<string, JsonResponse> = {};
  for (const [status, answer] of Object.entries(answers)) {
    const [description, schema] = typeof answer === 'string' ? [answer, defaultShape[Number(status)]!] : answer;
    const headers = !rateLimited ? undefined : status === '403' ? limitExceededHeaders : rateLimitHeaders;
    out[status] = response(description, schema, headers);
  }
  return out;
};

const defaultShape: Record<number, z.ZodType> = {
  400: flatError,
  401: nestedError,
  403: nestedError,
  404: nestedError,
  409: flatError,
  413: flatError,
  415: flatError,
  500: flatError,
  503: flatError,
};

/** What each body-reading route may answer before its own checks. */
export const bodyErrors = {
  413: 'The body is larger than the limit (`http.maxBodyBytes`; batch: `http.maxBatchBodyBytes`).',
  415: 'The Content-Type is not JSON, or names a charset other than UTF-8 (`utf-8`, `utf8`, `us-ascii`, in any case) (UNSUPPORTED_MEDIA_TYPE).',
} as const;

export const security: Record<'optionalKey' | 'key' | 'admin', Array<Record<string, string[]>>> = {
  /** No key: anonymous, counted per client IP. */
  optionalKey: [{}, { apiKey: [] }, { apiKeyHeader: [] }],
  key: [{ apiKey: [] }, { apiKeyHeader: [] }],
  admin: [{ adminToken: [] }, { session: [] }],
};

const description = `Validates A2A agent cards. Errors come in three shapes: nested \`{error:{code,message}}\` for
UNAUTHORIZED, FORBIDDEN, NOT_FOUND and METHOD_NOT_ALLOWED (any path, any method: 404 for an unknown path, 405 with
\`Allow\` for a known path with another method); flat \`{error, code}\` for the rest; and
\`{valid:false, errors:[{path,message}]}\` for an unusable request to POST /v1/validate. Every /v1 response carries
\`X-RateLimit-*\`. An exceeded limit is 403 with \`Retry-After\`.`;

/**
 * Registers what the routes refer to (the request body schemas of requestBody, each with its
 * `meta` id; headers; security schemes) and returns the document's JSON text, made once on first
 * use (after every route is registered).
 */
export const describeApi = (app: ApiRoutes, publicUrl: string): (() => string) => {
  const registry = app.openAPIRegistry;
  const header = (name: string, text: string) =>
    registry.registerComponent('headers', name, { description: text, schema: { type: 'integer' } });
  header('X-RateLimit-Limit', 'Requests the window allows (-1: unlimited). Validation: per UTC day for the caller (key\'s account, or client IP); webhooks: per minute per client IP.');
  header('X-RateLimit-Remaining', 'Requests left in the window (-1: unlimited).');
  header('X-RateLimit-Reset', 'When the window ends, in Unix seconds.');
  header('Retry-After', 'Seconds until the exceeded limit resets.');
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key, `Authorization: Bearer <prefix>_<key>`. A key that is present but malformed, unknown or deleted is 401, never anonymous.',
  });
  registry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same API key in `X-API-Key`.' });
  registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: 'The admin token, `Authorization: Bearer <admin token>`.' });
  registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'cardgate_session',
    description: 'A person signed in through OpenID Connect (GET /auth/login), when `auth.oidc` is set and no Authorization header is sent; the cookie is named `__Host-cardgate_session` when `auth.oidc.redirectUrl` is https. A state-changing request with it also sends the session\'s CSRF token (GET /auth/session) in `X-CSRF-Token` and comes from this service\'s origin; the session\'s role must reach the route\'s (see docs/auth.md).',
  });

  // Made on first use, not at start-up: nothing but GET /openapi.json and /docs needs it.
  let text: string | undefined;
  return () => {
    if (text) return text;
    const { schemas = {} } = new OpenApiGeneratorV31(requestSchemas(app).map((schema) => ({ type: 'schema' as const, schema }))).generateComponents().components ?? {};
    for (const [name, schema] of Object.entries(schemas)) registry.registerComponent('schemas', name, schema);
    return (text = JSON.stringify(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: 'cardgate', version, description },
        servers: [{ url: publicUrl }],
        tags: [
          { name: 'validation', description: 'Validate agent cards.' },
          { name: 'webhooks', description: 'For CI: synchronous, asynchronous (signed callback) and GitHub validations.' },
          { name: 'reports', description: 'Stored reports, by capability URL.' },
          { name: 'agents', description: 'An agent\'s history of keyed validations, and its badge.' },
          { name: 'admin', description: 'Accounts, API keys, usage and reports (admin token).' },
          { name: 'service', description: 'Health, the dashboard and this description.' },
        ],
      }),
    ));
  };
};
