import { setTimeout as delay, setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { failJob, finishJob, type JobEnvironment, type JobQueue, newJob, queueOf, runJobEntry, tooManyPendingJobs } from './jobs.js';
import { COMMAND_TIMEOUT_MS, type RedisStore, reconnectDelay } from './store/redis.js';
import { type JobRecord, RETENTION, StoreUnavailableError } from './store/store.js';

// Jobs shared by every instance on one Redis (--store redis). The entries waiting to run are kept
// in Redis in turn order, one queue per key (round-robin by key, as the in-process JobRunner
// does): a ring of the keys with entries waiting, each key's jobs in the order submitted, each
// job's entries to run. Workers are driven by BullMQ "turns": each submission queues one turn per
// entry, and a worker holding a turn claims the next entry in that order, runs it, stores its
// result and claims again until nothing waits. BullMQ gives every turn a lease, renewed while it
// works; when an instance dies its turns are found stalled and taken up by another instance,
// which runs the entry the dead one had claimed (claims are kept in Redis) and goes on.

const QUEUE = 'calculate';
/** Attempts of a turn whose results cannot be stored (Redis briefly away), 1 s then doubling. */
const ATTEMPTS = 5;
/** How often each instance looks for turns whose lease expired. */
const STALLED_CHECK_MS = 5_000;
/** A turn may be found stalled this often (its instance died each time) before it fails. */
const MAX_STALLED = 3;
/** How long recording the end of a job is tried again after it failed, at most between tries. */
const SETTLE_RETRY_MAX_MS = 30_000;

/**
 * The lease: how long a turn stays with an instance that stopped renewing it. Renewal happens every
 * half lease between entries, and one entry may hold the event loop for the calculation timeout,
 * so the lease outlasts two of those.
 */
export function leaseMs(calculateTimeoutMs: number): number {
  return Math.max(15_000, 2 * calculateTimeoutMs + 1_000);
}

const SCRIPTS = {
  // KEYS: the key's unfinished jobs (sorted set by submission time) · ARGV: now ms, retention ms,
  // cap, job id → 1 when the key may submit another job, whose place is then taken at once (two
  // submissions at the same moment cannot both take the last one)
  admit: {
    numberOfKeys: 1,
    lua: `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
      if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
      redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
      return 1`,
  },
  // KEYS: ring of keys, the key's jobs, the job's entries to run, the key's unfinished jobs
  // ARGV: key, job id, now ms, entry index… → 0 when the job is already waiting
  enqueue: {
    numberOfKeys: 4,
    lua: `if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
      for i = 4, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
      redis.call('RPUSH', KEYS[2], ARGV[2])
      if not redis.call('LPOS', KEYS[1], ARGV[1]) then redis.call('RPUSH', KEYS[1], ARGV[1]) end
      redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
      return 1`,
  },
  // KEYS: ring of keys, the turn's claim · ARGV: key prefix, claim ttl s
  // → "job index": the claim the turn holds, else the next key's next entry (the key then goes to
  // the back of the ring, or leaves it with nothing more waiting); nil when nothing waits
  claim: {
    numberOfKeys: 2,
    lua: `local held = redis.call('GET', KEYS[2])
      if held then return held end
      while true do
        local key = redis.call('LPOP', KEYS[1])
        if not key then return nil end
        local jobs = ARGV[1] .. 'jobs:' .. key
        local job = redis.call('LINDEX', jobs, 0)
        local index = nil
        if job then
          local todo = ARGV[1] .. 'todo:' .. job
          index = redis.call('LPOP', todo)
          if redis.call('LLEN', todo) == 0 then redis.call('LPOP', jobs) end
        end
        if redis.call('LLEN', jobs) > 0 then redis.call('RPUSH', KEYS[1], key) end
        if index then
          local claim = job .. ' ' .. index
          redis.call('SET', KEYS[2], claim, 'EX', tonumber(ARGV[2]))
          return claim
        end
      end`,
  },
};

type Fair = Redis & Record<keyof typeof SCRIPTS, (...args: (string | number)[]) => Promise<unknown>>;

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
  private readonly queueConnection: Fair;
  private workerConnection: Redis | undefined;
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private stopping = false;
  private readonly bullPrefix: string;
  /** Where the turn order lives: `<prefix>fair:…`. */
  private readonly fair: string;

  /** Queues in the Redis of `store`, under its prefix. */
  constructor(
    private readonly store: RedisStore,
    private readonly concurrency: number,
    private readonly env: RedisJobEnvironment,
  ) {
    this.bullPrefix = `${store.prefix}bull`;
    this.fair = `${store.prefix}fair:`;
    // Submissions fail within the command timeout while Redis is away, like every store
    // operation: a command waiting for the connection is dropped at the next failed reconnect.
    // (The offline queue stays on: without it BullMQ's own start-up commands can be refused.)
    const connection = new Redis(store.url, { maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS, retryStrategy: reconnectDelay });
    for (const [name, script] of Object.entries(SCRIPTS)) connection.defineCommand(name, script);
    this.queueConnection = connection as Fair;
    this.queueConnection.on('error', () => undefined);
    this.queue = new Queue(QUEUE, { connection: this.queueConnection, prefix: this.bullPrefix });
    this.queue.on('error', () => undefined);
  }

  async submit(requests: CalculateRequest[], apiKeyId: string | null): Promise<JobRecord> {
    const job = newJob(requests, apiKeyId);
    // the job takes its place among the key's unfinished ones before its record is written, and
    // gives it back if the record cannot be written
    const admitted = await quick(this.queueConnection.admit(this.openJobs(job), Date.now(), RETENTION.jobsMs, this.env.maxPendingJobs, job.id), 'counting the key\'s jobs');
    if (Number(admitted) !== 1) throw tooManyPendingJobs(this.env.maxPendingJobs);
    try {
      await this.store.createJob(job);
    } catch (error) {
      await this.queueConnection.zrem(this.openJobs(job), job.id).catch(() => undefined); // Redis away: the place expires with the retention
      throw error;
    }
    // Stored but not queued (Redis left in between): the caller gets 503; the next instance to
    // start queues the job (resume), since it is unfinished in the store.
    await this.enqueue(job);
    return job;
  }

  private openJobs(job: Pick<JobRecord, 'api_key_id'>): string {
    return `${this.fair}open:${queueOf(job)}`;
  }

  /** Put a job's entries without a result in turn order, with a turn for each. */
  private async enqueue(job: JobRecord): Promise<void> {
    const todo = job.results.flatMap((r, index) => (r === null ? [index] : []));
    const key = queueOf(job);
    const added = await quick(this.queueConnection.enqueue(`${this.fair}ring`, `${this.fair}jobs:${key}`, `${this.fair}todo:${job.id}`, this.openJobs(job), key, job.id, Date.parse(job.created_at) || Date.now(), ...todo), 'queueing the job');
    if (Number(added) === 1) await this.addTurns(todo.length);
  }

  private addTurns(count: number): Promise<unknown> {
    const turn = { name: 'turn', data: {}, opts: { attempts: ATTEMPTS, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: true, removeOnFail: { age: 24 * 3600 } } };
    return quick(this.queue.addBulk(Array.from({ length: count }, () => turn)), 'queueing turns');
  }

  async resume(): Promise<number> {
    // Blocking reads need a connection that waits for Redis rather than failing fast.
    this.workerConnection = new Redis(this.store.url, { maxRetriesPerRequest: null, retryStrategy: reconnectDelay });
    this.workerConnection.on('error', () => undefined);
    this.worker = new Worker(QUEUE, (turn) => this.process(turn), {
      connection: this.workerConnection,
      prefix: this.bullPrefix,
      concurrency: this.concurrency,
      lockDuration: leaseMs(this.env.calculateTimeoutMs),
      stalledInterval: STALLED_CHECK_MS,
      maxStalledCount: MAX_STALLED,
      name: this.env.instanceId,
    });
    this.worker.on('error', (error) => this.env.analytics.storeError(error, 'running the job queue'));
    this.worker.on('failed', (turn, err) => void this.failed(turn, err));
    await quick(this.worker.waitUntilReady(), 'starting the job worker');
    // Jobs stored but never queued (Redis left between the two writes), or whose every entry ran
    // but whose end could not be recorded, are taken up now; entries still waiting get turns.
    let resumed = 0;
    for (const job of await this.store.unfinishedJobs()) {
      if (job.results.every((r) => r !== null)) await this.settle(job.id, 'finishing');
      else if (!(await quick(this.queueConnection.exists(`${this.fair}todo:${job.id}`), 'reading the queue'))) await this.enqueue(job);
      else continue;
      resumed++;
    }
    if (await quick(this.queueConnection.exists(`${this.fair}ring`), 'reading the queue')) await this.addTurns(this.concurrency);
    return resumed;
  }

  /** A turn: claim the next entry in turn order, run it, store its result; again until nothing waits. */
  private async process(turn: Job): Promise<void> {
    const claimKey = `${this.fair}claim:${turn.id}`;
    while (!this.stopping) {
      const claim = (await this.queueConnection.claim(`${this.fair}ring`, claimKey, this.fair, RETENTION.jobsMs / 1000)) as string | null;
      if (!claim) return;
      const [jobId, index] = [claim.slice(0, claim.lastIndexOf(' ')), Number(claim.slice(claim.lastIndexOf(' ') + 1))];
      // the job without its results, and the one entry's: not every result so far for each entry
      const job = await this.store.jobSummary(jobId);
      if (job && job.status !== 'failed' && job.status !== 'succeeded' && index < job.total && (await this.store.jobResult(jobId, index)) === null) {
        await runJobEntry(this.store, this.env, job, index);
        if (await finishJob(this.store, jobId)) await this.queueConnection.zrem(this.openJobs(job), jobId);
      }
      await this.queueConnection.del(claimKey);
      await yieldToEventLoop(); // HTTP traffic and lease renewal keep flowing between entries
    }
    // stopping with entries still waiting: hand a turn to another instance now
    if (await this.queueConnection.exists(`${this.fair}ring`)) await this.addTurns(1);
  }

  /** A turn that failed for good (results kept failing to be stored, or its instances kept dying). */
  private async failed(turn: Job | undefined, err: Error): Promise<void> {
    if (!turn || (await turn.getState().catch(() => 'failed')) !== 'failed') return;
    const claim = await this.queueConnection.get(`${this.fair}claim:${turn.id}`).catch(() => null);
    if (claim) await this.settle(claim.slice(0, claim.lastIndexOf(' ')), err.message);
    // the entries still waiting need a turn of their own
    if (await this.queueConnection.exists(`${this.fair}ring`).catch(() => 0)) await this.addTurns(1).catch((error: unknown) => this.env.analytics.storeError(error, 'queueing a turn'));
  }

  /**
   * Record the end of a job that cannot go on as it was: succeeded when every entry has its
   * result, else failed with `reason`. Tried again (1 s, doubling to 30 s) until Redis takes it,
   * so no job is left `running` until it expires; a restart's resume takes up what is left.
   */
  private async settle(jobId: string, reason: string): Promise<void> {
    for (let wait = 1_000; ; wait = Math.min(2 * wait, SETTLE_RETRY_MAX_MS)) {
      try {
        const job = await this.store.jobSummary(jobId);
        if (!job || job.status === 'succeeded' || job.status === 'failed') return;
        if (job.completed >= job.total) await finishJob(this.store, jobId);
        else if (!(await failJob(this.store, this.env, jobId, new Error(reason)))) throw new Error('not recorded');
        await this.queueConnection.zrem(this.openJobs(job), jobId);
        return;
      } catch (error) {
        this.env.analytics.storeError(error, `recording the end of job ${jobId}`);
        if (this.stopping) return;
        await delay(wait, undefined, { ref: false });
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Lets the entries running finish; the turns still queued stay for another instance.
    // With Redis away BullMQ cannot close gracefully (it would wait for Redis for ever), so it
    // closes at once: a turn it held is taken up elsewhere when its lease ends.
    const reachable = await this.store.ping().then(
      () => true,
      () => false,
    );
    const grace = this.env.calculateTimeoutMs + COMMAND_TIMEOUT_MS;
    // the worker first: a turn it stops may queue a turn for the entries still waiting
    const closed = await Promise.race([
      (async () => {
        await this.worker?.close(!reachable);
        await this.queue.close();
      })().then(
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
