import { BODY_LIMIT_TEXT, MAX_JSON_DEPTH } from './body-limits.js';

// The one catalogue of API error codes and their HTTP statuses (Rules API, "Errors").

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_household: 400,
  unsupported_parameter: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  key_id_conflict: 409,
  payload_too_large: 413,
  unsupported_program: 422,
  rate_limited: 429,
  auth_throttled: 429,
  internal_error: 500,
  runtime_error: 502,
  not_ready: 503,
  auth_not_configured: 503,
  store_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_MEANING: Record<ErrorCode, string> = {
  invalid_request: `malformed JSON, a body that is not UTF-8, JSON nested more than ${MAX_JSON_DEPTH} levels deep, a missing or invalid field, or an input over its cap; the message states the constraint`,
  invalid_household: 'the calculation household failed runtime validation; the message names the field',
  unsupported_parameter: 'the reserved parameter `as_of` was supplied',
  unauthorized: 'missing, unknown, expired or revoked key',
  insufficient_scope: 'the key lacks the required scope (named in the message)',
  not_found: 'unknown rule id, runtime package, key id, job, run or route, or an absent encoded file or compiled graph',
  key_id_conflict: 'a key with this id already exists',
  payload_too_large: `the body exceeds ${BODY_LIMIT_TEXT} bytes`,
  unsupported_program: 'no configured runtime package matches program_id and jurisdiction',
  rate_limited: 'per-key rate limit exceeded; see retry-after and data.retry_after_seconds',
  auth_throttled: 'too many failed authentication attempts from this client',
  internal_error: 'unexpected error; quote meta.request_id',
  runtime_error: 'the calculation engine failed or timed out',
  not_ready: 'readiness only: a dependency is degraded or unavailable',
  auth_not_configured: 'authentication is required but no keys are configured',
  store_unavailable: 'an operation needed the shared store and it was unreachable',
};

/** An error the API answers with its envelope: `{status: "error", error: {code, message, ...details}, data?}`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
    /** Structured fields of the error itself (`error.assumptions`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const GENERIC_INTERNAL_MESSAGE = 'an unexpected error occurred; quote meta.request_id when reporting it';
