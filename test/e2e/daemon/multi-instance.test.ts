import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAILED_AUTH } from '../../../server/auth/guard.js';
import { type Answer, cleanEnv, request, serve, type Served } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';
import { type RedisServer, startRedis } from '../../support/redis.js';
import { LAB, labRoot, sleep, slowHousehold } from '../../support/lab.js';

// Two real `rules serve --store redis` daemons on one real redis-server behave as one service:
// shared rate limits and failed-auth throttle, keys and revocations seen at once by the other
// instance, jobs polled anywhere and finished by the survivor when the instance running one is
// killed, global analytics listing both, and Redis outages answered with 503s, then recovered.

const KEY = {
  admin: 'multi-test-key-admin-000000000000000000001',
  limited: 'multi-test-key-limited-00000000000000000001',
  calc: 'multi-test-key-calc-0000000000000000000001',
};
const PREFIX = 'multi:';
const LIMIT = 4;
const TRIAL_CLIENT_CAP = 3;

let redis: RedisServer;
let raw: Redis;
let dataDir: string;
let a: Served;
let b: Served;

const daemon = (instance: string) =>
  serve({
    args: ['--store', 'redis', '--root', labRoot()],
    dataDir,
    keys: [
      { id: 'admin', key: KEY.admin, scopes: ['*'], rate_limit: { requests: 1_000_000, window_seconds: 60 } },
      // a day-long window: no window boundary falls inside the test
      { id: 'limited', key: KEY.limited, scopes: ['rules:read'], rate_limit: { requests: LIMIT, window_seconds: 86_400 } },
      { id: 'calc', key: KEY.calc, scopes: ['calculate:run', 'rules:read'], rate_limit: { requests: 1_000_000, window_seconds: 60 } },
    ],
    env: { RULES_REDIS_URL: redis.url, RULES_REDIS_PREFIX: PREFIX, RULES_INSTANCE_ID: instance, RULES_CALCULATE_TIMEOUT_MS: '2000', RULES_JOB_CONCURRENCY: '1', RULES_TRIAL_CLIENT_DAILY_CAP: String(TRIAL_CLIENT_CAP) },
  });

