import type { Store } from './store/store.js';

// Per-instance request analytics (AnalyticsSnapshot): counted in memory on the hot path,
// flushed to the store in the background (snapshots for the global view, monthly usage per key).

type Buckets = { le_25ms: number; le_100ms: number; le_500ms: number; le_2000ms: number; gt_2000ms: number };

interface RouteStats {
  route: string;
  requests: number;
  success: number;
  client_errors: number;
  server_errors: number;
  total_ms: number;
  max_duration_ms: number;
  latency_buckets: Buckets;
}

interface KeyStats {
  api_key_id: string;
  requests: number;
  rate_limited: number;
  last_used_at: string;
}

export type AuthEvent = 'unauthorized' | 'insufficient_scope' | 'rate_limited' | 'auth_throttled' | 'auth_misconfigured';

export interface AnalyticsSnapshot {
  instance_id: string;
  collected_since: string;
  generated_at: string;
  totals: { requests: number; by_status: Record<string, number> };
  auth_events: Record<AuthEvent, number>;
  store_errors: number;
  routes: (Omit<RouteStats, 'total_ms'> & { avg_duration_ms: number })[];
  keys: KeyStats[];
}

function bucket(ms: number): keyof Buckets {
  if (ms <= 25) return 'le_25ms';
  if (ms <= 100) return 'le_100ms';
  if (ms <= 500) return 'le_500ms';
  if (ms <= 2000) return 'le_2000ms';
  return 'gt_2000ms';
}

export class Analytics {
  private readonly since = new Date().toISOString();
  private requests = 0;
  private readonly byStatus = new Map<number, number>();
  private readonly auth: Record<AuthEvent, number> = { unauthorized: 0, insufficient_scope: 0, rate_limited: 0, auth_throttled: 0, auth_misconfigured: 0 };
  private storeErrors = 0;
  private storeErrorListener: ((error: unknown, during: string) => void) | undefined;
  private readonly routes = new Map<string, RouteStats>();
  private readonly keys = new Map<string, KeyStats>();
  /** Requests per key since the last usage flush (written to the store in batches). */
  private pendingUsage = new Map<string, number>();

  constructor(readonly instanceId: string) {}

  record(route: string, status: number, durationMs: number, keyId: string | undefined): void {
    this.requests++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let r = this.routes.get(route);
    if (!r) {
      r = { route, requests: 0, success: 0, client_errors: 0, server_errors: 0, total_ms: 0, max_duration_ms: 0, latency_buckets: { le_25ms: 0, le_100ms: 0, le_500ms: 0, le_2000ms: 0, gt_2000ms: 0 } };
      this.routes.set(route, r);
    }
    r.requests++;
    if (status >= 500) r.server_errors++;
    else if (status >= 400) r.client_errors++;
    else r.success++;
    r.total_ms += durationMs;
    r.max_duration_ms = Math.max(r.max_duration_ms, durationMs);
    r.latency_buckets[bucket(durationMs)]++;
    if (keyId) {
      const k = this.keys.get(keyId) ?? { api_key_id: keyId, requests: 0, rate_limited: 0, last_used_at: '' };
      k.requests++;
      k.last_used_at = new Date().toISOString();
      this.keys.set(keyId, k);
      this.pendingUsage.set(keyId, (this.pendingUsage.get(keyId) ?? 0) + 1);
    }
  }

  authEvent(event: AuthEvent, keyId?: string): void {
    this.auth[event]++;
    if (event === 'rate_limited' && keyId) {
      const k = this.keys.get(keyId) ?? { api_key_id: keyId, requests: 0, rate_limited: 0, last_used_at: new Date().toISOString() };
      k.rate_limited++;
      this.keys.set(keyId, k);
    }
  }

  /** Count a store operation that failed (`during` says which), and pass it on to the listener (the daemon's log). */
  storeError(error: unknown, during: string): void {
    this.storeErrors++;
    this.storeErrorListener?.(error, during);
  }

  /** Who hears of each store error (one listener: the app logs them, rate-limited). */
  onStoreError(listener: (error: unknown, during: string) => void): void {
    this.storeErrorListener = listener;
  }

  /** Add the requests counted since the last flush to the store's monthly usage, key by key:
   *  a key whose write fails stays pending (nothing is lost, nothing is counted twice). */
  async flushUsage(store: Pick<Store, 'addUsage'>): Promise<void> {
    const pending = this.pendingUsage;
    this.pendingUsage = new Map();
    const month = new Date().toISOString().slice(0, 7);
    try {
      for (const [keyId, requests] of pending) {
        await store.addUsage(month, keyId, requests);
        pending.delete(keyId);
      }
    } finally {
      for (const [k, n] of pending) this.pendingUsage.set(k, (this.pendingUsage.get(k) ?? 0) + n);
    }
  }

  snapshot(): AnalyticsSnapshot {
    return {
      instance_id: this.instanceId,
      collected_since: this.since,
      generated_at: new Date().toISOString(),
      totals: { requests: this.requests, by_status: Object.fromEntries([...this.byStatus].map(([s, n]) => [String(s), n])) },
      auth_events: { ...this.auth },
      store_errors: this.storeErrors,
      routes: [...this.routes.values()]
        .sort((a, b) => b.requests - a.requests)
        .map(({ total_ms, ...r }) => ({ ...r, avg_duration_ms: Math.round((total_ms / r.requests) * 100) / 100, max_duration_ms: Math.round(r.max_duration_ms * 100) / 100 })),
      keys: [...this.keys.values()].sort((a, b) => b.requests - a.requests).map((k) => ({ ...k })),
    };
  }
}
