import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, type Migration, migrate, SCHEMA_VERSION, SchemaVersionError, schemaVersion } from '../../../server/store/migrations.js';
import { SqliteStore } from '../../../server/store/sqlite.js';
import { StoreDamagedError, StoreUnavailableError } from '../../../server/store/store.js';
import { PROJECT } from '../../support/paths.js';
import { sleep } from '../../support/lab.js';
import { damagePages, damageStorePages, fillAuditPages, repairPages } from '../../support/store-faults.js';
import { audit, fullKey, iso, job, key, NOW, run, tempDirs } from './fixtures.js';

// What only a durable, shared SQLite file can promise: data outlives the process, several
// processes share it without losing counts, the schema is versioned, and nothing
// acknowledged is lost when the process is killed.

const temp = tempDirs();
afterAll(() => temp.cleanup());
const dbFile = (): string => join(temp.make(), 'store.db');


/** The built store module, which child processes (plain node, no TypeScript loader) import. */
const BUILT = join(PROJECT, 'dist/server/store/sqlite.js');
function builtModule(): string {
  // The global setup builds dist/; build here only when run without it.
  if (!existsSync(BUILT)) execFileSync(process.execPath, [join(PROJECT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: PROJECT, stdio: 'inherit' });
  return pathToFileURL(BUILT).href;
}

/** Write a child script (plain ESM) that receives the built module's URL and the database file. */
function childScript(body: string): string {
  const file = join(temp.make(), 'child.mjs');
  writeFileSync(file, `const { SqliteStore } = await import(process.argv[2]);\nconst store = SqliteStore.open(process.argv[3]);\n${body}\n`);
  return file;
}

/**
 * Run `count` child processes against `file` at the same time: each opens the store and waits
 * until all are ready before running `body(k)`. Resolves to each child's stdout after "ready".
 */
async function race(file: string, count: number, body: (k: number) => string): Promise<string[]> {
  await SqliteStore.open(file).close(); // create the schema once, before the race
  const url = builtModule();
  const children = Array.from({ length: count }, (_, k) => {
    const script = childScript(`
      process.stdout.write('ready\\n');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdin.pause();
      ${body(k)}
      await store.close();
    `);
    const child = spawn(process.execPath, [script, url, file], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), stdout.startsWith('ready\n') && resolve())));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<{ code: number | null; stdout: () => string; stderr: () => string }>((resolve) => child.on('close', (code) => resolve({ code, stdout: () => stdout.slice('ready\n'.length), stderr: () => stderr })));
    return { child, ready, done };
  });
  await Promise.race([Promise.all(children.map((c) => c.ready)), Promise.all(children.map((c) => c.done)).then((r) => Promise.reject(new Error(r.map((x) => x.stderr()).join('\n'))))]);
  for (const c of children) c.child.stdin.end('go\n');
  const results = await Promise.all(children.map((c) => c.done));
  for (const r of results) expect(r.code, r.stderr()).toBe(0);
  return results.map((r) => r.stdout());
}

