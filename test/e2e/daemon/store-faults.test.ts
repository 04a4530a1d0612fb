import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { cleanEnv, request, serve, type Served } from '../../support/daemon.js';
import { sleep } from '../../support/lab.js';
import { CLI } from '../../support/paths.js';
import { damagePages, damageStorePages, fillAuditPages, repairPages } from '../../support/store-faults.js';

// Readiness that tells the truth about the SQLite store, on a real daemon: a damaged file stops
// the start; a store that can no longer write makes /v1/ready 503 (naming the store, logged) until
// a write succeeds again.
//
// The disk is filled for real as far as the daemon can tell: its file-size limit (RLIMIT_FSIZE,
// set with prlimit on the running process) is lowered to the size of its write-ahead log, so the
// kernel refuses every write that needs more room (EFBIG; a full disk's ENOSPC takes the same path
// through SQLite), and raised again to end the fault. A tmpfs cannot be mounted here.

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'rules-store-faults-'));

/** The daemon's JSON log lines so far. */
const jsonLog = (served: Served) =>
  served
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });

/** Poll /v1/ready until its status is `status`; how long that took. */
async function readyBecomes(served: Served, status: number, withinMs: number) {
  const started = Date.now();
  for (;;) {
    const answer = await request(served, 'GET', '/v1/ready');
    if (answer.status === status) return { answer, ms: Date.now() - started };
    if (Date.now() - started > withinMs) throw new Error(`/v1/ready stayed ${answer.status} for ${withinMs} ms: ${JSON.stringify(answer.body)}`);
    await sleep(200);
  }
}

describe('a damaged SQLite store', () => {
  test('stops the start with exit 2 and one line saying what to do', async () => {
    const dataDir = tempDir();
    await damageStorePages(path.join(dataDir, 'rules.db'));
    const run = await execa(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], { reject: false, env: cleanEnv(), extendEnv: false, timeout: 60_000 });
    expect(run.exitCode).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^rules: SQLite store .*rules\.db is damaged \(integrity check: .+\): stop every process using it, then restore it from a backup, or move it and its -wal and -shm files aside/);
  });
});

describe('a SQLite store damaged while the daemon runs', () => {
  test('/v1/ready is 503 naming the store and the damage within 5 s, the log names the file and what to do, and it is ready again once the file is repaired', async () => {
    const dataDir = tempDir();
    const pages = await fillAuditPages(path.join(dataDir, 'rules.db'));
    const served = await serve({ dataDir, env: { RULES_LOG_FORMAT: 'json' }, keys: [{ id: 'ops', key: 'store-faults-test-key-000000000000000002', scopes: ['*'] }] });
    try {
      expect((await request(served, 'GET', '/v1/ready')).status).toBe(200);
      const original = damagePages(pages);

      const down = await readyBecomes(served, 503, 5_000);
      expect(down.answer.body.error.message).toMatch(/shared_counter_store unavailable \(the sqlite store cannot read or write its database \(SQLITE_CORRUPT: the file is damaged \(/);
      expect(down.answer.body.error.message).not.toContain(dataDir); // a public answer does not say where the file is
      await sleep(200);
      const logged = jsonLog(served);
      expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: expect.stringContaining(`store error while checking readiness: SQLite store ${pages.file} is damaged (`) }));

      repairPages(pages, original);
      const up = await readyBecomes(served, 200, 5_000);
      expect(up.answer.body.data.ready).toBe(true);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});

describe('a SQLite store that cannot write (its disk full)', () => {
  test('/v1/ready is 503 naming the store within 5 s, the cause is logged, and it is ready again once a write succeeds', async () => {
    // a key configured, so that the store is the one thing readiness can find wrong
    const served = await serve({ env: { RULES_LOG_FORMAT: 'json' }, keys: [{ id: 'ops', key: 'store-faults-test-key-000000000000000001', scopes: ['*'] }] });
    try {
      expect((await request(served, 'GET', '/v1/ready')).status).toBe(200);
      const pid = served.process.pid!;
      const wal = statSync(path.join(served.dataDir, 'rules.db-wal')).size;
      execFileSync('prlimit', ['--pid', String(pid), `--fsize=${wal}:unlimited`]);

      const down = await readyBecomes(served, 503, 5_000);
      expect(down.answer.body.error.code).toBe('not_ready');
      expect(down.answer.body.error.message).toMatch(/shared_counter_store unavailable \(the sqlite store cannot read or write its database \(SQLITE_(FULL|IOERR\w*): /);
      const store = down.answer.body.data.dependencies.find((d: { name: string }) => d.name === 'shared_counter_store');
      expect(store).toMatchObject({ status: 'unavailable', detail: expect.stringMatching(/^the sqlite store cannot read or write its database \(SQLITE_/) });
      // what needs a write is refused, and the refusal is logged with its cause
      expect((await request(served, 'POST', '/v1/keys/trial')).body.error.code).toBe('store_unavailable');
      await sleep(200);
      const logged = jsonLog(served);
      // once a minute, however often readiness was asked
      expect(logged.filter((l) => l.msg.startsWith('store error while checking readiness'))).toEqual([expect.objectContaining({ level: 50, msg: expect.stringMatching(/^store error while checking readiness: SQLite store unavailable: /) })]);
      expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: expect.stringMatching(/^store error while answering POST \/v1\/keys\/trial: SQLite store unavailable: /) }));

      execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:unlimited']);
      const up = await readyBecomes(served, 200, 5_000);
      expect(up.answer.body.data.ready).toBe(true);
      expect((await request(served, 'POST', '/v1/keys/trial')).status).toBe(201);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});
