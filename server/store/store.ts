import type { CalculateRequest } from '../../compiler/4-package/package-types.js';

// The daemon's durable memory, behind one asynchronous interface so that embedded stores
// (SQLite, memory) and a shared networked one (Redis) are interchangeable. Every method may
// reject with StoreUnavailableError when the backing store cannot be reached.

export class StoreUnavailableError extends Error {}

/** The store's file is damaged: the daemon cannot start on it until an operator acts (the message says how). */
export class StoreDamagedError extends StoreUnavailableError {}

/** A per-key fixed-window rate limit: `requests` per `window_seconds` (keys, RULES_API_KEYS, the guard). */
export interface RateLimit {
  requests: number;
  window_seconds: number;
}

export interface StoredKey {
  id: string;
  key_sha256: string;
  /** First characters of the raw key, safe to show. */
  prefix: string;
  scopes: string[];
  status: 'active' | 'revoked';
  kind: 'admin' | 'trial';
  created_at: string;
  owner?: string;
  note?: string;
  expires_at?: string;
  rate_limit?: RateLimit;
  /** Lifetime compute-unit quota (trial keys). */
  quota_cu?: number;
  revoked_at?: string;
}

export interface AuditEntry {
  at: string;
  action: string;
  target: string;
  actor: string | null;
  client: string | null;
  request_id: string;
  detail?: Record<string, unknown>;
}

export type BatchResult =
  | { status: 'ok'; result: unknown }
  | { status: 'error'; error: { code: 'unsupported_program' | 'invalid_household' | 'runtime_error' | 'invalid_request'; message: string; assumptions?: unknown[] } };

export interface JobRecord {
  id: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  created_at: string;
  started_at?: string;
  finished_at?: string;
  total: number;
  completed: number;
  api_key_id: string | null;
  requests: CalculateRequest[];
  /** Positional; null until the entry finished. */
  results: (BatchResult | null)[];
  error?: string;
}

/** A job without its results: what running its entries and finishing it needs (its results grow to hundreds of KB). */
export type JobSummary = Omit<JobRecord, 'results'>;

export interface ValidationRun {
  id: string;
  kind: string;
  recorded_at: string;
  contract_hash: string;
  api_version: string | null;
  base_url: string | null;
  model_versions: Record<string, unknown> | null;
  totals: { variables: number; covered: number; parity_match: number; parity_diff: number; drift_diff: number; uncovered: number };
  avg_case_latency_ms: number | null;
  rows: Record<string, unknown>[];
  cases: Record<string, unknown>[];
}

export interface KillSwitch {
  switch: 'trial_traffic' | 'trial_mint';
  engaged: boolean;
  reason: string | null;
  changed_at: string | null;
  changed_by: string | null;
}

export interface WindowCount {
  count: number;
  /** When the current fixed window ends (ms since epoch). */
  reset_at: number;
}

export interface Store {
  readonly kind: 'memory' | 'sqlite' | 'redis';
  /** True when what is written survives a restart (and, for a shared store, other instances see it). */
  readonly durable: boolean;

  /** Resolves when the store can serve: it reads and, where a write can fail on its own (a disk), writes. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Delete what has outlived its retention period. */
  sweep(now: number): Promise<void>;

  /** Count one hit in the fixed window of `bucket` that contains `now`. */
  hit(bucket: string, windowSeconds: number, now: number): Promise<WindowCount>;
  /** Read the current window of `bucket` without counting. */
  peek(bucket: string, windowSeconds: number, now: number): Promise<WindowCount>;

  createKey(key: StoredKey): Promise<boolean>; // false: the id exists
  listKeys(): Promise<StoredKey[]>;
  revokeKey(id: string, at: string): Promise<StoredKey | undefined>;
  addComputeUnits(keyId: string, units: number): Promise<number>; // lifetime total after adding
  computeUnits(keyId: string): Promise<number>;

  addUsage(month: string, keyId: string, requests: number): Promise<void>;
  usage(month: string): Promise<{ api_key_id: string; requests: number }[]>;

  addAudit(entry: AuditEntry): Promise<void>;
  audit(limit: number): Promise<AuditEntry[]>; // newest first

  createJob(job: JobRecord): Promise<void>;
  job(id: string): Promise<JobRecord | undefined>;
  jobSummary(id: string): Promise<JobSummary | undefined>;
  /** Entry `index`'s result: null until it finished, undefined when there is no such job. */
  jobResult(id: string, index: number): Promise<BatchResult | null | undefined>;
  /** Record progress: fields to change, and optionally one finished entry. */
  updateJob(id: string, patch: Partial<Pick<JobRecord, 'status' | 'started_at' | 'finished_at' | 'error'>>, entry?: { index: number; result: BatchResult }): Promise<void>;
  unfinishedJobs(): Promise<JobRecord[]>;

  addValidationRun(run: ValidationRun): Promise<void>;
  validationRuns(): Promise<ValidationRun[]>; // newest first
  validationRun(id: string): Promise<ValidationRun | undefined>;

  putSnapshot(instanceId: string, snapshot: Record<string, unknown>, at: number): Promise<void>;
  snapshots(since: number): Promise<Record<string, unknown>[]>;

  killSwitches(): Promise<KillSwitch[]>;
  setKillSwitch(s: KillSwitch): Promise<void>;

  /**
   * Only for a store shared by several instances: call `listener` when another instance may have
   * issued or revoked a key, so key caches are dropped at once instead of at their next refresh.
   * `failed` hears each attempt to subscribe that failed (the store tries again).
   */
  watchKeys?(listener: () => void, failed: (error: unknown) => void): void;
}

/** Retention periods (Rules API, Limits). */
export const RETENTION = {
  jobsMs: 24 * 3600_000,
  auditMs: 90 * 24 * 3600_000,
  validationRunsMs: 180 * 24 * 3600_000,
  usageMonths: 13,
  snapshotsMs: 24 * 3600_000,
};

export function windowOf(windowSeconds: number, now: number): { start: number; reset_at: number } {
  const size = windowSeconds * 1000;
  const start = Math.floor(now / size) * size;
  return { start, reset_at: start + size };
}
