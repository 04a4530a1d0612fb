import { randomUUID } from 'node:crypto';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { runEntry } from './calculation.js';
import type { Analytics } from './analytics.js';
import type { Catalog } from './catalog/catalog.js';
import { ApiError } from './errors.js';
import type { JobRecord, JobSummary, Store } from './store/store.js';

// Detached calculation jobs. Entries run with bounded concurrency; every finished entry is
// written to the store at once, so `completed` grows as entries finish and a restart loses
// nothing acknowledged: unfinished jobs are resumed (entries without a result run again).
// Shutdown lets the entries already running finish, then stops; the rest resume next start.
// Keys take turns: the next entry to start is always the next key's (round-robin by key, each
// key's jobs in the order submitted), so a key with many heavy jobs cannot starve another's small
// one, which waits for at most one entry of each other key per worker; and a key may have at most
// `maxPendingJobs` jobs unfinished (429 rate_limited beyond).
// JobRunner queues entries in this process (SQLite and memory stores); with the shared Redis
// store, jobs-redis.ts queues them in Redis for every instance (jobQueueFor picks one).

/** What running an entry needs, given to a queue when it is made. */
export interface JobEnvironment {
  /** The catalogue of the moment: hot reload swaps it, and an entry runs against the one it finds. */
  catalog(): Catalog;
  /** The time limit of one entry. */
  calculateTimeoutMs: number;
  /** Where a store write that failed in the background is counted (`store_errors`). */
  analytics: Analytics;
  /** Unfinished jobs one key may have (RULES_MAX_PENDING_JOBS_PER_KEY). */
  maxPendingJobs: number;
}

/** How long a key over its share of pending jobs is asked to wait before submitting again. */
const PENDING_RETRY_SECONDS = 10;

/** 429 for a key that already has its share of unfinished jobs. */
export function tooManyPendingJobs(max: number): ApiError {
  return new ApiError(
    'rate_limited',
    `this key already has ${max} unfinished jobs (the most one key may have waiting, RULES_MAX_PENDING_JOBS_PER_KEY); submit more once some have finished (poll their status_url)`,
    { retry_after_seconds: PENDING_RETRY_SECONDS },
    { 'retry-after': String(PENDING_RETRY_SECONDS) },
  );
}

/** The queue a job's entries wait in: its key's (jobs without a key share one). */
export const queueOf = (job: Pick<JobRecord, 'api_key_id'>): string => job.api_key_id ?? '';

/**
 * Round-robin by key: items wait in one queue per key, and each `take` gives the first item of the
 * next key in turn (a key that joins waits behind the keys already waiting, one item each).
 */
export class FairQueue<T> {
  /** Keys in turn order (a Map keeps insertion order), each with its waiting items. */
  private readonly byKey = new Map<string, T[]>();

  push(key: string, item: T): void {
    const items = this.byKey.get(key);
    if (items) items.push(item);
    else this.byKey.set(key, [item]);
  }

  take(): T | undefined {
    const next = this.byKey.entries().next();
    if (next.done) return undefined;
    const [key, items] = next.value;
    const item = items.shift();
    // the key goes to the back of the turn order, or leaves it with nothing more to run
    this.byKey.delete(key);
    if (items.length) this.byKey.set(key, items);
    return item;
  }

  get size(): number {
    let n = 0;
    for (const items of this.byKey.values()) n += items.length;
    return n;
  }
}

/** Where submitted jobs wait and run. */
export interface JobQueue {
  submit(requests: CalculateRequest[], apiKeyId: string | null): Promise<JobRecord>;
  /** Start running jobs, picking up those a previous process left unfinished; how many it took up. */
  resume(): Promise<number>;
  /** Stop starting entries; resolves when the ones running have finished. */
  stop(): Promise<void>;
}

/** A new pending job with no results yet. */
export function newJob(requests: CalculateRequest[], apiKeyId: string | null): JobRecord {
  return {
    id: `job_${randomUUID().replace(/-/g, '')}`,
    status: 'pending',
    created_at: new Date().toISOString(),
    total: requests.length,
    completed: 0,
    api_key_id: apiKeyId,
    requests,
    results: requests.map(() => null),
  };
}

/** Run entry `index` of `job` and store its result (marking a pending job running first). */
export async function runJobEntry(store: Store, env: JobEnvironment, job: JobSummary, index: number): Promise<void> {
  if (job.status === 'pending') {
    await store.updateJob(job.id, { status: 'running', started_at: new Date().toISOString() });
    job.status = 'running';
  }
  const result = runEntry(env.catalog(), job.requests[index]!, env.calculateTimeoutMs);
  await store.updateJob(job.id, {}, { index, result });
}

