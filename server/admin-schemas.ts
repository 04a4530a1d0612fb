import { SCOPES } from './auth/scopes.js';
import { dateTime, int, nullableStr, str, strings } from '../compiler/5-emit/schemas.js';

// Request and response schemas of key issuance and the admin routes (JSON Schema 2020-12);
// schemas.ts registers them with the shared validator and lists them for the OpenAPI components.

const keyStatus = { enum: ['active', 'revoked'] } as const;

/** Error codes every key-protected route can answer (listed in each operation of the OpenAPI document). */

/** Whether an issued key outlives this process and reaches every instance (both issuance responses). */
const keysDurable = { type: 'boolean', description: 'True when the store persists keys and every instance sees them: `sqlite` (on disk) and `redis` (the shared Redis, as durable as its append-only file is configured); false with `memory` (this process only, lost on restart).' } as const;

export const KEY_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{2,63}$';
export const KILL_SWITCHES = ['trial_traffic', 'trial_mint'] as const;
export const VALIDATION_STATUSES = ['parity_match', 'parity_diff', 'drift_diff', 'uncovered', 'covered'] as const;

/** What a per-key rate limit may be: a billion requests, in a window of at most a day. */
export const RATE_LIMIT_BOUNDS = { requests: { minimum: 1, maximum: 1_000_000_000 }, window_seconds: { minimum: 1, maximum: 86_400 } } as const;
/** A validation case's latency is at most a day. */
export const MAX_CASE_LATENCY_MS = 86_400_000;

export const RateLimitSchema = {
  $id: 'RateLimit',
  type: 'object',
  required: ['requests', 'window_seconds'],
  properties: { requests: { type: 'integer', ...RATE_LIMIT_BOUNDS.requests }, window_seconds: { type: 'integer', ...RATE_LIMIT_BOUNDS.window_seconds } },
} as const;

export const TrialKeyRequestSchema = {
  $id: 'TrialKeyRequest',
  type: ['object', 'null'],
  description: 'Optional: an empty body is accepted.',
  properties: { label: { type: 'string', maxLength: 120, description: 'Stored as the key note; shown to operators only.' } },
} as const;

export const TrialKeySchema = {
  $id: 'TrialKey',
  type: 'object',
  required: ['key', 'key_id', 'scopes', 'expires_at', 'rate_limit', 'quota_cu', 'ttl_days', 'durable', 'warning'],
  properties: {
    key: { type: 'string', description: 'The raw key; returned this once and never again.' },
    key_id: str,
    scopes: strings,
    expires_at: dateTime,
    rate_limit: { $ref: 'RateLimit' },
    quota_cu: { type: 'integer', minimum: 1 },
    ttl_days: { type: 'integer', minimum: 1 },
    durable: keysDurable,
    warning: str,
  },
} as const;

export const IssueKeyRequestSchema = {
  $id: 'IssueKeyRequest',
  type: 'object',
  required: ['id', 'scopes'],
  properties: {
    id: { type: 'string', pattern: KEY_ID_PATTERN, description: '3-64 characters of a-z, 0-9, `_` and `-`, starting with a letter or digit; unique among store and environment keys.' },
    scopes: { type: 'array', minItems: 1, items: { enum: [...SCOPES, '*'] }, description: 'Known scopes or `*` (every scope).' },
    owner: { type: 'string', maxLength: 120 },
    note: { type: 'string', maxLength: 500 },
    expires_at: { ...dateTime, description: 'Must lie in the future.' },
    rate_limit: { $ref: 'RateLimit' },
  },
} as const;

const keyEntryProperties = {
  id: str,
  prefix: {
    type: 'string',
    description:
      'Safe to show. Keys this service issued: their first 12 characters (`rk_live_` or `rk_trial_` and 3-4 of 43 random characters). Operator keys (RULES_API_KEYS): `sha256:` and the first 8 hex digits of the key\'s sha256, a fingerprint that reveals no character of the key (`printf %s "$KEY" | sha256sum | cut -c1-8`).',
  },
  scopes: strings,
  status: keyStatus,
  created_at: dateTime,
  owner: str,
  expires_at: dateTime,
  rate_limit: { $ref: 'RateLimit' },
} as const;

