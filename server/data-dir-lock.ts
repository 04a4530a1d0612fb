import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

// One daemon per SQLite data dir: two daemons on one store would both resume its unfinished jobs
// and run them twice. The lock is an exclusive SQLite lock (an fcntl lock) on `serve.lock`, held
// for the daemon's life: the kernel drops it when the process ends in any way, kill -9 included,
// so no crash leaves a stale lock behind. `serve.json` beside it says who holds it, for the
// refusal's message. Other commands (`rules keys`) open the store itself, not this file, and keep
// working beside a running daemon.

export class DataDirBusyError extends Error {}

interface Holder {
  pid: number;
  url?: string;
  started_at: string;
}

export class DataDirLock {
  private constructor(
    private readonly db: Database.Database,
    private readonly infoFile: string,
    private holder: Holder,
  ) {}

  /** Take the data dir's lock, or throw DataDirBusyError naming the daemon that holds it. */
  static acquire(dataDir: string): DataDirLock {
    const lockFile = path.join(dataDir, 'serve.lock');
    const infoFile = path.join(dataDir, 'serve.json');
    const db = new Database(lockFile);
    try {
      db.pragma('busy_timeout = 0'); // a held lock is an answer, not something to wait for
      db.pragma('journal_mode = MEMORY');
      db.pragma('locking_mode = EXCLUSIVE'); // the lock stays after the transaction ends
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      db.close();
      if (error instanceof Database.SqliteError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')) {
        throw new DataDirBusyError(`the data dir ${dataDir} is in use by another rules serve (${describe(readHolder(infoFile))}); stop it, or give this one another --data-dir`);
      }
      throw error;
    }
    const lock = new DataDirLock(db, infoFile, { pid: process.pid, started_at: new Date().toISOString() });
    lock.write();
    return lock;
  }

  /** Record where the holder listens, once it does. */
  listening(url: string): void {
    this.holder = { ...this.holder, url };
    this.write();
  }

  release(): void {
    rmSync(this.infoFile, { force: true });
    this.db.close();
  }

  private write(): void {
    writeFileSync(this.infoFile, `${JSON.stringify(this.holder)}\n`);
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined; // the holder has not written it yet, or it was removed
  }
}

function describe(holder: Holder | undefined): string {
  if (!holder) return 'process id unknown';
  return `pid ${holder.pid}, ${holder.url ? `listening on ${holder.url}` : 'not listening yet'}, started ${holder.started_at}`;
}
