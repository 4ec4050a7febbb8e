/**
 * The one error type of the service. Handlers throw it; the single `onError`
 * in app.ts renders it. The closed set of codes maps to an HTTP status and to
 * one of the interface's two body shapes (nested or flat).
 */
export const errorCodes = {
  UNAUTHORIZED: { status: 401, shape: 'nested' },
  FORBIDDEN: { status: 403, shape: 'nested' },
  NOT_FOUND: { status: 404, shape: 'nested' },
  METHOD_NOT_ALLOWED: { status: 405, shape: 'nested' },
  INVALID_REQUEST: { status: 400, shape: 'flat' },
  /** A request the present state refuses (a bound on how many of a thing may exist). */
  CONFLICT: { status: 409, shape: 'flat' },
  PAYLOAD_TOO_LARGE: { status: 413, shape: 'flat' },
  // Answered by the HTTP server itself (src/api/node-server.ts) when Node's parser gives up.
  REQUEST_TIMEOUT: { status: 408, shape: 'flat' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, shape: 'flat' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, shape: 'flat' },
  INTERNAL_ERROR: { status: 500, shape: 'flat' },
  SERVICE_UNAVAILABLE: { status: 503, shape: 'flat' },
  INVALID_BATCH_FORMAT: { status: 400, shape: 'flat' },
  BATCH_VALIDATION_ERROR: { status: 400, shape: 'flat' },
  BATCH_NOT_ALLOWED: { status: 403, shape: 'flat' },
  BATCH_SERVER_ERROR: { status: 500, shape: 'flat' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

/**
 * Stable markers of a 400 a client may act on, beside its message (which is for a person):
 * `baseline_missing`, the agent has no report the baseline names yet (`branch:<name>` of a branch
 * it has no report of, or `latest` of an agent with none): a first run, not a mistake.
 */
export const refusalReasons = ['baseline_missing'] as const;
export type RefusalReason = (typeof refusalReasons)[number];

export interface ApiErrorOptions {
  /** Extra response headers, e.g. Retry-After on an exceeded limit. */
  headers?: Record<string, string>;
  /**
   * Render as the single-validation failure body `{valid:false, errors:[...]}`
   * instead of the code's usual shape (used by POST /v1/validate for 400s).
   */
  validationBody?: { path: string; message: string; reason?: RefusalReason }[];
  /** Members added after `error` and `code` in the flat shape (POST /v1/webhook/github's failure carries a commit status). */
  extraBody?: Record<string, unknown>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly validationBody?: { path: string; message: string; reason?: RefusalReason }[];
  readonly extraBody?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = errorCodes[code].status;
    this.headers = options.headers ?? {};
    this.validationBody = options.validationBody;
    this.extraBody = options.extraBody;
  }

  /** The JSON body for this error, in the documented shape. */
  body(): unknown {
    if (this.validationBody) return { valid: false, errors: this.validationBody };
    return errorCodes[this.code].shape === 'nested'
      ? { error: { code: this.code, message: this.message } }
      : { error: this.message, code: this.code, ...this.extraBody };
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
