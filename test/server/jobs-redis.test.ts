import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Analytics } from '../../server/analytics.js';
import { newJob } from '../../server/jobs.js';
import { RedisJobQueue } from '../../server/jobs-redis.js';
import { RedisStore } from '../../server/store/redis.js';
import { type RedisServer, startRedis } from '../support/redis.js';

// What the shared job queue does that the API suites on Redis do not reach: a job left `running`
// because the write that finished it failed (the queue's work on it had failed for good, Redis was
// away, the instance stopped) is finished by the next instance to start, not left for 24 hours.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

describe('RedisJobQueue', () => {
  test('resume finishes a job whose every entry has its result but which is still recorded running', async () => {
    const prefix = 'resume-finish:';
    const store = await RedisStore.connect(server.url, { prefix });
    const job = newJob([{ program_id: 'snap', jurisdiction: 'us', household: {} }], 'calc');
    job.status = 'running';
    job.started_at = new Date().toISOString();
    job.results = [{ status: 'ok', result: { outputs: {} } }];
    job.completed = 1;
    await store.createJob(job);
    // its work in BullMQ failed for good (the state the final write failing left behind)
    const connection = new Redis(server.url, { maxRetriesPerRequest: null });
    const queue = new Queue('calculate', { connection, prefix: `${prefix}bull` });
    await queue.add('calculate', { id: job.id }, { jobId: job.id, attempts: 1 });
    const workerConnection = new Redis(server.url, { maxRetriesPerRequest: null });
    const failing = new Worker('calculate', async () => Promise.reject(new Error('Redis went away while finishing')), { connection: workerConnection, prefix: `${prefix}bull` });
    await expect.poll(async () => (await queue.getJob(job.id))?.getState(), { timeout: 10_000 }).toBe('failed');
    await failing.close();
    await queue.close();
    for (const c of [connection, workerConnection]) c.disconnect();

    const analytics = new Analytics('test');
    const jobs = new RedisJobQueue(store, 1, {
      catalog: () => {
        throw new Error('no entry is left to run');
      },
      calculateTimeoutMs: 1_000,
      analytics,
      maxPendingJobs: 10,
      instanceId: 'test',
    });
    expect(await jobs.resume()).toBe(1);
    expect(await store.job(job.id)).toMatchObject({ status: 'succeeded', completed: 1, finished_at: expect.any(String) });
    await jobs.stop();
    await store.close();
  }, 30_000);

  test('a key submitting many jobs at the same moment gets exactly its cap of unfinished jobs; the rest are refused', async () => {
    const store = await RedisStore.connect(server.url, { prefix: 'pending-cap:' });
    // no worker (resume() is never called): every job admitted stays unfinished
    const jobs = new RedisJobQueue(store, 1, {
      catalog: () => {
        throw new Error('no job runs here');
      },
      calculateTimeoutMs: 1_000,
      analytics: new Analytics('test'),
      maxPendingJobs: 3,
      instanceId: 'test',
    });
    const request = { program_id: 'snap', jurisdiction: 'us', household: {} };
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => jobs.submit([request], 'one-key')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const o of outcomes.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) expect(String(o.reason.message)).toMatch(/already has 3 unfinished jobs/);
    // another key is not held back
    await expect(jobs.submit([request], 'other-key')).resolves.toMatchObject({ status: 'pending' });
    await jobs.stop();
    await store.close();
  }, 30_000);
});