export const IssuedKeySchema = {
  $id: 'IssuedKey',
  type: 'object',
  required: ['key', 'entry', 'durable', 'warning'],
  properties: {
    key: { type: 'string', description: 'The raw key; returned this once and never again.' },
    entry: { type: 'object', required: ['id', 'prefix', 'scopes', 'status', 'created_at'], properties: { ...keyEntryProperties, note: str } },
    durable: keysDurable,
    warning: str,
  },
} as const;

export const ApiKeyMetadataSchema = {
  $id: 'ApiKeyMetadata',
  type: 'object',
  required: ['id', 'source', 'scopes', 'status', 'runtime_revoked'],
  description: 'Never carries key material or hashes.',
  properties: { ...keyEntryProperties, source: { enum: ['environment', 'store'] }, runtime_revoked: { type: 'boolean' } },
} as const;

export const KeyListSchema = {
  $id: 'KeyList',
  type: 'object',
  required: ['keys', 'store'],
  properties: { keys: { type: 'array', items: { $ref: 'ApiKeyMetadata' } }, store: str },
} as const;

export const RevocationResultSchema = {
  $id: 'RevocationResult',
  type: 'object',
  required: ['id', 'revoked', 'durable', 'note'],
  properties: { id: str, revoked: { type: 'boolean' }, durable: keysDurable, note: str },
} as const;

export const AuditEntrySchema = {
  $id: 'AuditEntry',
  type: 'object',
  required: ['at', 'action', 'target', 'actor', 'client', 'request_id'],
  properties: { at: dateTime, action: str, target: str, actor: nullableStr, client: nullableStr, request_id: str, detail: { type: 'object' } },
} as const;

export const AuditListSchema = {
  $id: 'AuditList',
  type: 'object',
  required: ['entries', 'store'],
  properties: { entries: { type: 'array', maxItems: 200, items: { $ref: 'AuditEntry' } }, store: str },
} as const;

export const UsageRowSchema = {
  $id: 'UsageRow',
  type: 'object',
  required: ['api_key_id', 'requests'],
  properties: { api_key_id: str, requests: int },
} as const;

export const UsageReportSchema = {
  $id: 'UsageReport',
  type: 'object',
  required: ['month', 'usage', 'store'],
  properties: { month: str, usage: { type: 'array', items: { $ref: 'UsageRow' } }, store: str },
} as const;

const latencyBuckets = ['le_25ms', 'le_100ms', 'le_500ms', 'le_2000ms', 'gt_2000ms'];
const authEvents = ['unauthorized', 'insufficient_scope', 'rate_limited', 'auth_throttled', 'auth_misconfigured'];
const counts = (names: string[]) => ({ type: 'object', required: names, properties: Object.fromEntries(names.map((n) => [n, int])) });

export const AnalyticsSnapshotSchema = {
  $id: 'AnalyticsSnapshot',
  type: 'object',
  required: ['instance_id', 'collected_since', 'generated_at', 'totals', 'auth_events', 'store_errors', 'routes', 'keys'],
  properties: {
    instance_id: str,
    collected_since: dateTime,
    generated_at: dateTime,
    totals: { type: 'object', required: ['requests', 'by_status'], properties: { requests: int, by_status: { type: 'object', additionalProperties: int } } },
    auth_events: counts(authEvents),
    store_errors: int,
    routes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['route', 'requests', 'success', 'client_errors', 'server_errors', 'avg_duration_ms', 'max_duration_ms', 'latency_buckets'],
        properties: {
          route: str,
          requests: int,
          success: int,
          client_errors: int,
          server_errors: int,
          avg_duration_ms: { type: 'number' },
          max_duration_ms: { type: 'number' },
          latency_buckets: counts(latencyBuckets),
        },
      },
    },
    keys: {
      type: 'array',
      items: { type: 'object', required: ['api_key_id', 'requests', 'rate_limited', 'last_used_at'], properties: { api_key_id: str, requests: int, rate_limited: int, last_used_at: str } },
    },
  },
} as const;

export const GlobalAnalyticsSchema = {
  $id: 'GlobalAnalytics',
  type: 'object',
  required: ['scope', 'store', 'instances'],
  properties: { scope: { const: 'global' }, store: str, instances: { type: 'array', items: { $ref: 'AnalyticsSnapshot' } } },
} as const;

export const KillSwitchRequestSchema = {
  $id: 'KillSwitchRequest',
  type: 'object',
  required: ['switch', 'engaged', 'reason'],
  properties: { switch: { enum: KILL_SWITCHES }, engaged: { type: 'boolean' }, reason: { type: 'string', minLength: 1, maxLength: 500 } },
} as const;