/** Poll `probe` every 100 ms until `done` holds of its answer; fails after `ms`. */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v).slice(0, 400)})`);
    await sleep(100);
  }
}

const job = (people: number, total: number) => ({ requests: Array(total).fill({ program_id: LAB.slow, jurisdiction: LAB.jurisdiction, household: slowHousehold(people) }) });
const poll = (on: Served, id: string) => request(on, 'GET', `/v1/jobs/${id}`, { key: KEY.calc });
const finished = (r: Answer) => r.status === 200 && ['succeeded', 'failed'].includes(r.body.data.status);

describe('two rules serve --store redis daemons on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedis({ appendOnly: true });
    raw = new Redis(redis.url);
    raw.on('error', () => undefined);
    dataDir = mkdtempSync(path.join(tmpdir(), 'rules-multi-'));
    a = await daemon('instance-a');
    b = await daemon('instance-b'); // the same data dir: reuses the compiled lab packages
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    raw?.disconnect();
    await redis?.stop();
  });

  test('share the per-key rate limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await request(i % 2 ? b : a, 'GET', '/v1/programs', { key: KEY.limited })).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429, 429]);
  });

  test("share a client's daily trial-key cap, and a trial key's lifetime quota", async () => {
    const statuses: number[] = [];
    const minted: { key: string; key_id: string }[] = [];
    for (let i = 0; i < TRIAL_CLIENT_CAP + 1; i++) {
      const res = await request(i % 2 ? b : a, 'POST', '/v1/keys/trial');
      statuses.push(res.status);
      if (res.status === 201) minted.push(res.body.data);
    }
    expect(statuses).toEqual([...Array(TRIAL_CLIENT_CAP).fill(201), 429]);
    // the compute units a trial key spends add up in one lifetime total, whichever instance serves it
    const trial = minted[0]!;
    const spent = async () => Number((await raw.hget(`${PREFIX}cu`, trial.key_id)) ?? 0);
    expect((await request(a, 'GET', '/v1/programs', { key: trial.key })).status).toBe(200);
    const one = await spent();
    expect(one).toBeGreaterThan(0);
    expect((await request(b, 'GET', '/v1/programs', { key: trial.key })).status).toBe(200);
    expect(await spent()).toBe(2 * one);
  });

  test('share the failed-auth throttle', async () => {
    try {
      for (let i = 0; i < FAILED_AUTH.attempts; i++) expect((await request(i % 2 ? b : a, 'GET', '/v1/programs', { key: `wrong-key-${i}` })).status).toBe(401);
      // the client used its attempts across both instances: each one now refuses it, even with a good key
      for (const on of [a, b]) {
        const res = await request(on, 'GET', '/v1/programs', { key: KEY.admin });
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('auth_throttled');
      }
    } finally {
      // the later tests come from the same address
      const throttles = await raw.keys(`${PREFIX}ctr:authfail:*`);
      if (throttles.length) await raw.del(...throttles);
    }
  });

  test('a key issued on one instance works at once on the other, and its revocation is refused at once', async () => {
    expect((await request(b, 'GET', '/v1/programs', { key: KEY.admin })).status).toBe(200); // b has its key list cached
    const issued = await request(a, 'POST', '/v1/admin/keys', { key: KEY.admin, body: { id: 'partner', scopes: ['rules:read'] } });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body.data.durable).toBe(true);
    const partner = issued.body.data.key as string;
    const started = Date.now();
    await until(() => request(b, 'GET', '/v1/programs', { key: partner }), (r) => r.status === 200, 2_000, 'the new key on b');
    expect(Date.now() - started).toBeLessThan(2_000); // announced: far within the 15 s refresh
    expect((await request(a, 'POST', '/v1/admin/keys/partner/revoke', { key: KEY.admin })).status).toBe(200);
    await until(() => request(b, 'GET', '/v1/programs', { key: partner }), (r) => r.status === 401, 2_000, 'the revoked key refused on b');
    // both instances list the same keys
    const listed = await request(b, 'GET', '/v1/admin/keys', { key: KEY.admin });
    expect(listed.body.data.keys.find((k: { id: string }) => k.id === 'partner')).toMatchObject({ status: 'revoked' });
  });

  test('a job submitted on one instance is polled on the other, only by its key', async () => {
    const submitted = await request(a, 'POST', '/v1/jobs/calculate', { key: KEY.calc, body: job(10, 3) });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    expect(submitted.body.data.durable).toBe(true);
    const id = submitted.body.data.job_id as string;
    const done = await until(() => poll(b, id), finished, 20_000, 'the job on b');
    expect(done.body.data).toMatchObject({ status: 'succeeded', total: 3, completed: 3 });
    for (const r of done.body.data.results) expect(r).toEqual({ status: 'ok', result: expect.objectContaining({ outputs: { slow_total: 100_000 } }) });
    expect((await request(b, 'GET', `/v1/jobs/${id}`, { key: KEY.admin })).status).toBe(404);
  });

  test('global analytics lists both live instances', async () => {
    const global = await until(
      () => request(a, 'GET', '/v1/admin/analytics?scope=global', { key: KEY.admin }),
      (r) => r.status === 200 && r.body.data.instances.length === 2,
      8_000, // b flushes its snapshot every 5 s
      'both instances in the global view',
    );
    expect(global.body.data.store).toBe('redis');
    expect(global.body.data.instances.map((i: { instance_id: string }) => i.instance_id)).toEqual(['instance-a', 'instance-b']);
  });

  test('while Redis is down: health 200, ready 503, store operations 503 store_unavailable quickly; then recovery', async () => {
    // load on both instances all through the outage and the restart: every answer is a 200 or a quick 503
    const answers: { status: number; code?: string; ms: number }[] = [];
    let loading = true;
    let bAway = false;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        const started = Date.now();
        const res = await request(i % 2 && !bAway ? b : a, 'GET', '/v1/programs', { key: KEY.calc });
        answers.push({ status: res.status, code: res.body?.error?.code, ms: Date.now() - started });
        await sleep(20);
      }
    })();
    try {
      await sleep(200);
      await redis.kill();
      expect((await request(a, 'GET', '/v1/health')).status).toBe(200);
      const ready = await request(b, 'GET', '/v1/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.error.code).toBe('not_ready');
      expect(ready.body.data.dependencies.find((d: { name: string }) => d.name === 'shared_counter_store')).toMatchObject({ status: 'unavailable' });
      for (const [method, url, body] of [
        ['GET', '/v1/programs', undefined],
        ['POST', '/v1/jobs/calculate', job(1, 1)],
        ['GET', '/v1/admin/keys', undefined],
      ] as const) {
        const started = Date.now();
        const res = await request(a, method, url, { key: KEY.admin, body });
        expect(Date.now() - started).toBeLessThan(5_000);
        expect([res.status, res.body.error?.code]).toEqual([503, 'store_unavailable']);
      }
      await sleep(500);
      // a graceful stop does not wait for Redis to return (the load goes on against a meanwhile)
      bAway = true;
      const stopping = Date.now();
      expect(await b.stop('SIGTERM')).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(15_000);
      expect(b.output()).toMatch(/rules serve: stopped/);
      await redis.restart();
      b = await daemon('instance-b');
      bAway = false;
      for (const on of [a, b]) await until(() => request(on, 'GET', '/v1/ready'), (r) => r.status === 200, 15_000, 'ready again');
      await sleep(300);
    } finally {
      loading = false;
      await load;
    }
    expect(answers.some((x) => x.status === 503)).toBe(true);
    for (const x of answers) {
      expect([200, 503]).toContain(x.status);
      if (x.status === 503) expect(x.code).toBe('store_unavailable');
      expect(x.ms).toBeLessThan(5_000);
    }
    expect(answers.at(-1)!.status).toBe(200);
    // the operator sees the outage and the recovery in the logs
    for (const on of [a]) expect(on.output()).toMatch(/Redis store redis:\/\/127\.0\.0\.1:\d+\/? is unreachable \(.+\): requests that need it answer 503 store_unavailable[^]*Redis store .* is reachable again/);
    // the keys issued before the outage survived it (append-only file), and jobs run again
    expect((await request(b, 'GET', '/v1/admin/keys', { key: KEY.admin })).body.data.keys.map((k: { id: string }) => k.id)).toContain('partner');
    const submitted = await request(b, 'POST', '/v1/jobs/calculate', { key: KEY.calc, body: job(1, 2) });
    expect(submitted.status).toBe(202);
    expect((await until(() => poll(a, submitted.body.data.job_id), finished, 20_000, 'a job after the outage')).body.data.status).toBe('succeeded');
  }, 60_000);

  test('SIGTERM hands a running job to the other instance at once, without waiting for the lease', async () => {
    const TOTAL = 50;
    const submitted = await request(a, 'POST', '/v1/jobs/calculate', { key: KEY.calc, body: job(100, TOTAL) });
    const id = submitted.body.data.job_id as string;
    await until(() => poll(a, id), (r) => r.body.data.completed >= 1, 20_000, 'the job under way');
    const holder = await raw.hget(`${PREFIX}bull:calculate:${id}`, 'pb');
    const [leaving, staying] = holder === 'instance-a' ? [a, b] : [b, a];
    expect(await leaving.stop('SIGTERM')).toBe(0);
    const atStop = (await poll(staying, id)).body.data.completed as number;
    expect(atStop).toBeLessThan(TOTAL);
    // taken up at once (the leaving instance put it back in the queue), far within the 15 s lease
    await until(() => poll(staying, id), (r) => r.body.data.completed > atStop, 5_000, 'the other instance taking the job up');
    const done = await until(() => poll(staying, id), finished, 30_000, 'the job finished by the other instance');
    expect(done.body.data).toMatchObject({ status: 'succeeded', completed: TOTAL });
    // the instance comes back for the next test
    if (leaving === a) a = await daemon('instance-a');
    else b = await daemon('instance-b');
  }, 90_000);

  test('a job is finished by the other instance when the one running it is killed', async () => {
    const TOTAL = 50;
    const submitted = await request(a, 'POST', '/v1/jobs/calculate', { key: KEY.calc, body: job(100, TOTAL) });
    expect(submitted.status).toBe(202);
    const id = submitted.body.data.job_id as string;
    const running = await until(() => poll(b, id), (r) => r.body.data.completed >= 1, 20_000, 'the job under way');
    // an instance holding the lease of a turn that has claimed one of the job's entries, as
    // BullMQ records who processes each turn (both instances run the job's entries)
    const claimHolders = async () => {
      const holders: string[] = [];
      for (const claimKey of await raw.keys(`${PREFIX}fair:claim:*`)) {
        if (!(await raw.get(claimKey))?.startsWith(`${id} `)) continue;
        const holder = await raw.hget(`${PREFIX}bull:calculate:${claimKey.slice(claimKey.lastIndexOf(':') + 1)}`, 'pb');
        if (holder) holders.push(holder);
      }
      return holders;
    };
    const holder = (await until(claimHolders, (h) => h.length > 0, 20_000, 'a claimed entry'))[0];
    expect(['instance-a', 'instance-b']).toContain(holder);
    const [victim, survivor] = holder === 'instance-a' ? [a, b] : [b, a];
    await victim.stop('SIGKILL');
    const atKill = (await poll(survivor, id)).body.data.completed as number;
    expect(running.body.data.status).toBe('running');
    expect(atKill).toBeLessThan(TOTAL); // killed mid-job
    let last = atKill;
    const done = await until(
      () => poll(survivor, id),
      (r) => {
        expect(r.body.data.completed).toBeGreaterThanOrEqual(last); // nothing recorded is lost
        last = r.body.data.completed;
        return finished(r);
      },
      45_000, // the lease (15 s) runs out, then the next stalled-job check (5 s) hands it over
      'the job finished by the survivor',
    );
    expect(done.body.data).toMatchObject({ status: 'succeeded', completed: TOTAL });
    expect(done.body.data.results).toHaveLength(TOTAL);
    for (const r of done.body.data.results) expect(r).toEqual({ status: 'ok', result: expect.objectContaining({ outputs: { slow_total: 1_000_000 } }) });
  }, 90_000);
});

describe('rules serve --store redis: configuration errors exit 2 with one line', () => {
  const run = (env: Record<string, string>) => execa('node', [CLI, 'serve', '--store', 'redis', '--port', '0', '--data-dir', mkdtempSync(path.join(tmpdir(), 'rules-multi-bad-'))], { reject: false, env: cleanEnv(env), extendEnv: false, timeout: 30_000 });

  test.each([
    [{ RULES_REDIS_URL: 'http://127.0.0.1:6379' }, /RULES_REDIS_URL must start with redis:\/\/ or rediss:\/\//],
    [{ RULES_REDIS_URL: 'not a url' }, /RULES_REDIS_URL must be a URL/],
    [{ RULES_REDIS_PREFIX: 'has space' }, /RULES_REDIS_PREFIX must be/],
    [{ RULES_INSTANCE_ID: 'no/slashes' }, /RULES_INSTANCE_ID must be/],
  ])('%j', async (env, message) => {
    const res = await run(env);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
  });

  test('Redis settings given with another store are reported as ignored', async () => {
    const served = await serve({ args: ['--store', 'memory'], env: { RULES_REDIS_URL: 'redis://127.0.0.1:1', RULES_REDIS_PREFIX: 'other:' } });
    try {
      expect(served.output()).toContain('warning: RULES_REDIS_URL is set but the store is memory, not redis: ignored');
      expect(served.output()).toContain('warning: RULES_REDIS_PREFIX is set but the store is memory, not redis: ignored');
    } finally {
      await served.stop();
    }
  });

  test('Redis unreachable at start-up: exit 2 naming it, password hidden, within seconds', async () => {
    const started = Date.now();
    const res = await run({ RULES_REDIS_URL: 'redis://:hunter2-secret@127.0.0.1:1' });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/Redis store redis:\/\/:\*\*\*@127\.0\.0\.1:1\/? unavailable/);
    expect(res.stderr).not.toContain('hunter2');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