/** Mark the job succeeded once every entry has a result (read from its count: its results can be hundreds of KB); whether it is finished. */
export async function finishJob(store: Store, jobId: string): Promise<boolean> {
  const job = await store.jobSummary(jobId);
  if (!job || job.completed < job.total) return false;
  if (job.status !== 'succeeded') {
    await store.updateJob(jobId, { status: 'succeeded', finished_at: new Date().toISOString(), ...(job.started_at ? {} : { started_at: new Date().toISOString() }) });
  }
  return true;
}

/** Record that a job cannot go on; whether the store took it (a refusal is counted as a store error). */
export function failJob(store: Store, env: Pick<JobEnvironment, 'analytics'>, jobId: string, err: unknown): Promise<boolean> {
  return store.updateJob(jobId, { status: 'failed', finished_at: new Date().toISOString(), error: `the job could not be recorded: ${err instanceof Error ? err.message : String(err)}` }).then(
    () => true,
    (error: unknown) => (env.analytics.storeError(error, `recording that job ${jobId} failed`), false),
  );
}

interface Task {
  /** The runner's own copy of the job (its requests, and its status once an entry started). */
  job: JobSummary;
  /** The queue it waits in (its job's key). */
  key: string;
  index: number;
}

export class JobRunner implements JobQueue {
  private readonly queue = new FairQueue<Task>();
  /** Unfinished jobs of each key, with their entries not yet done. */
  private readonly pending = new Map<string, Map<string, number>>();
  /** Jobs recorded as failed: their entries still queued are not run. */
  private readonly failed = new Set<string>();
  private running = 0;
  private stopping = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly concurrency: number,
    private readonly env: JobEnvironment,
  ) {}

  async submit(requests: CalculateRequest[], apiKeyId: string | null): Promise<JobRecord> {
    const job = newJob(requests, apiKeyId);
    if ((this.pending.get(queueOf(job))?.size ?? 0) >= this.env.maxPendingJobs) throw tooManyPendingJobs(this.env.maxPendingJobs);
    await this.store.createJob(job);
    this.enqueue({ ...job }); // the runner's copy (its status changes as entries start): the route answers with the record as created
    return job;
  }

  /** Pick up jobs a previous process left unfinished. */
  async resume(): Promise<number> {
    const jobs = await this.store.unfinishedJobs();
    for (const job of jobs) this.enqueue(job);
    return jobs.length;
  }

  private enqueue(job: JobRecord): void {
    const todo = job.results.flatMap((r, index) => (r === null ? [index] : []));
    if (!todo.length) {
      void finishJob(this.store, job.id).catch((error: unknown) => this.env.analytics.storeError(error, `finishing job ${job.id}`));
      return;
    }
    const key = queueOf(job);
    const jobs = this.pending.get(key) ?? new Map<string, number>();
    jobs.set(job.id, todo.length);
    this.pending.set(key, jobs);
    for (const index of todo) this.queue.push(key, { job, key, index });
    this.pump();
  }

  private pump(): void {
    while (!this.stopping && this.running < this.concurrency) {
      const task = this.queue.take();
      if (!task) break;
      this.running++;
      // yield to the event loop between entries so HTTP traffic keeps flowing
      setImmediate(() => void this.run(task).finally(() => this.done()));
    }
    if (this.running === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }

  private done(): void {
    this.running--;
    this.pump();
  }

  /** One fewer entry of the task's job to run; whether it was the job's last. */
  private settle(task: Task): boolean {
    const jobs = this.pending.get(task.key);
    const left = (jobs?.get(task.job.id) ?? 1) - 1;
    if (left > 0) jobs!.set(task.job.id, left);
    else jobs?.delete(task.job.id);
    if (jobs && !jobs.size) this.pending.delete(task.key);
    return left <= 0;
  }

  // An entry runs from the runner's copy of its job: this process is the only one running the
  // store's jobs (SQLite and memory stores), so the job is not read back from the store for each
  // entry (its results grow to hundreds of KB, and reading them for every entry made a job cost
  // the square of its size, blocking the event loop for milliseconds); it is read once, when its
  // last entry has run, to mark it succeeded.
  private async run(task: Task): Promise<void> {
    const { job } = task;
    try {
      if (!this.failed.has(job.id)) await runJobEntry(this.store, this.env, job, task.index);
    } catch (err) {
      if (await failJob(this.store, this.env, job.id, err)) this.failed.add(job.id);
    }
    if (!this.settle(task)) return;
    this.failed.delete(job.id);
    try {
      await finishJob(this.store, job.id);
    } catch (err) {
      await failJob(this.store, this.env, job.id, err);
    }
  }

  /** Stop starting entries; resolves when the ones running have finished. */
  stop(): Promise<void> {
    this.stopping = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