describe('SqliteStore durability', () => {
  it('creates the folder and keeps everything across close and reopen', async () => {
    const file = join(temp.make(), 'nested', 'deeper', 'store.db');
    const a = SqliteStore.open(file);
    await a.createKey(fullKey('k1'));
    await a.createKey(key('k2'));
    await a.revokeKey('k2', iso(NOW));
    await a.addComputeUnits('k1', 4);
    await a.addUsage('2025-06', 'k1', 5);
    await a.addAudit(audit(1));
    await a.addAudit(audit(2, undefined, { detail: { x: 1 } }));
    await a.createJob(job('j1'));
    await a.updateJob('j1', { status: 'running', started_at: iso(NOW) }, { index: 1, result: { status: 'ok', result: { v: 1 } } });
    await a.addValidationRun(run('r1'));
    await a.putSnapshot('i1', { n: 1 }, NOW);
    await a.setKillSwitch({ switch: 'trial_traffic', engaged: true, reason: 'load', changed_at: iso(NOW), changed_by: 'ops' });
    await a.hit('b', 60, NOW);
    await a.hit('b', 60, NOW);
    await a.close();

    const b = SqliteStore.open(file);
    expect(await b.listKeys()).toEqual([fullKey('k1'), key('k2', { status: 'revoked', revoked_at: iso(NOW) })]);
    expect(await b.computeUnits('k1')).toBe(4);
    expect(await b.usage('2025-06')).toEqual([{ api_key_id: 'k1', requests: 5 }]);
    expect(await b.audit(10)).toEqual([audit(2, undefined, { detail: { x: 1 } }), audit(1)]);
    expect(await b.job('j1')).toEqual(job('j1', 3, { status: 'running', started_at: iso(NOW), completed: 1, results: [null, { status: 'ok', result: { v: 1 } }, null] }));
    expect(await b.unfinishedJobs()).toHaveLength(1);
    expect(await b.validationRun('r1')).toEqual(run('r1'));
    expect(await b.snapshots(0)).toEqual([{ n: 1 }]);
    expect(await b.killSwitches()).toEqual([{ switch: 'trial_traffic', engaged: true, reason: 'load', changed_at: iso(NOW), changed_by: 'ops' }]);
    expect((await b.hit('b', 60, NOW)).count).toBe(3);
    await b.close();
  });

  it('opens the file in WAL mode with full sync, a busy timeout and foreign keys', async () => {
    const file = dbFile();
    const store = SqliteStore.open(file);
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.close();
  });

  it('commits a counter hit without waiting for the disk, then syncs every other write fully again', async () => {
    const store = SqliteStore.open(dbFile());
    const db = (store as unknown as { db: Database.Database }).db;
    const settings: string[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: Database.PragmaOptions) => {
      if (source.startsWith('synchronous =')) settings.push(source);
      return pragma(source, options);
    }) as typeof db.pragma;
    expect((await store.hit('relaxed', 60, NOW)).count).toBe(1);
    expect(settings).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
    expect(pragma('synchronous', { simple: true })).toBe(2); // FULL for the key written next
    await store.createKey(fullKey('after-hit'));
    expect(settings).toHaveLength(2);
    await store.close();
  });

  it('stores only the key hash: no column can hold a raw key', async () => {
    const file = dbFile();
    const store = SqliteStore.open(file);
    await store.createKey(key('k1'));
    await store.close();
    const db = new Database(file, { readonly: true });
    const columns = (db.pragma('table_info(api_keys)') as { name: string }[]).map((c) => c.name);
    db.close();
    expect(columns).toContain('key_sha256');
    expect(columns.filter((c) => /^(key|raw_key|secret|token)$/.test(c))).toEqual([]);
  });

  it('lets two stores on one file (two instances) see each other and share counters', async () => {
    const file = dbFile();
    const a = SqliteStore.open(file);
    const b = SqliteStore.open(file);
    expect(await a.createKey(key('k1'))).toBe(true);
    expect(await b.createKey(key('k1'))).toBe(false);
    expect((await b.listKeys()).map((k) => k.id)).toEqual(['k1']);
    await b.revokeKey('k1', iso(NOW));
    expect((await a.listKeys())[0]).toMatchObject({ status: 'revoked', revoked_at: iso(NOW) });
    await a.createJob(job('j1', 2));
    await b.updateJob('j1', {}, { index: 0, result: { status: 'ok', result: 1 } });
    await a.updateJob('j1', {}, { index: 1, result: { status: 'ok', result: 2 } });
    expect(await b.job('j1')).toMatchObject({ completed: 2 });
    await a.setKillSwitch({ switch: 'trial_mint', engaged: true, reason: null, changed_at: null, changed_by: null });
    expect(await b.killSwitches()).toHaveLength(1);

    const counts: number[] = [];
    const hits = Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).hit('shared', 60, NOW).then((r) => counts.push(r.count)));
    await Promise.all(hits);
    expect((await a.peek('shared', 60, NOW)).count).toBe(200);
    expect((await b.peek('shared', 60, NOW)).count).toBe(200);
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await a.addComputeUnits('k1', 1);
    await b.addComputeUnits('k1', 2);
    expect(await a.computeUnits('k1')).toBe(3);
    await a.close();
    await b.close();
  });

  it('never loses a count when several processes hit the same file at once', async () => {
    const file = dbFile();
    const perChild = 400;
    const results = await race(file, 4, (k) => `
      const counts = [];
      for (let i = 0; i < ${perChild}; i++) counts.push((await store.hit('race', 3600, ${NOW})).count);
      await store.addUsage('2025-06', 'race', ${perChild});
      await store.addComputeUnits('race', 0.5 * ${perChild});
      process.stdout.write(JSON.stringify(counts));
    `);
    const all = results.flatMap((r) => JSON.parse(r) as number[]).sort((x, y) => x - y);
    // Every hit got its own count: none lost, none counted twice.
    expect(all).toEqual(Array.from({ length: 4 * perChild }, (_, i) => i + 1));
    const store = SqliteStore.open(file);
    expect((await store.peek('race', 3600, NOW)).count).toBe(4 * perChild);
    expect(await store.usage('2025-06')).toEqual([{ api_key_id: 'race', requests: 4 * perChild }]);
    expect(await store.computeUnits('race')).toBe(2 * perChild);
    await store.close();
  });

  it('never loses a job entry when several processes record results of one job at once', async () => {
    const file = dbFile();
    const total = 200;
    const setup = SqliteStore.open(file);
    await setup.createJob(job('shared-job', total, { status: 'running' }));
    await setup.close();
    // Process k records the entries i with i % 4 === k, and also tries (and must fail) to
    // overwrite the entries of process (k + 1) % 4.
    await race(file, 4, (k) => `
      for (let i = 0; i < ${total}; i++) {
        if (i % 4 === ${k}) await store.updateJob('shared-job', {}, { index: i, result: { status: 'ok', result: { by: ${k}, i } } });
        if (i % 4 === ${(k + 1) % 4}) await store.updateJob('shared-job', {}, { index: i, result: { status: 'ok', result: { by: 'intruder', i } } });
      }
    `);
    const store = SqliteStore.open(file);
    const done = (await store.job('shared-job'))!;
    await store.close();
    expect(done.completed).toBe(total);
    expect(done.results).toHaveLength(total);
    // Each entry was set exactly once, by whichever process got there first.
    done.results.forEach((r, i) => expect(r).toMatchObject({ status: 'ok', result: { i } }));
  });

  it('loses nothing acknowledged when the process is killed with SIGKILL', async () => {
    const file = dbFile();
    const script = childScript(`
      await store.createKey(${JSON.stringify(fullKey('crash-key'))});
      await store.createJob(${JSON.stringify(job('crash-job'))});
      await store.updateJob('crash-job', { status: 'running' }, { index: 0, result: { status: 'ok', result: 1 } });
      for (let n = 1; n <= 3; n++) await store.addAudit({ at: new Date(${NOW} + n).toISOString(), action: 'crash.' + n, target: 't', actor: null, client: null, request_id: 'r' + n });
      await store.addComputeUnits('crash-key', 7);
      process.stdout.write('done\\n');
      // Keep writing until killed; each line is printed only after its write resolved.
      for (;;) {
        const { count } = await store.hit('crash', 3600, ${NOW});
        process.stdout.write('hit ' + count + '\\n');
      }
    `);
    const child = spawn(process.execPath, [script, builtModule(), file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // Kill mid-stream, once plenty of hits were acknowledged.
        if (/^hit (\d{3,})$/m.test(stdout)) resolve();
      });
      child.on('exit', () => reject(new Error(`child exited before being killed: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const lines = stdout.split('\n').slice(0, -1); // the last piece may be a partial line
    expect(lines[0]).toBe('done');
    const acknowledged = Math.max(...lines.filter((l) => l.startsWith('hit ')).map((l) => Number(l.slice(4))));
    expect(acknowledged).toBeGreaterThanOrEqual(100);

    const db = new Database(file);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const store = SqliteStore.open(file);
    expect(await store.listKeys()).toEqual([fullKey('crash-key')]);
    expect(await store.job('crash-job')).toMatchObject({ status: 'running', completed: 1, results: [{ status: 'ok', result: 1 }, null, null] });
    expect((await store.audit(10)).map((e) => e.action)).toEqual(['crash.3', 'crash.2', 'crash.1']);
    expect(await store.computeUnits('crash-key')).toBe(7);
    // Every acknowledged hit is there (at most one more: committed, killed before printing).
    const { count } = await store.peek('crash', 3600, NOW);
    expect(count).toBeGreaterThanOrEqual(acknowledged);
    expect(count).toBeLessThanOrEqual(acknowledged + 1);
    await store.close();
  });
});

describe('SqliteStore retention details', () => {
  it('sweeps analytics snapshots older than a day', async () => {
    const store = SqliteStore.open(dbFile());
    await store.putSnapshot('old', { i: 'old' }, NOW - 24 * 3600_000 - 1);
    await store.putSnapshot('new', { i: 'new' }, NOW - 23 * 3600_000);
    await store.sweep(NOW);
    expect(await store.snapshots(0)).toEqual([{ i: 'new' }]);
    await store.close();
  });

  it('keeps a counter window until two days after it ended', async () => {
    const store = SqliteStore.open(dbFile());
    const day = 24 * 3600_000;
    const dayStart = Math.floor(NOW / day) * day;
    await store.hit('daily', 86_400, dayStart - 3 * day); // ended 2 days before today began
    await store.hit('daily', 86_400, dayStart - 2 * day); // ended yesterday at midnight
    await store.sweep(dayStart + 1);
    expect((await store.peek('daily', 86_400, dayStart - 3 * day)).count).toBe(0);
    expect((await store.peek('daily', 86_400, dayStart - 2 * day)).count).toBe(1);
    await store.close();
  });
});

describe('SqliteStore job entries', () => {
  // Each finished entry is a row of its own (schema version 2): the job's list as created is not
  // rewritten for every entry, which made a 50-entry job's writes cost the square of its size.
  it('writes an entry as a row, leaving the list the job was created with as it was', async () => {
    const file = dbFile();
    const store = SqliteStore.open(file);
    await store.createJob(job('j1', 3, { results: [null, { status: 'ok', result: { given: true } }, null], completed: 1 }));
    await store.updateJob('j1', {}, { index: 2, result: { status: 'ok', result: { v: 2 } } });
    await store.updateJob('j1', {}, { index: 2, result: { status: 'ok', result: { v: 'again' } } }); // taken already: ignored
    await store.updateJob('j1', {}, { index: 1, result: { status: 'ok', result: { v: 'over' } } }); // given at creation: ignored
    await store.updateJob('j1', {}, { index: 3, result: { status: 'ok', result: { v: 'beyond' } } }); // beyond the list: ignored
    expect(await store.job('j1')).toMatchObject({ completed: 2, results: [null, { status: 'ok', result: { given: true } }, { status: 'ok', result: { v: 2 } }] });
    expect((await store.unfinishedJobs())[0]!.results[2]).toEqual({ status: 'ok', result: { v: 2 } });
    const db = new Database(file, { readonly: true });
    expect((db.prepare('SELECT results FROM jobs').get() as { results: string }).results).toBe(JSON.stringify([null, { status: 'ok', result: { given: true } }, null]));
    expect(db.prepare('SELECT job_id, idx FROM job_results').all()).toEqual([{ job_id: 'j1', idx: 2 }]);
    db.close();
    // a job created again under its id starts from what it is created with
    await store.createJob(job('j1', 3));
    expect(await store.job('j1')).toMatchObject({ completed: 0, results: [null, null, null] });
    await store.close();
  });

  it('keeps the results of a job written before version 2, and drops an entry row with its job', async () => {
    const file = dbFile();
    const old = new Database(file);
    migrate(old, file, MIGRATIONS.filter((m) => m.version === 1));
    old.prepare(`INSERT INTO jobs (id, status, created_at, created_ms, total, completed, api_key_id, requests, results) VALUES ('old', 'running', ?, ?, 2, 1, NULL, '[{},{}]', ?)`).run(iso(NOW), NOW, JSON.stringify([{ status: 'ok', result: 7 }, null]));
    old.close();
    const store = SqliteStore.open(file);
    expect(await store.job('old')).toMatchObject({ completed: 1, results: [{ status: 'ok', result: 7 }, null] });
    await store.updateJob('old', {}, { index: 1, result: { status: 'ok', result: 8 } });
    expect(await store.job('old')).toMatchObject({ completed: 2, results: [{ status: 'ok', result: 7 }, { status: 'ok', result: 8 }] });
    await store.close();
    const db = new Database(file);
    db.pragma('foreign_keys = ON');
    db.prepare(`DELETE FROM jobs WHERE id = 'old'`).run();
    expect((db.prepare('SELECT COUNT(*) AS n FROM job_results').get() as { n: number }).n).toBe(0);
    db.close();
  });
});

describe('SqliteStore schema migrations', () => {
  it('records the schema version and when it was applied', async () => {
    const file = dbFile();
    await SqliteStore.open(file).close();
    const db = new Database(file);
    const rows = db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as { version: number; applied_at: string }[];
    db.close();
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(rows.at(-1)!.version).toBe(SCHEMA_VERSION);
    for (const r of rows) expect(Number.isNaN(Date.parse(r.applied_at))).toBe(false);
    // Reopening applies nothing again.
    await SqliteStore.open(file).close();
    const again = new Database(file);
    expect((again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    again.close();
  });

  it('refuses a database written by a newer release, with a clear error', async () => {
    const file = dbFile();
    await SqliteStore.open(file).close();
    const db = new Database(file);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 41, iso(NOW));
    db.close();
    expect(() => SqliteStore.open(file)).toThrow(SchemaVersionError);
    expect(() => SqliteStore.open(file)).toThrow(new RegExp(`schema version ${SCHEMA_VERSION + 41}.*only knows versions up to ${SCHEMA_VERSION}`));
    // The refusal left the database untouched.
    const check = new Database(file);
    expect(schemaVersion(check)).toBe(SCHEMA_VERSION + 41);
    check.close();
  });

  it('upgrades a database at an older version, applying only the missing migrations in order', () => {
    const file = dbFile();
    const applied: number[] = [];
    const extra: Migration[] = [
      { version: SCHEMA_VERSION + 1, description: 'add a table', up: (db) => (applied.push(SCHEMA_VERSION + 1), db.exec('CREATE TABLE extra_a (x INTEGER)')) },
      { version: SCHEMA_VERSION + 2, description: 'add a column', up: (db) => (applied.push(SCHEMA_VERSION + 2), db.exec('ALTER TABLE extra_a ADD COLUMN y TEXT')) },
    ];
    // A database from the current release...
    const db = new Database(file);
    expect(migrate(db, file)).toBe(SCHEMA_VERSION);
    db.close();
    // ...opened by a later one: only the new migrations run, in order.
    const later = new Database(file);
    expect(migrate(later, file, [...MIGRATIONS, ...extra])).toBe(SCHEMA_VERSION + 2);
    expect(applied).toEqual([SCHEMA_VERSION + 1, SCHEMA_VERSION + 2]);
    expect((later.pragma('table_info(extra_a)') as { name: string }[]).map((c) => c.name)).toEqual(['x', 'y']);
    expect(migrate(later, file, [...MIGRATIONS, ...extra])).toBe(SCHEMA_VERSION + 2);
    expect(applied).toHaveLength(2);
    later.close();
  });

  it('upgrades an empty (version 0) database when the store opens it', async () => {
    const file = dbFile();
    const db = new Database(file);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
    db.close();
    const store = SqliteStore.open(file);
    await store.createKey(key('k1'));
    expect(await store.listKeys()).toHaveLength(1);
    await store.close();
    const check = new Database(file);
    expect(schemaVersion(check)).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('rolls back a failing migration entirely', () => {
    const file = dbFile();
    const db = new Database(file);
    migrate(db, file);
    const broken: Migration = {
      version: SCHEMA_VERSION + 1,
      description: 'fails half way',
      up: (d) => {
        d.exec('CREATE TABLE half_done (x INTEGER)');
        throw new Error('migration failed');
      },
    };
    expect(() => migrate(db, file, [...MIGRATIONS, broken])).toThrow('migration failed');
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'half_done'`).get()).toBeUndefined();
    db.close();
  });
});

