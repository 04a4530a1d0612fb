import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, SchemaVersionError } from './migrations.js';
import { type AuditEntry, type BatchResult, type JobRecord, type JobSummary, type KillSwitch, RETENTION, type Store, StoreDamagedError, StoreUnavailableError, type StoredKey, type ValidationRun, type WindowCount, windowOf } from './store.js';

// Embedded durable store: one SQLite file, shared safely by every process that opens it.
// better-sqlite3 is synchronous, so each method does its work before returning an already
// settled promise; with `synchronous = FULL` a write is on disk before the promise resolves.
// Counter hits (the rate limit, failed authentication, a trial key's day) are the exception:
// one per request, they are committed without waiting for the disk (see `hit`).
// Multi-statement writes run in IMMEDIATE transactions (the write lock is taken up front, so a
// concurrent writer waits for `busy_timeout` instead of failing on a stale read snapshot).

export { SchemaVersionError } from './migrations.js';

const DAY_MS = 24 * 3600_000;
/** Counter windows are kept this long after they end. */
const COUNTER_GRACE_MS = 2 * DAY_MS;
/** Analytics snapshots are kept this long after they were taken. */
const SNAPSHOT_RETENTION_MS = DAY_MS;

/** SQLite result codes (base names) that mean the database cannot be used right now. */
const UNAVAILABLE_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_NOLFS', 'SQLITE_PROTOCOL']);

/** Codes that mean the file itself is damaged, not merely out of reach. */
const DAMAGED_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

const baseCode = (error: InstanceType<typeof Database.SqliteError>) => error.code.split('_').slice(0, 2).join('_');

/** How long one write probe's outcome answers readiness (so /v1/ready cannot make the disk flush at will). */
const PROBE_INTERVAL_MS = 1_000;
/** The counter bucket the write probe updates (swept like any counter). */
const PROBE_BUCKET = 'store:write-probe';
/** How often readiness checks the whole file again on a connection of its own, at the least (and
 *  at most a twentieth of the time: a large file's check takes longer, and runs less often). */
const FILE_CHECK_INTERVAL_MS = 2_000;
const FILE_CHECK_DUTY = 20;

function damaged(file: string, detail: string): StoreDamagedError {
  return new StoreDamagedError(
    `SQLite store ${file} is damaged (${detail}): stop every process using it, then restore it from a backup, or move it and its -wal and -shm files aside to start with an empty store (its keys, jobs, usage and audit are then lost)`,
  );
}

/**
 * A quick integrity check of the whole file (every page read, the b-trees' structure checked):
 * pages damaged behind an intact header would otherwise only show when a request reads them.
 * Undefined when the file is sound, else the first problem, on one line.
 */
function integrityProblem(db: Database.Database): string | undefined {
  let problems: string[];
  try {
    problems = (db.pragma('quick_check(1)') as { quick_check: string }[]).map((r) => r.quick_check.replace(/\*\*\* in database \w+ \*\*\*/g, '').replace(/\s+/g, ' ').trim());
  } catch (error) {
    if (error instanceof Database.SqliteError && DAMAGED_CODES.has(baseCode(error))) return error.message;
    throw error;
  }
  return problems.join() === 'ok' ? undefined : `integrity check: ${problems.join('; ')}`;
}

function checkIntegrity(db: Database.Database, file: string): void {
  const problem = integrityProblem(db);
  if (problem !== undefined) throw damaged(file, problem);
}

function isUnavailable(error: unknown): boolean {
  if (error instanceof Database.SqliteError) return UNAVAILABLE_CODES.has(baseCode(error));
  return false;
}

function unavailable(error: unknown): StoreUnavailableError {
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`SQLite store unavailable: ${message}`, { cause: error });
}