export const KillSwitchStateSchema = {
  $id: 'KillSwitchState',
  type: 'object',
  required: ['switches'],
  properties: {
    switches: {
      type: 'array',
      items: {
        type: 'object',
        required: ['switch', 'engaged', 'reason', 'changed_at', 'changed_by'],
        properties: { switch: { enum: KILL_SWITCHES }, engaged: { type: 'boolean' }, reason: nullableStr, changed_at: { type: ['string', 'null'], format: 'date-time' }, changed_by: nullableStr },
      },
    },
  },
} as const;

export const ValidationRowSchema = {
  $id: 'ValidationRow',
  type: 'object',
  required: ['variable', 'status'],
  description:
    'One variable checked in one case (further properties are kept as sent). `parity_match` / `parity_diff`: the output agreed / disagreed with the reference engine; `drift_diff`: it changed since the previous run; `uncovered`: the service cannot compute it; `covered`: computed, nothing to compare.',
  properties: { variable: { type: 'string', minLength: 1 }, status: { enum: VALIDATION_STATUSES } },
} as const;

export const ValidationCaseSchema = {
  $id: 'ValidationCase',
  type: 'object',
  description: 'One case of the run (further properties are kept as sent); `latency_ms` is its wall time.',
  properties: { latency_ms: { type: 'number', minimum: 0, maximum: MAX_CASE_LATENCY_MS } },
} as const;

export const ValidationRunRequestSchema = {
  $id: 'ValidationRunRequest',
  type: 'object',
  required: ['kind', 'rows'],
  properties: {
    kind: { type: 'string', minLength: 1, maxLength: 120 },
    rows: { type: 'array', items: { $ref: 'ValidationRow' } },
    cases: { type: 'array', items: { $ref: 'ValidationCase' } },
    api_version: nullableStr,
    base_url: nullableStr,
    model_versions: { type: ['object', 'null'] },
  },
} as const;

const validationTotals = counts(['variables', 'covered', 'parity_match', 'parity_diff', 'drift_diff', 'uncovered']);

const validationSummaryProperties = {
  id: str,
  kind: str,
  recorded_at: dateTime,
  contract_hash: { type: 'string', description: 'sha256 prefix of the OpenAPI document served when the run was recorded.' },
  api_version: nullableStr,
  base_url: nullableStr,
  model_versions: { type: ['object', 'null'] },
  totals: validationTotals,
  avg_case_latency_ms: { type: ['integer', 'null'] },
} as const;

const validationSummaryRequired = ['id', 'kind', 'recorded_at', 'contract_hash', 'api_version', 'base_url', 'model_versions', 'totals', 'avg_case_latency_ms'];

export const ValidationRunSummarySchema = {
  $id: 'ValidationRunSummary',
  type: 'object',
  required: validationSummaryRequired,
  properties: validationSummaryProperties,
} as const;

export const ValidationRunRecordSchema = {
  $id: 'ValidationRunRecord',
  type: 'object',
  required: [...validationSummaryRequired, 'rows', 'cases'],
  properties: { ...validationSummaryProperties, rows: { type: 'array', items: { $ref: 'ValidationRow' } }, cases: { type: 'array', items: { $ref: 'ValidationCase' } } },
} as const;

export const ValidationRunListSchema = {
  $id: 'ValidationRunList',
  type: 'object',
  required: ['runs'],
  properties: { runs: { type: 'array', items: { $ref: 'ValidationRunSummary' } } },
} as const;

export const ADMIN_SCHEMAS = [
  RateLimitSchema,
  TrialKeyRequestSchema,
  TrialKeySchema,
  IssueKeyRequestSchema,
  IssuedKeySchema,
  ApiKeyMetadataSchema,
  KeyListSchema,
  RevocationResultSchema,
  AuditEntrySchema,
  AuditListSchema,
  UsageRowSchema,
  UsageReportSchema,
  AnalyticsSnapshotSchema,
  GlobalAnalyticsSchema,
  KillSwitchRequestSchema,
  KillSwitchStateSchema,
  ValidationRowSchema,
  ValidationCaseSchema,
  ValidationRunRequestSchema,
  ValidationRunSummarySchema,
  ValidationRunRecordSchema,
  ValidationRunListSchema,
];
