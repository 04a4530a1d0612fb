import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { SqliteStore } from '../../server/store/sqlite.js';

// Real faults of a SQLite store file, for the tests that check the daemon notices them.

const PAGE = 4096;

/**
 * Make the SQLite store at `file` (created if missing) hold audit entries whose pages are then
 * overwritten, while the header, the schema and the migration record stay intact: the file still
 * opens and reads its schema version, as a file damaged on disk does until something reads the
 * damaged pages. Audit entries are written after everything else, so they alone fill the pages
 * past the size the file had without them.
 */
export async function damageStorePages(file: string): Promise<void> {
  await SqliteStore.open(file).close();
  const before = statSync(file).size;
  const store = SqliteStore.open(file);
  for (let i = 0; i < 300; i++) {
    await store.addAudit({ at: new Date().toISOString(), action: 'test.filler', target: `t${i}`, actor: null, client: null, request_id: `r${i}`, detail: { filler: 'x'.repeat(40) } });
  }
  await store.close();
  const after = statSync(file).size;
  if (after - before < 4 * PAGE) throw new Error(`the audit entries took only ${after - before} bytes`);
  const fd = openSync(file, 'r+');
  for (let offset = before; offset < after; offset += PAGE) writeSync(fd, Buffer.alloc(PAGE, 0xa5), 0, PAGE, offset);
  closeSync(fd);
}