/** Date.parse, with NaN (unparseable) stored as NULL. */
function ms(iso: string): number | null {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

const json = (v: unknown): string => JSON.stringify(v);
const parse = <T>(s: string): T => JSON.parse(s) as T;
/** Every column of `jobs` but `results`. */
const JOB_SUMMARY_COLUMNS = 'id, status, created_at, started_at, finished_at, total, completed, api_key_id, requests, error';

/** The first month (YYYY-MM) still inside usage retention at `now`. */
function oldestUsageMonth(now: number): string {
  const d = new Date(now);
  const index = d.getUTCFullYear() * 12 + d.getUTCMonth() - RETENTION.usageMonths;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
}

interface KeyRow {
  id: string;
  key_sha256: string;
  prefix: string;
  scopes: string;
  status: StoredKey['status'];
  kind: StoredKey['kind'];
  created_at: string;
  owner: string | null;
  note: string | null;
  expires_at: string | null;
  rate_limit: string | null;
  quota_cu: number | null;
  revoked_at: string | null;
}

interface AuditRow {
  at: string;
  action: string;
  target: string;
  actor: string | null;
  client: string | null;
  request_id: string;
  detail: string | null;
}

interface JobRow {
  id: string;
  status: JobRecord['status'];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  total: number;
  completed: number;
  api_key_id: string | null;
  requests: string;
  results: string;
  error: string | null;
}

interface RunRow {
  id: string;
  kind: string;
  recorded_at: string;
  contract_hash: string;
  api_version: string | null;
  base_url: string | null;
  model_versions: string | null;
  totals: string;
  avg_case_latency_ms: number | null;
  rows: string;
  cases: string;
}

interface SwitchRow {
  switch: KillSwitch['switch'];
  engaged: number;
  reason: string | null;
  changed_at: string | null;
  changed_by: string | null;
}

function keyFromRow(r: KeyRow): StoredKey {
  const key: StoredKey = { id: r.id, key_sha256: r.key_sha256, prefix: r.prefix, scopes: parse(r.scopes), status: r.status, kind: r.kind, created_at: r.created_at };
  if (r.owner !== null) key.owner = r.owner;
  if (r.note !== null) key.note = r.note;
  if (r.expires_at !== null) key.expires_at = r.expires_at;
  if (r.rate_limit !== null) key.rate_limit = parse(r.rate_limit);
  if (r.quota_cu !== null) key.quota_cu = r.quota_cu;
  if (r.revoked_at !== null) key.revoked_at = r.revoked_at;
  return key;
}

function auditFromRow(r: AuditRow): AuditEntry {
  const entry: AuditEntry = { at: r.at, action: r.action, target: r.target, actor: r.actor, client: r.client, request_id: r.request_id };
  if (r.detail !== null) entry.detail = parse(r.detail);
  return entry;
}

/** A job's row but its results, as a summary. */
function summaryFromRow(r: Omit<JobRow, 'results'>): JobSummary {
  const job: JobSummary = { id: r.id, status: r.status, created_at: r.created_at, total: r.total, completed: r.completed, api_key_id: r.api_key_id, requests: parse(r.requests) };
  if (r.started_at !== null) job.started_at = r.started_at;
  if (r.finished_at !== null) job.finished_at = r.finished_at;
  if (r.error !== null) job.error = r.error;
  return job;
}

/** A job from its row and the rows of the entries finished since it was created (`job_results`). */
function jobFromRow(r: JobRow, finished: { idx: number; result: string }[]): JobRecord {
  const results = parse<(BatchResult | null)[]>(r.results);
  for (const { idx, result } of finished) results[idx] = parse(result);
  const { results: _text, ...summary } = r;
  return { ...summaryFromRow(summary), results };
}

function runFromRow(r: RunRow): ValidationRun {
  return {
    id: r.id,
    kind: r.kind,
    recorded_at: r.recorded_at,
    contract_hash: r.contract_hash,
    api_version: r.api_version,
    base_url: r.base_url,
    model_versions: r.model_versions === null ? null : parse(r.model_versions),
    totals: parse(r.totals),
    avg_case_latency_ms: r.avg_case_latency_ms,
    rows: parse(r.rows),
    cases: parse(r.cases),
  };
}

const switchFromRow = (r: SwitchRow): KillSwitch => ({ switch: r.switch, engaged: r.engaged === 1, reason: r.reason, changed_at: r.changed_at, changed_by: r.changed_by });

const JOB_PATCH_FIELDS = ['status', 'started_at', 'finished_at', 'error'] as const;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly durable = true;
  private closed = false;
  private readonly statements = new Map<string, Database.Statement>();
  /** The last write probe: when, and the error it met. */
  private probe: { at: number; error?: unknown } | undefined;
  /** The last check of the whole file on a connection of its own: when, how long it took, what it found. */
  private fileCheck: { at: number; ms: number; problem?: string } | undefined;

  private constructor(
    private readonly db: Database.Database,
    /** Absolute path of the database file. */
    readonly file: string,
  ) {}

  /**
   * Open (creating if needed, with its folder) the database at `file`, check its integrity and
   * bring its schema up to date. Throws StoreDamagedError when the file is damaged,
   * StoreUnavailableError when it cannot be opened, and SchemaVersionError when it was written by
   * a newer release.
   */
  static open(file: string): SqliteStore {
    const path = file === ':memory:' ? file : resolve(file);
    let db: Database.Database | undefined;
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      db = new Database(path);
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      checkIntegrity(db, path);
      migrate(db, path);
      return new SqliteStore(db, path);
    } catch (error) {
      try {
        db?.close();
      } catch {
        // Already failing: report the original error.
      }
      if (error instanceof SchemaVersionError || error instanceof StoreUnavailableError) throw error;
      if (error instanceof Database.SqliteError && DAMAGED_CODES.has(baseCode(error))) throw damaged(path, error.message);
      if (isUnavailable(error) || (error as NodeJS.ErrnoException | null)?.code?.startsWith('E')) throw unavailable(error);
      throw error;
    }
  }

  /** Run `fn` against the open database, mapping "cannot use the database" failures. */
  private run<T>(fn: () => T): Promise<T> {
    if (this.closed || !this.db.open) return Promise.reject(new StoreUnavailableError(`SQLite store ${this.file} is closed`));
    try {
      return Promise.resolve(fn());
    } catch (error) {
      if (!isUnavailable(error) && this.db.open) return Promise.reject(error);
      this.probe = undefined; // readiness probes again at once
      this.fileCheck = undefined; // and checks the file again
      return Promise.reject(unavailable(error));
    }
  }

  /** A prepared statement, compiled once per store. */
  private sql(source: string): Database.Statement {
    let statement = this.statements.get(source);
    if (!statement) {
      statement = this.db.prepare(source);
      this.statements.set(source, statement);
    }
    return statement;
  }

  /** Run `fn` in an IMMEDIATE transaction. */
  private write<T>(fn: () => T): Promise<T> {
    return this.run(() => this.db.transaction(fn).immediate());
  }

  ping(): Promise<void> {
    return this.run(() => {
      // Reads a page of the file, so a database that became unreadable is noticed.
      this.sql('SELECT MAX(version) FROM schema_migrations').get();
      // A write synced to disk (at most once a second, and again after any operation failed), so
      // a store that reads but cannot write (a full disk, an I/O error) is not ready until a
      // write succeeds again.
      const now = Date.now();
      if (!this.probe || now - this.probe.at >= PROBE_INTERVAL_MS) {
        try {
          const { start } = windowOf(60, now);
          this.sql(
            `INSERT INTO counters (bucket, window_seconds, window_start, count) VALUES (?, 60, ?, 1)
             ON CONFLICT (bucket, window_seconds, window_start) DO UPDATE SET count = count + 1`,
          ).run(PROBE_BUCKET, start);
          this.probe = { at: now };
        } catch (error) {
          this.probe = { at: now, error };
        }
      }
      if (this.probe.error) throw this.probe.error;
      const problem = this.checkFile(now);
      // the log names the file and what to do; the public readiness answer only the result code and the problem
      if (problem !== undefined) throw new StoreUnavailableError(damaged(this.file, problem).message, { cause: new Database.SqliteError(`the file is damaged (${problem})`, 'SQLITE_CORRUPT') });
    });
  }

  /**
   * The whole file checked on a fresh read-only connection, which reads it from the disk (this
   * connection's page cache would hide pages damaged under it), every FILE_CHECK_INTERVAL_MS at
   * most, and at once after an operation failed; the problem found, if any.
   */
  private checkFile(now: number): string | undefined {
    if (this.file === ':memory:') return undefined;
    const last = this.fileCheck;
    if (last && now - last.at < Math.max(FILE_CHECK_INTERVAL_MS, FILE_CHECK_DUTY * last.ms)) return last.problem;
    const started = performance.now();
    let problem: string | undefined;
    let reader: Database.Database | undefined;
    // a file that cannot even be opened is no damage found: the error is the store's (run() says it is unavailable)
    try {
      reader = new Database(this.file, { readonly: true, fileMustExist: true });
      problem = integrityProblem(reader);
    } finally {
      reader?.close();
    }
    this.fileCheck = { at: now, ms: performance.now() - started, problem };
    return problem;
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      try {
        this.db.close();
      } catch (error) {
        return Promise.reject(isUnavailable(error) ? unavailable(error) : error);
      }
    }
    return Promise.resolve();
  }

  sweep(now: number): Promise<void> {
    return this.write(() => {
      this.sql('DELETE FROM jobs WHERE created_ms < ?').run(now - RETENTION.jobsMs);
      // Like MemoryStore: an audit entry or run whose timestamp does not parse is not kept.
      this.sql('DELETE FROM audit WHERE at_ms IS NULL OR at_ms < ?').run(now - RETENTION.auditMs);
      this.sql('DELETE FROM validation_runs WHERE recorded_ms IS NULL OR recorded_ms < ?').run(now - RETENTION.validationRunsMs);
      this.sql('DELETE FROM usage WHERE month < ?').run(oldestUsageMonth(now));
      this.sql('DELETE FROM counters WHERE window_start + window_seconds * 1000 < ?').run(now - COUNTER_GRACE_MS);
      this.sql('DELETE FROM analytics_snapshots WHERE at < ?').run(now - SNAPSHOT_RETENTION_MS);
    });
  }

  hit(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    return this.run(() => {
      // A full fsync per request would cap every authenticated route at the disk's flush rate
      // (about 500 requests/s here). In WAL mode `synchronous = NORMAL` commits to the log
      // without syncing it: a process crash loses no hit, a power cut at most the hits since the
      // log was last synced (by the next durable write or checkpoint), which lets a key a few
      // more requests in that window and nothing else. better-sqlite3 runs one statement at a
      // time, so no other write commits while the setting is relaxed.
      this.db.pragma('synchronous = NORMAL');
      try {
        // One statement: atomic against every other connection to the file.
        const row = this
          .sql(
            `INSERT INTO counters (bucket, window_seconds, window_start, count) VALUES (?, ?, ?, 1)
             ON CONFLICT (bucket, window_seconds, window_start) DO UPDATE SET count = count + 1
             RETURNING count`,
          )
          .get(bucket, windowSeconds, start) as { count: number };
        return { count: row.count, reset_at };
      } finally {
        this.db.pragma('synchronous = FULL');
      }
    });
  }

  peek(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    return this.run(() => {
      const row = this.sql('SELECT count FROM counters WHERE bucket = ? AND window_seconds = ? AND window_start = ?').get(bucket, windowSeconds, start) as { count: number } | undefined;
      return { count: row?.count ?? 0, reset_at };
    });
  }

  createKey(key: StoredKey): Promise<boolean> {
    return this.run(() => {
      const result = this
        .sql(
          `INSERT INTO api_keys (id, key_sha256, prefix, scopes, status, kind, created_at, owner, note, expires_at, rate_limit, quota_cu, revoked_at)
           VALUES (@id, @key_sha256, @prefix, @scopes, @status, @kind, @created_at, @owner, @note, @expires_at, @rate_limit, @quota_cu, @revoked_at)
           ON CONFLICT (id) DO NOTHING`,
        )
        .run({
          id: key.id,
          key_sha256: key.key_sha256,
          prefix: key.prefix,
          scopes: json(key.scopes),
          status: key.status,
          kind: key.kind,
          created_at: key.created_at,
          owner: key.owner ?? null,
          note: key.note ?? null,
          expires_at: key.expires_at ?? null,
          rate_limit: key.rate_limit === undefined ? null : json(key.rate_limit),
          quota_cu: key.quota_cu ?? null,
          revoked_at: key.revoked_at ?? null,
        });
      return result.changes === 1;
    });
  }

  listKeys(): Promise<StoredKey[]> {
    return this.run(() => (this.sql('SELECT * FROM api_keys ORDER BY seq').all() as KeyRow[]).map(keyFromRow));
  }

  revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    return this.write(() => {
      this.sql(`UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ? AND status <> 'revoked'`).run(at, id);
      const row = this.sql('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
      return row && keyFromRow(row);
    });
  }

  addComputeUnits(keyId: string, units: number): Promise<number> {
    return this.run(() => {
      const row = this
        .sql(
          `INSERT INTO compute_units (api_key_id, units) VALUES (?, ?)
           ON CONFLICT (api_key_id) DO UPDATE SET units = units + excluded.units
           RETURNING units`,
        )
        .get(keyId, units) as { units: number };
      return row.units;
    });
  }

  computeUnits(keyId: string): Promise<number> {
    return this.run(() => (this.sql('SELECT units FROM compute_units WHERE api_key_id = ?').get(keyId) as { units: number } | undefined)?.units ?? 0);
  }

  addUsage(month: string, keyId: string, requests: number): Promise<void> {
    return this.run(() => {
      this.sql(
        `INSERT INTO usage (month, api_key_id, requests) VALUES (?, ?, ?)
         ON CONFLICT (month, api_key_id) DO UPDATE SET requests = requests + excluded.requests`,
      ).run(month, keyId, requests);
    });
  }

  usage(month: string): Promise<{ api_key_id: string; requests: number }[]> {
    // Ties keep first-seen order, like MemoryStore's stable sort.
    return this.run(() => this.sql('SELECT api_key_id, requests FROM usage WHERE month = ? ORDER BY requests DESC, seq').all(month) as { api_key_id: string; requests: number }[]);
  }

  addAudit(entry: AuditEntry): Promise<void> {
    return this.run(() => {
      this.sql('INSERT INTO audit (at, at_ms, action, target, actor, client, request_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        entry.at,
        ms(entry.at),
        entry.action,
        entry.target,
        entry.actor,
        entry.client,
        entry.request_id,
        entry.detail === undefined ? null : json(entry.detail),
      );
    });
  }

  audit(limit: number): Promise<AuditEntry[]> {
    // Newest = most recently added, as in MemoryStore (not sorted by `at`).
    return this.run(() => (this.sql('SELECT at, action, target, actor, client, request_id, detail FROM audit ORDER BY seq DESC LIMIT ?').all(Math.max(0, Math.floor(limit))) as AuditRow[]).map(auditFromRow));
  }

  createJob(job: JobRecord): Promise<void> {
    return this.write(() => {
      // Replaces a job with the same id (as MemoryStore does), keeping its place in the order.
      this.sql('DELETE FROM job_results WHERE job_id = ?').run(job.id);
      this.sql(
        `INSERT INTO jobs (id, status, created_at, created_ms, started_at, finished_at, total, completed, api_key_id, requests, results, error)
         VALUES (@id, @status, @created_at, @created_ms, @started_at, @finished_at, @total, @completed, @api_key_id, @requests, @results, @error)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at, created_ms = excluded.created_ms,
           started_at = excluded.started_at, finished_at = excluded.finished_at, total = excluded.total, completed = excluded.completed,
           api_key_id = excluded.api_key_id, requests = excluded.requests, results = excluded.results, error = excluded.error`,
      ).run({
        id: job.id,
        status: job.status,
        created_at: job.created_at,
        created_ms: ms(job.created_at),
        started_at: job.started_at ?? null,
        finished_at: job.finished_at ?? null,
        total: job.total,
        completed: job.completed,
        api_key_id: job.api_key_id,
        requests: json(job.requests),
        results: json(job.results),
        error: job.error ?? null,
      });
    });
  }

  job(id: string): Promise<JobRecord | undefined> {
    return this.run(() => {
      const row = this.sql('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
      return row && jobFromRow(row, this.finishedEntries(id));
    });
  }

  jobSummary(id: string): Promise<JobSummary | undefined> {
    return this.run(() => {
      const row = this.sql(`SELECT ${JOB_SUMMARY_COLUMNS} FROM jobs WHERE id = ?`).get(id) as Omit<JobRow, 'results'> | undefined;
      return row && summaryFromRow(row);
    });
  }

  jobResult(id: string, index: number): Promise<BatchResult | null | undefined> {
    return this.run(() => {
      const row = this.sql(
        `SELECT coalesce((SELECT result FROM job_results WHERE job_id = @id AND idx = @idx), json_extract(results, @path)) AS result FROM jobs WHERE id = @id`,
      ).get({ id, idx: index, path: `$[${index}]` }) as { result: string | null } | undefined;
      return row && (row.result === null ? null : parse<BatchResult>(row.result));
    });
  }

  updateJob(id: string, patch: Partial<Pick<JobRecord, 'status' | 'started_at' | 'finished_at' | 'error'>>, entry?: { index: number; result: BatchResult }): Promise<void> {
    return this.write(() => {
      if (!this.sql('SELECT 1 FROM jobs WHERE id = ?').get(id)) return;
      // A field present in the patch is set (to NULL when its value is undefined), as Object.assign does.
      // `status` is required, so an undefined one leaves it unchanged.
      const fields = JOB_PATCH_FIELDS.filter((f) => Object.hasOwn(patch, f) && (f !== 'status' || patch.status !== undefined));
      if (fields.length) {
        const values = Object.fromEntries(fields.map((f) => [f, patch[f] ?? null]));
        this.sql(`UPDATE jobs SET ${fields.map((f) => `${f} = @${f}`).join(', ')} WHERE id = @id`).run({ ...values, id });
      }
      // Only an entry that is still empty (an index beyond the list is ignored), as a row of its
      // own: rewriting the job's whole list for each entry made a job's writes cost the square of
      // its size (hundreds of KB an entry), blocking the event loop for milliseconds.
      if (entry && Number.isInteger(entry.index) && entry.index >= 0) {
        const added = this.sql(
          `INSERT INTO job_results (job_id, idx, result) SELECT id, @idx, @result FROM jobs WHERE id = @id AND json_type(results, @path) = 'null' ON CONFLICT DO NOTHING`,
        ).run({ id, idx: entry.index, path: `$[${entry.index}]`, result: json(entry.result) });
        if (added.changes) this.sql('UPDATE jobs SET completed = completed + 1 WHERE id = ?').run(id);
      }
    });
  }

  unfinishedJobs(): Promise<JobRecord[]> {
    return this.run(() => (this.sql(`SELECT * FROM jobs WHERE status IN ('pending', 'running') ORDER BY seq`).all() as JobRow[]).map((row) => jobFromRow(row, this.finishedEntries(row.id))));
  }

  private finishedEntries(jobId: string): { idx: number; result: string }[] {
    return this.sql('SELECT idx, result FROM job_results WHERE job_id = ?').all(jobId) as { idx: number; result: string }[];
  }

  addValidationRun(run: ValidationRun): Promise<void> {
    return this.run(() => {
      this.sql(
        `INSERT INTO validation_runs (id, kind, recorded_at, recorded_ms, contract_hash, api_version, base_url, model_versions, totals, avg_case_latency_ms, rows, cases)
         VALUES (@id, @kind, @recorded_at, @recorded_ms, @contract_hash, @api_version, @base_url, @model_versions, @totals, @avg_case_latency_ms, @rows, @cases)`,
      ).run({
        id: run.id,
        kind: run.kind,
        recorded_at: run.recorded_at,
        recorded_ms: ms(run.recorded_at),
        contract_hash: run.contract_hash,
        api_version: run.api_version,
        base_url: run.base_url,
        model_versions: run.model_versions === null ? null : json(run.model_versions),
        totals: json(run.totals),
        avg_case_latency_ms: run.avg_case_latency_ms,
        rows: json(run.rows),
        cases: json(run.cases),
      });
    });
  }

  validationRuns(): Promise<ValidationRun[]> {
    // Newest = most recently added, as in MemoryStore.
    return this.run(() => (this.sql('SELECT * FROM validation_runs ORDER BY seq DESC').all() as RunRow[]).map(runFromRow));
  }

  validationRun(id: string): Promise<ValidationRun | undefined> {
    return this.run(() => {
      const row = this.sql('SELECT * FROM validation_runs WHERE id = ? ORDER BY seq LIMIT 1').get(id) as RunRow | undefined;
      return row && runFromRow(row);
    });
  }

  putSnapshot(instanceId: string, snapshot: Record<string, unknown>, at: number): Promise<void> {
    return this.run(() => {
      this.sql(
        `INSERT INTO analytics_snapshots (instance_id, at, snapshot) VALUES (?, ?, ?)
         ON CONFLICT (instance_id) DO UPDATE SET at = excluded.at, snapshot = excluded.snapshot`,
      ).run(instanceId, at, json(snapshot));
    });
  }

  snapshots(since: number): Promise<Record<string, unknown>[]> {
    return this.run(() => (this.sql('SELECT snapshot FROM analytics_snapshots WHERE at >= ? ORDER BY seq').all(since) as { snapshot: string }[]).map((r) => parse<Record<string, unknown>>(r.snapshot)));
  }

  killSwitches(): Promise<KillSwitch[]> {
    return this.run(() => (this.sql('SELECT switch, engaged, reason, changed_at, changed_by FROM kill_switches ORDER BY seq').all() as SwitchRow[]).map(switchFromRow));
  }

  setKillSwitch(s: KillSwitch): Promise<void> {
    return this.run(() => {
      this.sql(
        `INSERT INTO kill_switches (switch, engaged, reason, changed_at, changed_by) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (switch) DO UPDATE SET engaged = excluded.engaged, reason = excluded.reason, changed_at = excluded.changed_at, changed_by = excluded.changed_by`,
      ).run(s.switch, s.engaged ? 1 : 0, s.reason, s.changed_at, s.changed_by);
    });
  }
}
