import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../server/store/memory.js';
import { RedisStore } from '../../../server/store/redis.js';
import { SqliteStore } from '../../../server/store/sqlite.js';
import { RETENTION, type Store } from '../../../server/store/store.js';
import { type RedisServer, startRedis } from '../../support/redis.js';
import { audit, DAY, fullKey, HOUR, iso, job, key, NOW, run, tempDirs } from './fixtures.js';

// One behavioural contract, run against every Store implementation: they must be
// interchangeable (apart from `kind` and `durable`).

const temp = tempDirs();
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  temp.cleanup();
  await redis.stop();
});

let files = 0;
// Redis keeps records for a retention period from when they were written (expiry, checked in
// redis-store.test.ts) instead of sweeping by their timestamps, so the sweep cases skip it.
const implementations: [string, () => Store | Promise<Store>, { kind: Store['kind']; durable: boolean; sweeps: boolean }][] = [
  ['memory', () => new MemoryStore(), { kind: 'memory', durable: false, sweeps: true }],
  ['sqlite', () => SqliteStore.open(join(temp.make(), `store-${++files}.db`)), { kind: 'sqlite', durable: true, sweeps: true }],
  // a fresh prefix per test: a namespace of its own on the shared server
  ['redis', () => RedisStore.connect(redis.url, { prefix: `contract-${++files}:` }), { kind: 'redis', durable: true, sweeps: false }],
];

