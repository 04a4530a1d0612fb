import { type AuditEntry, type BatchResult, type JobRecord, type JobSummary, type KillSwitch, RETENTION, type Store, type StoredKey, type ValidationRun, type WindowCount, windowOf } from './store.js';

// Per-process store for tests and throwaway runs: nothing survives a restart (`durable: false`).

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly durable = false;
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly keys = new Map<string, StoredKey>();
  private readonly units = new Map<string, number>();
  private readonly usageRows = new Map<string, Map<string, number>>();
  private auditLog: AuditEntry[] = [];
  private readonly jobs = new Map<string, JobRecord>();
  private runs: ValidationRun[] = [];
  private readonly snaps = new Map<string, { at: number; snapshot: Record<string, unknown> }>();
  private readonly switches = new Map<string, KillSwitch>();

  async ping(): Promise<void> {}
  async close(): Promise<void> {}

  async sweep(now: number): Promise<void> {
    for (const [id, job] of this.jobs) if (Date.parse(job.created_at) < now - RETENTION.jobsMs) this.jobs.delete(id);
    this.auditLog = this.auditLog.filter((e) => Date.parse(e.at) >= now - RETENTION.auditMs);
    this.runs = this.runs.filter((r) => Date.parse(r.recorded_at) >= now - RETENTION.validationRunsMs);
    const today = new Date(now);
    const oldest = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - RETENTION.usageMonths, 1)).toISOString().slice(0, 7);
    for (const month of this.usageRows.keys()) if (month < oldest) this.usageRows.delete(month);
    for (const [bucket, w] of this.windows) {
      const windowMs = Number(bucket.slice(bucket.lastIndexOf('@') + 1)) * 1000;
      if (w.start + windowMs < now - 2 * 24 * 3600_000) this.windows.delete(bucket);
    }
    for (const [id, s] of this.snaps) if (s.at < now - RETENTION.snapshotsMs) this.snaps.delete(id);
  }

  async hit(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    const key = `${bucket}@${windowSeconds}`;
    const w = this.windows.get(key);
    const count = w && w.start === start ? w.count + 1 : 1;
    this.windows.set(key, { start, count });
    return { count, reset_at };
  }

  async peek(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    const w = this.windows.get(`${bucket}@${windowSeconds}`);
    return { count: w && w.start === start ? w.count : 0, reset_at };
  }

  async createKey(key: StoredKey): Promise<boolean> {
    if (this.keys.has(key.id)) return false;
    this.keys.set(key.id, clone(key));
    return true;
  }

  async listKeys(): Promise<StoredKey[]> {
    return [...this.keys.values()].map(clone);
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    const key = this.keys.get(id);
    if (!key) return undefined;
    if (key.status !== 'revoked') Object.assign(key, { status: 'revoked', revoked_at: at });
    return clone(key);
  }

  async addComputeUnits(keyId: string, units: number): Promise<number> {
    const total = (this.units.get(keyId) ?? 0) + units;
    this.units.set(keyId, total);
    return total;
  }

  async computeUnits(keyId: string): Promise<number> {
    return this.units.get(keyId) ?? 0;
  }

  async addUsage(month: string, keyId: string, requests: number): Promise<void> {
    const rows = this.usageRows.get(month) ?? new Map<string, number>();
    rows.set(keyId, (rows.get(keyId) ?? 0) + requests);
    this.usageRows.set(month, rows);
  }

  async usage(month: string): Promise<{ api_key_id: string; requests: number }[]> {
    return [...(this.usageRows.get(month) ?? new Map<string, number>())].map(([api_key_id, requests]) => ({ api_key_id, requests })).sort((a, b) => b.requests - a.requests);
  }

  async addAudit(entry: AuditEntry): Promise<void> {
    this.auditLog.push(clone(entry));
  }

  async audit(limit: number): Promise<AuditEntry[]> {
    return limit > 0 ? this.auditLog.slice(-limit).reverse().map(clone) : [];
  }

  async createJob(job: JobRecord): Promise<void> {
    this.jobs.set(job.id, clone(job));
  }

  async job(id: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    return job && clone(job);
  }

  async jobSummary(id: string): Promise<JobSummary | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const { results: _results, ...summary } = job;
    return clone(summary);
  }

  async jobResult(id: string, index: number): Promise<BatchResult | null | undefined> {
    const job = this.jobs.get(id);
    return job && clone(job.results[index] ?? null);
  }

  async updateJob(id: string, patch: Partial<Pick<JobRecord, 'status' | 'started_at' | 'finished_at' | 'error'>>, entry?: { index: number; result: BatchResult }): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return;
    const { status, started_at, finished_at, error } = patch;
    Object.assign(job, { ...(status ? { status } : {}), ...('started_at' in patch ? { started_at } : {}), ...('finished_at' in patch ? { finished_at } : {}), ...('error' in patch ? { error } : {}) });
    if (entry && job.results[entry.index] === null) {
      job.results[entry.index] = clone(entry.result);
      job.completed = job.results.filter((r) => r !== null).length;
    }
  }

  async unfinishedJobs(): Promise<JobRecord[]> {
    return [...this.jobs.values()].filter((j) => j.status === 'pending' || j.status === 'running').map(clone);
  }

  async addValidationRun(run: ValidationRun): Promise<void> {
    this.runs.push(clone(run));
  }

  async validationRuns(): Promise<ValidationRun[]> {
    return [...this.runs].reverse().map(clone);
  }

  async validationRun(id: string): Promise<ValidationRun | undefined> {
    const run = this.runs.find((r) => r.id === id);
    return run && clone(run);
  }

  async putSnapshot(instanceId: string, snapshot: Record<string, unknown>, at: number): Promise<void> {
    this.snaps.set(instanceId, { at, snapshot: clone(snapshot) });
  }

  async snapshots(since: number): Promise<Record<string, unknown>[]> {
    return [...this.snaps.values()].filter((s) => s.at >= since).map((s) => clone(s.snapshot));
  }

  async killSwitches(): Promise<KillSwitch[]> {
    return [...this.switches.values()].map(clone);
  }

  async setKillSwitch(s: KillSwitch): Promise<void> {
    this.switches.set(s.switch, clone(s));
  }
}
