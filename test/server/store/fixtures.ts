import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry, JobRecord, StoredKey, ValidationRun } from '../../../server/store/store.js';

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;
/** A fixed clock: tests never depend on the real time. */
export const NOW = Date.parse('2025-06-15T12:00:00.000Z');
export const iso = (ms: number): string => new Date(ms).toISOString();

/** Temporary folders, removed by `cleanup()`. */
export function tempDirs(): { make(): string; cleanup(): void } {
  const dirs: string[] = [];
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), 'rules-store-'));
      dirs.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function key(id: string, extra: Partial<StoredKey> = {}): StoredKey {
  return { id, key_sha256: `sha256-of-${id}`, prefix: `rk_${id.slice(0, 4)}`, scopes: ['calculate'], status: 'active', kind: 'trial', created_at: iso(NOW), ...extra };
}

export function fullKey(id: string): StoredKey {
  return key(id, {
    scopes: ['calculate', 'admin:keys'],
    kind: 'admin',
    owner: 'ops@example.org',
    note: 'a note with "quotes" and ünïcode',
    expires_at: iso(NOW + 30 * DAY),
    rate_limit: { requests: 100, window_seconds: 60 },
    quota_cu: 1234.5,
  });
}

export function audit(n: number, at = iso(NOW + n * 1000), extra: Partial<AuditEntry> = {}): AuditEntry {
  return { at, action: `action.${n}`, target: `target-${n}`, actor: n % 2 ? `key-${n}` : null, client: n % 3 ? '10.0.0.1' : null, request_id: `req-${n}`, ...extra };
}

export function job(id: string, total = 3, extra: Partial<JobRecord> = {}): JobRecord {
  return {
    id,
    status: 'pending',
    created_at: iso(NOW),
    total,
    completed: 0,
    api_key_id: 'key-1',
    requests: Array.from({ length: total }, (_, i) => ({ program_id: 'snap', jurisdiction: 'us', household: { people: [{ age: 30 + i }] }, variables: ['benefit'] })),
    results: Array.from({ length: total }, () => null),
    ...extra,
  };
}

export function run(id: string, recorded_at = iso(NOW), extra: Partial<ValidationRun> = {}): ValidationRun {
  return {
    id,
    kind: 'parity',
    recorded_at,
    contract_hash: `hash-${id}`,
    api_version: '1.2.3',
    base_url: 'https://api.example.org',
    model_versions: { snap: '2025.1' },
    totals: { variables: 10, covered: 8, parity_match: 7, parity_diff: 1, drift_diff: 0, uncovered: 2 },
    avg_case_latency_ms: 12.5,
    rows: [{ variable: 'benefit', match: true }],
    cases: [{ case: 1, inputs: { income: 1000 } }],
    ...extra,
  };
}