describe.each(implementations)('Store contract: %s', (_name, make, flags) => {
  let store: Store;
  beforeEach(async () => {
    store = await make();
  });
  afterEach(async () => {
    await store.close();
  });

  it('reports its kind and durability, and answers ping', async () => {
    expect(store.kind).toBe(flags.kind);
    expect(store.durable).toBe(flags.durable);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  describe('fixed-window counters', () => {
    const start = Math.floor(NOW / 60_000) * 60_000;

    it('counts hits within one window and reports when it resets', async () => {
      expect(await store.hit('ip:1', 60, start)).toEqual({ count: 1, reset_at: start + 60_000 });
      expect(await store.hit('ip:1', 60, start + 30_000)).toEqual({ count: 2, reset_at: start + 60_000 });
      expect(await store.hit('ip:1', 60, start + 59_999)).toEqual({ count: 3, reset_at: start + 60_000 });
    });

    it('starts again at 1 in the next window', async () => {
      await store.hit('ip:1', 60, start);
      await store.hit('ip:1', 60, start + 1);
      expect(await store.hit('ip:1', 60, start + 60_000)).toEqual({ count: 1, reset_at: start + 120_000 });
      expect(await store.hit('ip:1', 60, start + 61_000)).toEqual({ count: 2, reset_at: start + 120_000 });
    });

    it('keeps buckets and window sizes independent', async () => {
      await store.hit('ip:1', 60, NOW);
      await store.hit('ip:1', 60, NOW);
      await store.hit('ip:2', 60, NOW);
      const hourStart = Math.floor(NOW / HOUR) * HOUR;
      expect(await store.hit('ip:1', 3600, NOW)).toEqual({ count: 1, reset_at: hourStart + HOUR });
      expect((await store.peek('ip:1', 60, NOW)).count).toBe(2);
      expect((await store.peek('ip:2', 60, NOW)).count).toBe(1);
      expect((await store.peek('ip:1', 3600, NOW)).count).toBe(1);
      expect((await store.peek('ip:3', 60, NOW)).count).toBe(0);
    });

    it('peek reads the current window without counting', async () => {
      expect(await store.peek('k', 60, start + 5)).toEqual({ count: 0, reset_at: start + 60_000 });
      await store.hit('k', 60, start);
      await store.hit('k', 60, start);
      expect(await store.peek('k', 60, start + 5)).toEqual({ count: 2, reset_at: start + 60_000 });
      expect(await store.peek('k', 60, start + 5)).toEqual({ count: 2, reset_at: start + 60_000 });
      expect((await store.hit('k', 60, start)).count).toBe(3);
      expect(await store.peek('k', 60, start + 60_000)).toEqual({ count: 0, reset_at: start + 120_000 });
    });
  });

  describe('keys', () => {
    it('creates keys with every field and lists them in creation order', async () => {
      expect(await store.createKey(fullKey('k1'))).toBe(true);
      expect(await store.createKey(key('k2'))).toBe(true);
      expect(await store.listKeys()).toEqual([fullKey('k1'), key('k2')]);
    });

    it('refuses a duplicate id and keeps the original', async () => {
      expect(await store.createKey(key('k1', { note: 'first' }))).toBe(true);
      expect(await store.createKey(key('k1', { note: 'second', key_sha256: 'other' }))).toBe(false);
      expect(await store.listKeys()).toEqual([key('k1', { note: 'first' })]);
    });

    it('revokes a key once: status and revoked_at set, a second revoke changes nothing', async () => {
      await store.createKey(fullKey('k1'));
      await store.createKey(key('k2'));
      const revoked = await store.revokeKey('k1', iso(NOW + 1000));
      expect(revoked).toEqual({ ...fullKey('k1'), status: 'revoked', revoked_at: iso(NOW + 1000) });
      expect(await store.revokeKey('k1', iso(NOW + 2000))).toEqual(revoked);
      expect(await store.listKeys()).toEqual([revoked, key('k2')]);
    });

    it('answers undefined when revoking an unknown id', async () => {
      expect(await store.revokeKey('nope', iso(NOW))).toBeUndefined();
      expect(await store.listKeys()).toEqual([]);
    });

    it('returns copies: changing a result does not change the store', async () => {
      await store.createKey(key('k1'));
      const [listed] = await store.listKeys();
      listed!.scopes.push('admin');
      listed!.status = 'revoked';
      expect(await store.listKeys()).toEqual([key('k1')]);
    });
  });

  describe('compute units', () => {
    it('accumulates a lifetime total per key', async () => {
      expect(await store.computeUnits('k1')).toBe(0);
      expect(await store.addComputeUnits('k1', 5)).toBe(5);
      expect(await store.addComputeUnits('k1', 2.5)).toBe(7.5);
      expect(await store.addComputeUnits('k2', 1)).toBe(1);
      expect(await store.computeUnits('k1')).toBe(7.5);
      expect(await store.computeUnits('k2')).toBe(1);
    });
  });

  describe('usage', () => {
    it('accumulates per month and key, sorted by requests descending', async () => {
      await store.addUsage('2025-06', 'a', 3);
      await store.addUsage('2025-06', 'b', 10);
      await store.addUsage('2025-06', 'c', 1);
      await store.addUsage('2025-06', 'a', 9);
      await store.addUsage('2025-05', 'c', 100);
      expect(await store.usage('2025-06')).toEqual([
        { api_key_id: 'a', requests: 12 },
        { api_key_id: 'b', requests: 10 },
        { api_key_id: 'c', requests: 1 },
      ]);
      expect(await store.usage('2025-05')).toEqual([{ api_key_id: 'c', requests: 100 }]);
      expect(await store.usage('2025-04')).toEqual([]);
    });
  });

  describe('audit', () => {
    it('returns the newest entries first, at most `limit`', async () => {
      for (let n = 1; n <= 5; n++) await store.addAudit(audit(n, undefined, n === 2 ? { detail: { scopes: ['a'], nested: { ok: true } } } : {}));
      expect(await store.audit(10)).toEqual([5, 4, 3, 2, 1].map((n) => audit(n, undefined, n === 2 ? { detail: { scopes: ['a'], nested: { ok: true } } } : {})));
      expect((await store.audit(2)).map((e) => e.request_id)).toEqual(['req-5', 'req-4']);
      expect((await store.audit(1))[0]).toEqual(audit(5));
    });
  });

  describe('jobs', () => {
    it('creates and reads a job; unknown id is undefined', async () => {
      await store.createJob(job('j1'));
      expect(await store.job('j1')).toEqual(job('j1'));
      expect(await store.job('nope')).toBeUndefined();
    });

    it('applies a patch without touching results or completed', async () => {
      await store.createJob(job('j1'));
      await store.updateJob('j1', { status: 'running', started_at: iso(NOW + 1000) });
      expect(await store.job('j1')).toEqual(job('j1', 3, { status: 'running', started_at: iso(NOW + 1000) }));
      await store.updateJob('j1', { status: 'failed', finished_at: iso(NOW + 2000), error: 'boom' });
      expect(await store.job('j1')).toEqual(job('j1', 3, { status: 'failed', started_at: iso(NOW + 1000), finished_at: iso(NOW + 2000), error: 'boom' }));
    });

    it('records an entry once and recomputes completed', async () => {
      await store.createJob(job('j1'));
      const ok = { status: 'ok' as const, result: { benefit: 42, trace: [1, 2] } };
      const err = { status: 'error' as const, error: { code: 'runtime_error' as const, message: 'division by zero' } };
      await store.updateJob('j1', { status: 'running' }, { index: 2, result: ok });
      expect(await store.job('j1')).toMatchObject({ status: 'running', completed: 1, results: [null, null, ok] });
      await store.updateJob('j1', {}, { index: 0, result: err });
      expect(await store.job('j1')).toMatchObject({ completed: 2, results: [err, null, ok] });
      // Already set: not overwritten, completed unchanged (the patch still applies).
      await store.updateJob('j1', { status: 'running', started_at: iso(NOW) }, { index: 2, result: err });
      expect(await store.job('j1')).toMatchObject({ completed: 2, results: [err, null, ok], started_at: iso(NOW) });
      // Beyond the list: ignored.
      await store.updateJob('j1', {}, { index: 7, result: ok });
      expect(await store.job('j1')).toMatchObject({ completed: 2, results: [err, null, ok] });
      await store.updateJob('j1', { status: 'succeeded', finished_at: iso(NOW + 5) }, { index: 1, result: ok });
      expect(await store.job('j1')).toEqual(job('j1', 3, { status: 'succeeded', started_at: iso(NOW), finished_at: iso(NOW + 5), completed: 3, results: [err, ok, ok] }));
    });

    it('reads a job without its results, and the result of one entry', async () => {
      const given = { status: 'ok' as const, result: { given: 'at creation' } };
      await store.createJob(job('j1', 3, { results: [null, given, null], completed: 1, started_at: iso(NOW), status: 'running' }));
      const ok = { status: 'ok' as const, result: { benefit: 42 } };
      await store.updateJob('j1', {}, { index: 2, result: ok });
      const { results: _results, ...summary } = job('j1', 3, { completed: 2, started_at: iso(NOW), status: 'running' });
      expect(await store.jobSummary('j1')).toEqual(summary);
      expect([await store.jobResult('j1', 0), await store.jobResult('j1', 1), await store.jobResult('j1', 2)]).toEqual([null, given, ok]);
      expect(await store.jobSummary('nope')).toBeUndefined();
      expect(await store.jobResult('nope', 0)).toBeUndefined();
    });

    it('ignores updates to an unknown job', async () => {
      await store.updateJob('nope', { status: 'running' }, { index: 0, result: { status: 'ok', result: 1 } });
      expect(await store.job('nope')).toBeUndefined();
    });

    it('lists unfinished (pending or running) jobs', async () => {
      await store.createJob(job('j1'));
      await store.createJob(job('j2', 1, { status: 'running', started_at: iso(NOW) }));
      await store.createJob(job('j3', 1, { status: 'succeeded', completed: 1, results: [{ status: 'ok', result: 1 }] }));
      await store.createJob(job('j4', 1, { status: 'failed', error: 'x' }));
      expect((await store.unfinishedJobs()).map((j) => j.id)).toEqual(['j1', 'j2']);
      await store.updateJob('j1', { status: 'succeeded' });
      expect(await store.unfinishedJobs()).toEqual([job('j2', 1, { status: 'running', started_at: iso(NOW) })]);
    });

    it('replaces a job created again with the same id', async () => {
      await store.createJob(job('j1'));
      await store.createJob(job('j1', 2, { status: 'running' }));
      expect(await store.job('j1')).toEqual(job('j1', 2, { status: 'running' }));
    });
  });

  describe('validation runs', () => {
    it('stores runs, lists them newest first and finds one by id', async () => {
      await store.addValidationRun(run('r1', iso(NOW - 2000)));
      await store.addValidationRun(run('r2', iso(NOW - 1000), { model_versions: null, api_version: null, base_url: null, avg_case_latency_ms: null }));
      await store.addValidationRun(run('r3'));
      expect(await store.validationRuns()).toEqual([run('r3'), run('r2', iso(NOW - 1000), { model_versions: null, api_version: null, base_url: null, avg_case_latency_ms: null }), run('r1', iso(NOW - 2000))]);
      expect(await store.validationRun('r1')).toEqual(run('r1', iso(NOW - 2000)));
      expect(await store.validationRun('nope')).toBeUndefined();
    });
  });

  describe('analytics snapshots', () => {
    it('keeps the latest snapshot per instance and filters by time', async () => {
      await store.putSnapshot('a', { instance: 'a', requests: 1 }, NOW - 5000);
      await store.putSnapshot('b', { instance: 'b', requests: 2 }, NOW - 1000);
      expect(await store.snapshots(NOW - 10_000)).toEqual([{ instance: 'a', requests: 1 }, { instance: 'b', requests: 2 }]);
      expect(await store.snapshots(NOW - 1000)).toEqual([{ instance: 'b', requests: 2 }]);
      await store.putSnapshot('a', { instance: 'a', requests: 7, nested: { x: [1] } }, NOW);
      expect(await store.snapshots(NOW - 1000)).toEqual([{ instance: 'a', requests: 7, nested: { x: [1] } }, { instance: 'b', requests: 2 }]);
      expect(await store.snapshots(NOW + 1)).toEqual([]);
    });
  });

  describe('kill switches', () => {
    it('sets and replaces switches by name', async () => {
      expect(await store.killSwitches()).toEqual([]);
      await store.setKillSwitch({ switch: 'trial_mint', engaged: true, reason: 'abuse', changed_at: iso(NOW), changed_by: 'admin-1' });
      await store.setKillSwitch({ switch: 'trial_traffic', engaged: false, reason: null, changed_at: null, changed_by: null });
      await store.setKillSwitch({ switch: 'trial_mint', engaged: false, reason: null, changed_at: iso(NOW + 1), changed_by: 'admin-2' });
      expect(await store.killSwitches()).toEqual([
        { switch: 'trial_mint', engaged: false, reason: null, changed_at: iso(NOW + 1), changed_by: 'admin-2' },
        { switch: 'trial_traffic', engaged: false, reason: null, changed_at: null, changed_by: null },
      ]);
    });
  });

  describe.runIf(flags.sweeps)('sweep', () => {
    it('deletes what outlived its retention and keeps the rest', async () => {
      const justInside = 60_000;
      // Jobs: by created_at.
      await store.createJob(job('old-job', 1, { created_at: iso(NOW - RETENTION.jobsMs - 1) }));
      await store.createJob(job('new-job', 1, { created_at: iso(NOW - RETENTION.jobsMs + justInside), status: 'running' }));
      // Audit.
      await store.addAudit(audit(1, iso(NOW - RETENTION.auditMs - 1)));
      await store.addAudit(audit(2, iso(NOW - RETENTION.auditMs + justInside)));
      // Validation runs.
      await store.addValidationRun(run('old-run', iso(NOW - RETENTION.validationRunsMs - 1)));
      await store.addValidationRun(run('new-run', iso(NOW - RETENTION.validationRunsMs + justInside)));
      // Usage: at 2025-06-15 the 13-month retention keeps 2024-05 onwards.
      await store.addUsage('2024-04', 'k', 1);
      await store.addUsage('2024-05', 'k', 2);
      await store.addUsage('2025-06', 'k', 3);
      // Counters: a window from 3 days ago goes, one from yesterday stays.
      await store.hit('old', 60, NOW - 3 * DAY);
      await store.hit('recent', 60, NOW - DAY);
      await store.hit('current', 60, NOW);
      // Snapshots: a recent one stays.
      await store.putSnapshot('i1', { i: 1 }, NOW - HOUR);
      // Keys, compute units and kill switches are never swept.
      await store.createKey(key('k1', { created_at: iso(NOW - 1000 * DAY) }));
      await store.addComputeUnits('k1', 3);
      await store.setKillSwitch({ switch: 'trial_mint', engaged: true, reason: null, changed_at: iso(NOW - 1000 * DAY), changed_by: null });

      await store.sweep(NOW);

      expect(await store.job('old-job')).toBeUndefined();
      expect(await store.job('new-job')).toBeDefined();
      expect((await store.unfinishedJobs()).map((j) => j.id)).toEqual(['new-job']);
      expect((await store.audit(10)).map((e) => e.request_id)).toEqual(['req-2']);
      expect((await store.validationRuns()).map((r) => r.id)).toEqual(['new-run']);
      expect(await store.validationRun('old-run')).toBeUndefined();
      expect(await store.usage('2024-04')).toEqual([]);
      expect(await store.usage('2024-05')).toEqual([{ api_key_id: 'k', requests: 2 }]);
      expect(await store.usage('2025-06')).toEqual([{ api_key_id: 'k', requests: 3 }]);
      expect((await store.peek('old', 60, NOW - 3 * DAY)).count).toBe(0);
      expect((await store.peek('recent', 60, NOW - DAY)).count).toBe(1);
      expect((await store.peek('current', 60, NOW)).count).toBe(1);
      expect(await store.snapshots(0)).toEqual([{ i: 1 }]);
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['k1']);
      expect(await store.computeUnits('k1')).toBe(3);
      expect(await store.killSwitches()).toHaveLength(1);
    });
  });

  it('sweep is harmless on an empty store and when repeated', async () => {
    await store.sweep(NOW);
    await store.addAudit(audit(1));
    await store.sweep(NOW);
    await store.sweep(NOW);
    expect(await store.audit(5)).toEqual([audit(1)]);
  });
});
