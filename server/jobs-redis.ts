import { setTimeout as delay, setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { failJob, finishJob, type JobEnvironment, type JobQueue, newJob, runJobEntry } from './jobs.js';
import { COMMAND_TIMEOUT_MS, type RedisStore, reconnectDelay } from './store/redis.js';
import { type JobRecord, StoreUnavailableError } from './store/store.js';

// Jobs shared by every instance on one Redis (--store redis), queued with BullMQ: one BullMQ job
// per calculation job. Any live instance takes it (at most RULES_JOB_CONCURRENCY at a time each),
// runs its entries one after another and stores each result as it finishes, so every instance
// polls the same progress. The instance running a job holds a lease (BullMQ's lock, renewed while
// it works); when the instance dies the lease expires, BullMQ finds the job stalled and another
// instance takes it up, running only the entries that have no result yet.

const QUEUE = 'calculate';
/** Attempts of a job whose results cannot be stored (Redis briefly away), 1 s then doubling. */
const ATTEMPTS = 5;
/** How often each instance looks for jobs whose lease expired. */
const STALLED_CHECK_MS = 5_000;
/** A job may be found stalled this often (its instance died each time) before it fails. */
const MAX_STALLED = 3;

/**
 * The lease: how long a job stays with an instance that stopped renewing it. Renewal happens every
 * half lease between entries, and one entry may hold the event loop for the calculation timeout,
 * so the lease outlasts two of those.
 */
export function leaseMs(calculateTimeoutMs: number): number {
  return Math.max(15_000, 2 * calculateTimeoutMs + 1_000);
}

/** `promise`, or StoreUnavailableError after the command timeout. */
function quick<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out after ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS).unref()),
  ]).catch((err: unknown) => {
    throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(`Redis job queue unavailable: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  });
}

/** What a shared queue needs besides running entries: its worker's name. */
export interface RedisJobEnvironment extends JobEnvironment {
  instanceId: string;
}

export class RedisJobQueue implements JobQueue {
  private readonly queueConnection: Redis;
  private workerConnection: Redis | undefined;
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private stopping = false;
  private readonly bullPrefix: string;

  /** Queues in the Redis of `store`, under its prefix. */
  constructor(
    private readonly store: RedisStore,
    private readonly concurrency: number,
    private readonly env: RedisJobEnvironment,
  ) {
    this.bullPrefix = `${store.prefix}bull`;
    // Submissions fail within the command timeout while Redis is away, like every store
    // operation: a command waiting for the connection is dropped at the next failed reconnect.
    // (The offline queue stays on: without it BullMQ's own start-up commands can be refused.)
    this.queueConnection = new Redis(store.url, { maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay });
    this.queueConnection.on('error', () => undefined);
    this.queue = new Queue(QUEUE, { connection: this.queueConnection, prefix: this.bullPrefix });
    this.queue.on('error', () => undefined);
  }

  async submit(requests: CalculateRequest[], apiKeyId: string | null): Promise<JobRecord> {
    const job = newJob(requests, apiKeyId);
    await this.store.createJob(job);
    // Stored but not queued (Redis left in between): the caller gets 503; the next instance to
    // start queues the job (resume), since it is unfinished in the store.
    await this.enqueue(job.id);
    return job;
  }

  private enqueue(id: string): Promise<unknown> {
    // the job id is BullMQ's too, so queueing a job twice is harmless
    return quick(this.queue.add(QUEUE, { id }, { jobId: id, attempts: ATTEMPTS, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: true, removeOnFail: { age: 24 * 3600 } }), 'queueing the job');
  }

  async resume(): Promise<number> {
    // Blocking reads need a connection that waits for Redis rather than failing fast.
    this.workerConnection = new Redis(this.store.url, { maxRetriesPerRequest: null, retryStrategy: reconnectDelay });
    this.workerConnection.on('error', () => undefined);
    this.worker = new Worker(QUEUE, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      prefix: this.bullPrefix,
      concurrency: this.concurrency,
      lockDuration: leaseMs(this.env.calculateTimeoutMs),
      stalledInterval: STALLED_CHECK_MS,
      maxStalledCount: MAX_STALLED,
      name: this.env.instanceId,
    });
    this.worker.on('error', (error) => this.env.analytics.storeError(error, 'running the job queue'));
    this.worker.on('failed', (job, err) => void this.failed(job, err));
    await quick(this.worker.waitUntilReady(), 'starting the job worker');
    // Jobs stored but never queued (Redis left between the two writes) are queued now.
    let queued = 0;
    for (const job of await this.store.unfinishedJobs()) {
      if (await quick(this.queue.getJob(job.id), 'reading the queue')) continue;
      await this.enqueue(job.id);
      queued++;
    }
    return queued;
  }

  private async process(bull: Job<{ id: string }>, token: string | undefined): Promise<void> {
    const job = await this.store.job(bull.data.id);
    if (!job || job.status === 'succeeded' || job.status === 'failed') return;
    for (const [index, result] of job.results.entries()) {
      if (result !== null) continue;
      if (this.stopping) {
        // shutting down: hand the rest to another instance now rather than after the lease
        await bull.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      await runJobEntry(this.store, this.env, job, index);
      await yieldToEventLoop(); // HTTP traffic and lease renewal keep flowing between entries
    }
    await finishJob(this.store, job.id);
  }

  /** A job that failed for good (stored results kept failing, or its instances kept dying). */
  private async failed(bull: Job<{ id: string }> | undefined, err: Error): Promise<void> {
    if (!bull || (await bull.getState().catch(() => 'unknown')) !== 'failed') return;
    await failJob(this.store, this.env, bull.data.id, err);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Lets the entries running finish; their jobs go back to the queue for another instance.
    // With Redis away BullMQ cannot close gracefully (it would wait for Redis for ever), so it
    // closes at once: a job it held is taken up elsewhere when its lease ends.
    const reachable = await this.store.ping().then(
      () => true,
      () => false,
    );
    const grace = this.env.calculateTimeoutMs + COMMAND_TIMEOUT_MS;
    const closed = await Promise.race([
      Promise.all([this.worker?.close(!reachable), this.queue.close()]).then(
        () => true,
        () => false,
      ),
      delay(grace, false, { ref: false }),
    ]);
    for (const connection of [this.queueConnection, this.workerConnection]) {
      if (closed) await connection?.quit().catch(() => connection.disconnect());
      else connection?.disconnect();
    }
  }
}
