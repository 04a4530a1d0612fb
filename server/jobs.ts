import { randomUUID } from 'node:crypto';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { runEntry } from './calculation.js';
import type { Analytics } from './analytics.js';
import type { Catalog } from './catalog/catalog.js';
import type { JobRecord, Store } from './store/store.js';

// Detached calculation jobs. Entries run with bounded concurrency; every finished entry is
// written to the store at once, so `completed` grows as entries finish and a restart loses
// nothing acknowledged: unfinished jobs are resumed (entries without a result run again).
// Shutdown lets the entries already running finish, then stops; the rest resume next start.
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
export async function runJobEntry(store: Store, env: JobEnvironment, job: JobRecord, index: number): Promise<void> {
  if (job.status === 'pending') {
    await store.updateJob(job.id, { status: 'running', started_at: new Date().toISOString() });
    job.status = 'running';
  }
  const result = runEntry(env.catalog(), job.requests[index]!, env.calculateTimeoutMs);
  await store.updateJob(job.id, {}, { index, result });
}

/** Mark the job succeeded once every entry has a result. */
export async function finishJob(store: Store, jobId: string): Promise<void> {
  const job = await store.job(jobId);
  if (job && job.results.every((r) => r !== null) && job.status !== 'succeeded') {
    await store.updateJob(jobId, { status: 'succeeded', finished_at: new Date().toISOString(), ...(job.started_at ? {} : { started_at: new Date().toISOString() }) });
  }
}

/** Record that a job cannot go on; a store that refuses that too is counted as a store error. */
export function failJob(store: Store, env: Pick<JobEnvironment, 'analytics'>, jobId: string, err: unknown): Promise<void> {
  return store.updateJob(jobId, { status: 'failed', finished_at: new Date().toISOString(), error: `the job could not be recorded: ${err instanceof Error ? err.message : String(err)}` }).catch((error: unknown) => env.analytics.storeError(error, `recording that job ${jobId} failed`));
}

interface Task {
  jobId: string;
  index: number;
}

export class JobRunner implements JobQueue {
  private readonly queue: Task[] = [];
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
    await this.store.createJob(job);
    this.enqueue(job);
    return job;
  }

  /** Pick up jobs a previous process left unfinished. */
  async resume(): Promise<number> {
    const jobs = await this.store.unfinishedJobs();
    for (const job of jobs) this.enqueue(job);
    return jobs.length;
  }

  private enqueue(job: JobRecord): void {
    job.results.forEach((r, index) => r === null && this.queue.push({ jobId: job.id, index }));
    if (job.results.every((r) => r !== null)) void finishJob(this.store, job.id).catch((error: unknown) => this.env.analytics.storeError(error, `finishing job ${job.id}`));
    this.pump();
  }

  private pump(): void {
    while (!this.stopping && this.running < this.concurrency && this.queue.length) {
      const task = this.queue.shift()!;
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

  private async run(task: Task): Promise<void> {
    try {
      const job = await this.store.job(task.jobId);
      if (!job || job.results[task.index] !== null) return;
      await runJobEntry(this.store, this.env, job, task.index);
      await finishJob(this.store, job.id);
    } catch (err) {
      await failJob(this.store, this.env, task.jobId, err);
    }
  }

  /** Stop starting entries; resolves when the ones running have finished. */
  stop(): Promise<void> {
    this.stopping = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
