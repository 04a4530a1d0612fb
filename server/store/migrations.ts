import type Database from 'better-sqlite3';

// Versioned schema of the SQLite store. Migrations are append-only: never edit one that has
// shipped, add the next version instead. Each runs in its own IMMEDIATE transaction together
// with the row that records it in `schema_migrations`, so a database is always at exactly one
// version, and two processes opening the same file at once cannot both apply a migration.

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

/** The database was written by a newer release than this code: refuse it rather than guess. */
export class SchemaVersionError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(`SQLite store ${file} is at schema version ${found}, but this release only knows versions up to ${supported}; upgrade the daemon (or point it at another file)`);
    this.name = 'SchemaVersionError';
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'initial schema',
    up(db) {
      db.exec(`
        CREATE TABLE counters (
          bucket         TEXT    NOT NULL,
          window_seconds INTEGER NOT NULL,
          window_start   INTEGER NOT NULL, -- ms since epoch
          count          INTEGER NOT NULL,
          PRIMARY KEY (bucket, window_seconds, window_start)
        ) WITHOUT ROWID;

        CREATE TABLE api_keys (
          seq        INTEGER PRIMARY KEY, -- insertion order
          id         TEXT    NOT NULL UNIQUE,
          key_sha256 TEXT    NOT NULL,
          prefix     TEXT    NOT NULL,
          scopes     TEXT    NOT NULL, -- JSON string[]
          status     TEXT    NOT NULL CHECK (status IN ('active', 'revoked')),
          kind       TEXT    NOT NULL CHECK (kind IN ('admin', 'trial')),
          created_at TEXT    NOT NULL,
          owner      TEXT,
          note       TEXT,
          expires_at TEXT,
          rate_limit TEXT,             -- JSON { requests, window_seconds }
          quota_cu   REAL,
          revoked_at TEXT
        );

        CREATE TABLE compute_units (
          api_key_id TEXT PRIMARY KEY,
          units      REAL NOT NULL
        );

        CREATE TABLE usage (
          seq        INTEGER PRIMARY KEY,
          month      TEXT NOT NULL, -- YYYY-MM
          api_key_id TEXT NOT NULL,
          requests   REAL NOT NULL,
          UNIQUE (month, api_key_id)
        );

        CREATE TABLE audit (
          seq        INTEGER PRIMARY KEY AUTOINCREMENT,
          at         TEXT    NOT NULL,
          at_ms      REAL,    -- Date.parse(at), for retention; NULL when unparseable
          action     TEXT    NOT NULL,
          target     TEXT    NOT NULL,
          actor      TEXT,
          client     TEXT,
          request_id TEXT    NOT NULL,
          detail     TEXT              -- JSON object
        );
        CREATE INDEX audit_at_ms ON audit (at_ms);

        CREATE TABLE jobs (
          seq         INTEGER PRIMARY KEY,
          id          TEXT    NOT NULL UNIQUE,
          status      TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
          created_at  TEXT    NOT NULL,
          created_ms  REAL,   -- Date.parse(created_at), for retention
          started_at  TEXT,
          finished_at TEXT,
          total       INTEGER NOT NULL,
          completed   INTEGER NOT NULL,
          api_key_id  TEXT,
          requests    TEXT    NOT NULL, -- JSON CalculateRequest[]
          results     TEXT    NOT NULL, -- JSON (BatchResult | null)[]
          error       TEXT
        );
        CREATE INDEX jobs_status ON jobs (status);
        CREATE INDEX jobs_created_ms ON jobs (created_ms);

        CREATE TABLE validation_runs (
          seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
          id                  TEXT NOT NULL, -- not UNIQUE: mirrors MemoryStore, first one wins on read
          kind                TEXT NOT NULL,
          recorded_at         TEXT NOT NULL,
          recorded_ms         REAL,
          contract_hash       TEXT NOT NULL,
          api_version         TEXT,
          base_url            TEXT,
          model_versions      TEXT, -- JSON object
          totals              TEXT NOT NULL, -- JSON
          avg_case_latency_ms REAL,
          rows                TEXT NOT NULL, -- JSON array
          cases               TEXT NOT NULL  -- JSON array
        );
        CREATE INDEX validation_runs_id ON validation_runs (id);
        CREATE INDEX validation_runs_recorded_ms ON validation_runs (recorded_ms);

        CREATE TABLE analytics_snapshots (
          seq         INTEGER PRIMARY KEY,
          instance_id TEXT    NOT NULL UNIQUE,
          at          REAL    NOT NULL, -- ms since epoch
          snapshot    TEXT    NOT NULL  -- JSON object
        );

        CREATE TABLE kill_switches (
          seq        INTEGER PRIMARY KEY,
          switch     TEXT    NOT NULL UNIQUE,
          engaged    INTEGER NOT NULL CHECK (engaged IN (0, 1)),
          reason     TEXT,
          changed_at TEXT,
          changed_by TEXT
        );
      `);
    },
  },
  {
    version: 2,
    description: 'job entry results in rows of their own',
    up(db) {
      // A job's `results` column keeps what the job was created with; each entry finished since is
      // a row here (writing one entry rewrote the whole list, hundreds of KB, for every entry).
      db.exec(`
        CREATE TABLE job_results (
          job_id TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
          idx    INTEGER NOT NULL,
          result TEXT    NOT NULL, -- JSON BatchResult
          PRIMARY KEY (job_id, idx)
        ) WITHOUT ROWID;
      `);
    },
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The schema version recorded in the database, 0 for an empty one. */
export function schemaVersion(db: Database.Database): number {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
  if (!table) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Bring the database up to the newest version in `migrations` (ordered, versions strictly
 * increasing). Throws SchemaVersionError when the database is newer than `migrations` knows.
 */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number {
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version <= migrations[i - 1]!.version) throw new Error(`migrations out of order at version ${migrations[i]!.version}`);
  }
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const current = schemaVersion(db);
  if (current > latest) throw new SchemaVersionError(file, current, latest);

  for (const m of migrations) {
    // Re-read the version inside the write lock: another process may have just migrated.
    db.transaction(() => {
      const now = schemaVersion(db);
      if (now > latest) throw new SchemaVersionError(file, now, latest);
      if (now >= m.version) return;
      m.up(db);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(m.version, new Date().toISOString());
    }).immediate();
  }
  return schemaVersion(db);
}
