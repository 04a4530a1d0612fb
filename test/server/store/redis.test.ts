import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_KEEP, RedisStore, redactUrl } from '../../../server/store/redis.js';
import { RETENTION, StoreUnavailableError } from '../../../server/store/store.js';
import { type RedisServer, startRedis } from '../../support/redis.js';
import { audit, DAY, fullKey, iso, job, key, NOW, run } from './fixtures.js';

// What the Redis store adds to the common contract (store-contract.test.ts): retention by expiry,
// the deployment prefix, atomic counters across connections, pub/sub of key changes, and quick
// failures and recovery when Redis goes away and comes back.

let server: RedisServer;
let raw: Redis;
let prefixes = 0;
const open = (prefix = `t${++prefixes}:`) => RedisStore.connect(server.url, { prefix });

beforeAll(async () => {
  server = await startRedis({ appendOnly: true, password: 'p@ss word/with:odd chars' });
  raw = new Redis(server.url);
});
afterAll(async () => {
  raw.disconnect();
  await server.stop();
});

/** Seconds to live of `key`, as Redis reports it. */
const ttlDays = async (key: string) => (await raw.pttl(key)) / DAY;

describe('RedisStore', () => {
  it('connects with a password in the URL and never shows the password', async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
    expect(store.where).not.toContain('p@ss');
    expect(redactUrl('rediss://user:secret@cache.example:6380/2')).toBe('rediss://user:***@cache.example:6380/2');
    await store.close();
    await expect(RedisStore.connect(server.url.replace(/:[^:@/]+@/, ':wrong@'), { prefix: 'x:' })).rejects.toThrow(StoreUnavailableError);
  });

  it('keeps every key under its prefix, so deployments sharing a Redis do not meet', async () => {
    const a = await open('deploy-a:');
    const b = await open('deploy-b:');
    await a.createKey(key('k1'));
    await a.hit('ip:1', 60, NOW);
    await a.addAudit(audit(1));
    await a.createJob(job('j1'));
    expect(await b.listKeys()).toEqual([]);
    expect((await b.peek('ip:1', 60, NOW)).count).toBe(0);
    expect(await b.job('j1')).toBeUndefined();
    const keys = await raw.keys('*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.startsWith('deploy-a:'))).toHaveLength(keys.filter((k) => !k.startsWith('deploy-b:') && !/^t\d+:/.test(k)).length);
    await a.close();
    await b.close();
  });

  it('stores only key hashes: the raw key is nowhere in Redis', async () => {
    const store = await open('hashes:');
    const rawKey = 'rk_live_this-raw-key-must-never-be-stored-0000000';
    await store.createKey(key('k1', { key_sha256: 'a'.repeat(64), prefix: rawKey.slice(0, 12) }));
    const dump = JSON.stringify(await raw.hgetall('hashes:keys'));
    expect(dump).toContain('a'.repeat(64));
    expect(dump).not.toContain(rawKey);
    await store.close();
  });

  it('sets a retention period on everything it writes, from the moment of writing', async () => {
    const store = await open('ttl:');
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    await store.hit('ip', 60, start);
    await store.addUsage('2025-06', 'k', 1);
    await store.addAudit(audit(1));
    await store.createJob(job('j1'));
    await store.updateJob('j1', {}, { index: 0, result: { status: 'ok', result: 1 } });
    await store.addValidationRun(run('r1'));
    await store.putSnapshot('i1', { i: 1 }, Date.now());
    // a counter lives two days after its window ends
    expect(await ttlDays(`ttl:ctr:ip@60:${start}`)).toBeGreaterThan(2);
    expect(await ttlDays(`ttl:ctr:ip@60:${start}`)).toBeLessThanOrEqual(2 + 60 / 86_400);
    expect(await ttlDays('ttl:usage:2025-06')).toBeCloseTo((RETENTION.usageMonths + 1) * 31, 0);
    expect(await ttlDays('ttl:audit')).toBeCloseTo(RETENTION.auditMs / DAY, 0);
    expect(await ttlDays('ttl:job:j1')).toBeCloseTo(RETENTION.jobsMs / DAY, 1);
    expect(await ttlDays('ttl:job:j1:results')).toBeCloseTo(RETENTION.jobsMs / DAY, 1);
    expect(await ttlDays('ttl:run:r1')).toBeCloseTo(RETENTION.validationRunsMs / DAY, 0);
    expect(await ttlDays('ttl:runs')).toBeCloseTo(RETENTION.validationRunsMs / DAY, 0);
    expect(await ttlDays('ttl:snap:i1')).toBeCloseTo(RETENTION.snapshotsMs / DAY, 1);
    // keys, compute units and kill switches never expire
    await store.createKey(key('k1'));
    await store.addComputeUnits('k1', 1);
    await store.setKillSwitch({ switch: 'trial_mint', engaged: true, reason: null, changed_at: null, changed_by: null });
    for (const k of ['ttl:keys', 'ttl:keys:order', 'ttl:cu', 'ttl:kill']) expect(await raw.pttl(k)).toBe(-1);
    await store.close();
  });

  it('keeps the newest audit entries only, and none written more than 90 days ago', async () => {
    const store = await open('audit:');
    for (let n = 1; n <= AUDIT_KEEP + 5; n++) await store.addAudit(audit(n));
    const entries = await store.audit(1000);
    expect(entries).toHaveLength(AUDIT_KEEP);
    expect(entries[0]!.request_id).toBe(`req-${AUDIT_KEEP + 5}`);
    // an entry written 91 days ago (as the list records it) is dropped at the next write and not read
    await raw.rpush('audit:audit', `${Date.now() - 91 * DAY}|${JSON.stringify(audit(0))}`);
    expect((await store.audit(1000)).map((e) => e.request_id)).not.toContain('req-0');
    await store.addAudit(audit(999));
    expect(await raw.lindex('audit:audit', -1)).not.toContain('req-0');
    await store.close();
  });

  it('drops an expired job from the unfinished list and an expired snapshot from the instances', async () => {
    const store = await open('expired:');
    await store.createJob(job('j1'));
    await store.createJob(job('j2'));
    await store.putSnapshot('gone', { i: 'gone' }, NOW);
    await store.putSnapshot('live', { i: 'live' }, NOW);
    await raw.del('expired:job:j1', 'expired:snap:gone');
    expect((await store.unfinishedJobs()).map((j) => j.id)).toEqual(['j2']);
    expect(await raw.zrange('expired:jobs:unfinished', 0, -1)).toEqual(['j2']);
    expect(await store.snapshots(0)).toEqual([{ i: 'live' }]);
    expect(await raw.zrange('expired:snaps', 0, -1)).toEqual(['live']);
    await store.close();
  });

  it('lets two connections (two instances) share counters without losing a hit', async () => {
    const a = await open('shared:');
    const b = await open('shared:');
    const counts = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).hit('race', 3600, NOW).then((r) => r.count)));
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).updateJob('nope', {}, { index: 0, result: { status: 'ok', result: i } })));
    await a.createJob(job('j', 100, { status: 'running' }));
    await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).updateJob('j', {}, { index: i % 100, result: { status: 'ok', result: { i: i % 100, by: i } } })));
    const done = (await b.job('j'))!;
    expect(done.completed).toBe(100);
    done.results.forEach((r, i) => expect(r).toMatchObject({ result: { i } }));
    await a.close();
    await b.close();
  });

  it('announces issued and revoked keys to every watching instance', async () => {
    const a = await open('watch:');
    const b = await open('watch:');
    let heard = 0;
    const refused: unknown[] = [];
    b.watchKeys(() => heard++, (error) => refused.push(error));
    await new Promise((r) => setTimeout(r, 200)); // subscribed
    heard = 0;
    await a.createKey(fullKey('k1'));
    await a.revokeKey('k1', iso(NOW));
    await a.createKey(fullKey('k1')); // refused: nothing to announce
    await expect.poll(() => heard).toBe(2);
    await a.close();
    await b.close();
  });

  it('reports a refused subscription to key announcements and keeps trying until it holds', async () => {
    // a user whose ACL refuses SUBSCRIBE: what an operator's too narrow ACL does
    await raw.call('ACL', 'SETUSER', 'narrow', 'on', '>narrow-password', '~*', '&*', '+@all', '-subscribe');
    const a = await open('acl:');
    const b = await RedisStore.connect(`redis://narrow:narrow-password@127.0.0.1:${server.port}`, { prefix: 'acl:' });
    let heard = 0;
    const refused: Error[] = [];
    b.watchKeys(() => heard++, (error) => refused.push(error as Error));
    await expect.poll(() => refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.message).toMatch(/NOPERM/);
    heard = 0;
    await raw.call('ACL', 'SETUSER', 'narrow', '+subscribe');
    // the next attempt (within 5 s) holds: the watchers hear of it (announcements were missed)
    await expect.poll(() => heard, { timeout: 10_000 }).toBeGreaterThan(0);
    const count = refused.length;
    heard = 0;
    await a.createKey(fullKey('announced'));
    await expect.poll(() => heard).toBe(1);
    expect(refused.length).toBe(count);
    await a.close();
    await b.close();
  }, 20_000);

  it('fails quickly with StoreUnavailableError while Redis is down, and recovers by itself', async () => {
    const store = await open('outage:');
    await store.createKey(key('k1'));
    await server.kill();
    const started = Date.now();
    for (const call of [() => store.ping(), () => store.hit('b', 60, NOW), () => store.listKeys(), () => store.createJob(job('j1')), () => store.addAudit(audit(1))]) {
      await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
    }
    expect(Date.now() - started).toBeLessThan(3_000);
    await server.restart();
    await expect.poll(() => store.ping().then(() => true, () => false), { timeout: 10_000, interval: 200 }).toBe(true);
    // with appendfsync always, what was acknowledged before the kill is still there
    expect((await store.listKeys()).map((k) => k.id)).toEqual(['k1']);
    await store.close();
  });

  it('refuses to start when Redis cannot be reached, naming where', async () => {
    const started = Date.now();
    await expect(RedisStore.connect('redis://127.0.0.1:1', { prefix: 'x:' })).rejects.toThrow(/Redis store redis:\/\/127\.0\.0\.1:1\/? unavailable/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects every operation after close() with StoreUnavailableError', async () => {
    const store = await open();
    await store.close();
    await store.close();
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.listKeys()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