describe('SqliteStore when the database is unusable', () => {
  it('rejects every operation after close() with StoreUnavailableError', async () => {
    const store = SqliteStore.open(dbFile());
    await store.createKey(key('k1'));
    await store.close();
    await store.close(); // closing twice is harmless
    const calls: (() => Promise<unknown>)[] = [
      () => store.ping(),
      () => store.sweep(NOW),
      () => store.hit('b', 60, NOW),
      () => store.peek('b', 60, NOW),
      () => store.createKey(key('k2')),
      () => store.listKeys(),
      () => store.revokeKey('k1', iso(NOW)),
      () => store.addComputeUnits('k1', 1),
      () => store.computeUnits('k1'),
      () => store.addUsage('2025-06', 'k1', 1),
      () => store.usage('2025-06'),
      () => store.addAudit(audit(1)),
      () => store.audit(5),
      () => store.createJob(job('j1')),
      () => store.job('j1'),
      () => store.updateJob('j1', { status: 'running' }),
      () => store.unfinishedJobs(),
      () => store.addValidationRun(run('r1')),
      () => store.validationRuns(),
      () => store.validationRun('r1'),
      () => store.putSnapshot('i', {}, NOW),
      () => store.snapshots(0),
      () => store.killSwitches(),
      () => store.setKillSwitch({ switch: 'trial_mint', engaged: true, reason: null, changed_at: null, changed_by: null }),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('refuses a file that is not a SQLite database with StoreUnavailableError', () => {
    const file = dbFile();
    writeFileSync(file, 'this is not a database, just some text that is long enough to have a header'.repeat(20));
    expect(() => SqliteStore.open(file)).toThrow(StoreUnavailableError);
  });

  it('refuses a file whose pages are damaged behind an intact header with StoreDamagedError saying what to do', async () => {
    const file = dbFile();
    await damageStorePages(file);
    expect(readFileSync(file).subarray(0, 16).toString()).toBe('SQLite format 3\0');
    let error: unknown;
    try {
      SqliteStore.open(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreDamagedError);
    const message = (error as Error).message;
    expect(message.startsWith(`SQLite store ${file} is damaged (`)).toBe(true);
    expect(message).toContain('): stop every process using it, then restore it from a backup, or move it and its -wal and -shm files aside');
    expect(message).not.toContain('\n');
  });

  it('ping fails naming the damage when the file is damaged under the open store (its page cache would hide it), and passes again once it is repaired', async () => {
    const pages = await fillAuditPages(dbFile());
    const store = SqliteStore.open(pages.file);
    try {
      await store.ping();
      expect(await store.audit(500)).toHaveLength(300); // every audit page now in this connection's cache
      const original = damagePages(pages);
      await sleep(2_100); // the file is checked again at most every 2 s
      const error = await store.ping().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(new RegExp(`^SQLite store ${pages.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(.+\\): stop every process using it`));
      expect((error as Error).cause).toMatchObject({ code: 'SQLITE_CORRUPT', message: expect.stringMatching(/^the file is damaged \(/) });
      repairPages(pages, original);
      await sleep(2_100);
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('ping writes to the file at most once a second (a public readiness check cannot make it flush at will)', async () => {
    const store = SqliteStore.open(dbFile());
    for (let i = 0; i < 5; i++) await store.ping();
    expect((await store.peek('store:write-probe', 60, Date.now())).count).toBe(1);
    await store.close();
  });

  it('refuses a path it cannot create with StoreUnavailableError', () => {
    const blocker = join(temp.make(), 'a-file');
    writeFileSync(blocker, 'x');
    expect(() => SqliteStore.open(join(blocker, 'sub', 'store.db'))).toThrow(StoreUnavailableError);
  });
});
