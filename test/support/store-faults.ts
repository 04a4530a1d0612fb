import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { SqliteStore } from '../../server/store/sqlite.js';

// Real faults of a SQLite store file, for the tests that check the daemon notices them.

const PAGE = 4096;

/** Bytes of a store file that hold audit entries and nothing else. */
export interface AuditPages {
  file: string;
  start: number;
  end: number;
}

/**
 * Make the SQLite store at `file` (created if missing) hold audit entries past the size the file
 * had without them: overwriting those pages leaves the header, the schema and the migration
 * record intact, so the file still opens and reads its schema version, as a file damaged on disk
 * does until something reads the damaged pages. Audit entries are written after everything else,
 * so they alone fill those pages.
 */
export async function fillAuditPages(file: string): Promise<AuditPages> {
  await SqliteStore.open(file).close();
  const start = statSync(file).size;
  const store = SqliteStore.open(file);
  for (let i = 0; i < 300; i++) {
    await store.addAudit({ at: new Date().toISOString(), action: 'test.filler', target: `t${i}`, actor: null, client: null, request_id: `r${i}`, detail: { filler: 'x'.repeat(40) } });
  }
  await store.close();
  const end = statSync(file).size;
  if (end - start < 4 * PAGE) throw new Error(`the audit entries took only ${end - start} bytes`);
  return { file, start, end };
}

/** Overwrite the audit pages with garbage (on disk, under any process that has the file open); the bytes they held, to put back. */
export function damagePages({ file, start, end }: AuditPages): Buffer {
  const fd = openSync(file, 'r+');
  try {
    const original = Buffer.alloc(end - start);
    readSync(fd, original, 0, original.length, start);
    for (let offset = start; offset < end; offset += PAGE) writeSync(fd, Buffer.alloc(PAGE, 0xa5), 0, PAGE, offset);
    return original;
  } finally {
    closeSync(fd);
  }
}

/** Put back the bytes `damagePages` overwrote. */
export function repairPages({ file, start }: AuditPages, original: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, original, 0, original.length, start);
  } finally {
    closeSync(fd);
  }
}

/** A store file whose audit pages are damaged behind an intact header. */
export async function damageStorePages(file: string): Promise<void> {
  damagePages(await fillAuditPages(file));
}
