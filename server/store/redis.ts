import { Redis, ReplyError } from 'ioredis';
import { type AuditEntry, type BatchResult, type JobRecord, type JobSummary, type KillSwitch, RETENTION, type Store, StoreUnavailableError, type StoredKey, type ValidationRun, type WindowCount, windowOf } from './store.js';

// Shared durable store on Redis, for several daemons behind one load balancer. Every write that
// must be atomic is one Lua script (one round trip). Retention is Redis expiry, set when a record
// is written and measured from that moment, so nothing needs sweeping. Every key starts with the
// deployment prefix (RULES_REDIS_PREFIX), so one Redis can hold several deployments.
//
// Failures are quick: no offline queue (a command sent while disconnected fails at once), a
// command timeout, and no retry of a command in flight when the connection drops. Each becomes
// StoreUnavailableError; the client keeps reconnecting in the background.

const DAY_MS = 24 * 3600_000;
/** How soon a refused subscription to key announcements is tried again. */
const RESUBSCRIBE_MS = 5_000;
/** Counter windows are kept this long after they end (as SQLite's sweep does). */
const COUNTER_GRACE_MS = 2 * DAY_MS;
/** A month of usage is kept this long after its last write (about 13 months after the month). */
const USAGE_TTL_MS = (RETENTION.usageMonths + 1) * 31 * DAY_MS;
/** The newest audit entries kept (the admin route shows at most this many). */
export const AUDIT_KEEP = 200;
/** How long a command may take before it counts as a store failure. */
export const COMMAND_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 3_000;
/** Reconnect for ever, at most a second apart, so a daemon recovers as soon as Redis returns. */
export const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 1_000);
/** Channel on which key changes are announced to every instance. */
const KEYS_CHANGED = 'keys:changed';

/** Redis answers that mean "cannot serve now" rather than "your command is wrong". */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|READONLY|OOM|NOAUTH|WRONGPASS|NOPERM|CLUSTERDOWN|TRYAGAIN|MISCONF)\b/;

/** The URL with any password replaced, safe for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable Redis URL)';
  }
}

const SCRIPTS = {
  // KEYS: counter · ARGV: ttl ms → the count after this hit
  hit: {
    numberOfKeys: 1,
    lua: `local c = redis.call('INCR', KEYS[1])
      if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
      return c`,
  },
  // KEYS: hash, order list · ARGV: field, value → 1 when created, 0 when the field exists
  createOnce: {
    numberOfKeys: 2,
    lua: `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
      redis.call('RPUSH', KEYS[2], ARGV[1])
      return 1`,
  },
  // KEYS: hash, order list · ARGV: field, value (an upsert that keeps first-seen order)
  upsert: {
    numberOfKeys: 2,
    lua: `if redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) == 1 then redis.call('RPUSH', KEYS[2], ARGV[1]) end
      return 1`,
  },
  // KEYS: keys hash, revocations hash · ARGV: id, at → {key json, revoked_at} or nil
  revoke: {
    numberOfKeys: 2,
    lua: `local k = redis.call('HGET', KEYS[1], ARGV[1])
      if not k then return nil end
      redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
      return {k, redis.call('HGET', KEYS[2], ARGV[1])}`,
  },
  // KEYS: month hash, month order list · ARGV: key id, requests, ttl ms
  addUsage: {
    numberOfKeys: 2,
    lua: `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then redis.call('RPUSH', KEYS[2], ARGV[1]) end
      redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
      redis.call('PEXPIRE', KEYS[1], ARGV[3])
      redis.call('PEXPIRE', KEYS[2], ARGV[3])
      return 1`,
  },
  // A list of "<written ms>|<item>", newest first: push, keep at most ARGV[4] (0: no cap), drop
  // from the tail what was written before ARGV[3], and let the list expire ARGV[5] ms after its
  // last write. KEYS: list · ARGV: now ms, item, oldest ms kept, cap, ttl ms
  pushRecent: {
    numberOfKeys: 1,
    lua: `redis.call('LPUSH', KEYS[1], ARGV[1] .. '|' .. ARGV[2])
      if tonumber(ARGV[4]) > 0 then redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[4]) - 1) end
      local oldest = tonumber(ARGV[3])
      while true do
        local last = redis.call('LINDEX', KEYS[1], -1)
        if not last or tonumber(string.match(last, '^(%d+)|')) >= oldest then break end
        redis.call('RPOP', KEYS[1])
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[5])
      return 1`,
  },
  // Replace a job. KEYS: job hash, results hash, unfinished zset, sequence
  // ARGV: id, ttl ms, unfinished (1|0), result count n, n index/json pairs, then field/value pairs
  createJob: {
    numberOfKeys: 4,
    lua: `redis.call('DEL', KEYS[1], KEYS[2])
      local n = tonumber(ARGV[4])
      local fields = {}
      for i = 5 + 2 * n, #ARGV do fields[#fields + 1] = ARGV[i] end
      redis.call('HSET', KEYS[1], unpack(fields))
      for i = 0, n - 1 do redis.call('HSET', KEYS[2], ARGV[5 + 2 * i], ARGV[6 + 2 * i]) end
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      if n > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
      if ARGV[3] == '1' then
        if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[1]) end
      else
        redis.call('ZREM', KEYS[3], ARGV[1])
      end
      return 1`,
  },
  // Patch a job and record one entry once. KEYS: job hash, results hash, unfinished zset, sequence
  // ARGV: id, entry index (-1: none), entry json, then field/value pairs ('=' + value sets it, '' removes it)
  updateJob: {
    numberOfKeys: 4,
    lua: `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      for i = 4, #ARGV, 2 do
        local value = string.sub(ARGV[i + 1], 2)
        if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], value) end
        if ARGV[i] == 'status' then
          if value == 'pending' or value == 'running' then
            if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[1]) end
          else
            redis.call('ZREM', KEYS[3], ARGV[1])
          end
        end
      end
      local index = tonumber(ARGV[2])
      if index >= 0 and index < tonumber(redis.call('HGET', KEYS[1], 'total')) and redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 1 then
        redis.call('HSET', KEYS[1], 'completed', redis.call('HLEN', KEYS[2]))
        redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
      end
      return 1`,
  },
  // KEYS: snapshot, instance zset, sequence · ARGV: instance id, json, ttl ms
  putSnapshot: {
    numberOfKeys: 3,
    lua: `redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
      if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1]) end
      return 1`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type Scripted = Redis & Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

const json = (v: unknown): string => JSON.stringify(v);
const parse = <T>(s: string): T => JSON.parse(s) as T;

/** A recent-list item: "<written ms>|<payload>". */
function splitRecent(item: string): { at: number; payload: string } {
  const bar = item.indexOf('|');
  return { at: Number(item.slice(0, bar)), payload: item.slice(bar + 1) };
}

const JOB_PATCH_FIELDS = ['status', 'started_at', 'finished_at', 'error'] as const;

export interface RedisStoreOptions {
  /** Key prefix of this deployment (RULES_REDIS_PREFIX). */
  prefix: string;
  commandTimeoutMs?: number;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly durable = true;
  private subscriber: Redis | undefined;
  private readonly keyWatchers: { listener: () => void; failed: (error: unknown) => void }[] = [];
  /** A subscription to key announcements was refused: announcements may have been missed. */
  private subscribeFailed = false;
  private closed = false;

  private constructor(
    private readonly redis: Scripted,
    /** The Redis URL, password redacted. */
    readonly where: string,
    /** The Redis URL as configured (with any password): for further connections, never for messages. */
    readonly url: string,
    readonly prefix: string,
  ) {}

  /**
   * Connect to the Redis at `url` (redis:// or rediss://, optionally with user and password).
   * Throws StoreUnavailableError when it cannot be reached within a few seconds.
   */
  static async connect(url: string, options: RedisStoreOptions): Promise<RedisStore> {
    const redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: reconnectDelay,
    });
    // Errors surface through the commands that fail; the event would otherwise be unhandled.
    redis.on('error', () => undefined);
    for (const [name, script] of Object.entries(SCRIPTS)) redis.defineCommand(name, script);
    const store = new RedisStore(redis as Scripted, redactUrl(url), url, options.prefix);
    try {
      await Promise.race([redis.connect(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS).unref())]);
      await redis.ping();
    } catch (error) {
      redis.disconnect();
      throw store.unavailable(error);
    }
    return store;
  }

  private unavailable(error: unknown): StoreUnavailableError {
    const message = error instanceof Error ? error.message : String(error);
    return new StoreUnavailableError(`Redis store ${this.where} unavailable: ${message}`, { cause: error });
  }

  /** Run a command, mapping "cannot reach Redis" failures (anything but a command error). */
  private async run<T>(fn: (r: Scripted) => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError(`Redis store ${this.where} is closed`);
    try {
      return await fn(this.redis);
    } catch (error) {
      if (error instanceof ReplyError && !UNAVAILABLE_REPLIES.test((error as Error).message)) throw error;
      throw this.unavailable(error);
    }
  }

  private k(name: string): string {
    return `${this.prefix}${name}`;
  }

  async ping(): Promise<void> {
    await this.run((r) => r.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscriber?.disconnect();
    try {
      await this.redis.quit();
    } catch {
      // Already unreachable: nothing to flush.
    } finally {
      this.redis.disconnect();
    }
  }

  /** Nothing to do: every record was given its expiry when it was written. */
  async sweep(): Promise<void> {}

  /**
   * Call `listener` when any instance issues or revokes a key (and after a lost subscription is
   * re-established, since announcements may have been missed meanwhile). A subscription Redis
   * refuses (an ACL without SUBSCRIBE, Redis away at that moment) is passed to `failed` and tried
   * again every RESUBSCRIBE_MS until it holds; ioredis renews it after every reconnection.
   */
  watchKeys(listener: () => void, failed: (error: unknown) => void): void {
    if (this.closed) return;
    this.keyWatchers.push({ listener, failed });
    if (this.subscriber) return;
    const subscriber = (this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, lazyConnect: false, commandTimeout: undefined }));
    subscriber.on('error', () => undefined);
    const changed = () => this.keyWatchers.forEach((w) => w.listener());
    subscriber.on('message', changed);
    subscriber.on('ready', changed);
    const subscribe = (): Promise<void> =>
      subscriber.subscribe(this.k(KEYS_CHANGED)).then(
        // announcements may have been missed while the subscription was refused
        () => void (this.subscribeFailed && changed()),
        (error: unknown) => {
          if (this.closed) return;
          this.subscribeFailed = true;
          this.keyWatchers.forEach((w) => w.failed(error));
          setTimeout(() => void subscribe(), RESUBSCRIBE_MS).unref();
        },
      );
    void subscribe();
  }

  /** Call `listener` once when the connection to Redis is lost (with why) and once when it is back. */
  watchConnection(listener: (up: boolean, reason: string) => void): void {
    let up = true;
    let lastError = '';
    this.redis.on('error', (error: Error) => (lastError = error.message));
    this.redis.on('close', () => {
      if (!up || this.closed) return;
      up = false;
      listener(false, lastError || 'the connection closed');
    });
    this.redis.on('ready', () => {
      if (up) return;
      up = true;
      lastError = '';
      listener(true, '');
    });
  }

  private announceKeys(r: Scripted): Promise<unknown> {
    return r.publish(this.k(KEYS_CHANGED), '1');
  }

  private counterKey(bucket: string, windowSeconds: number, start: number): string {
    return this.k(`ctr:${bucket}@${windowSeconds}:${start}`);
  }

  hit(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    return this.run(async (r) => ({ count: Number(await r.hit(this.counterKey(bucket, windowSeconds, start), reset_at - now + COUNTER_GRACE_MS)), reset_at }));
  }

  peek(bucket: string, windowSeconds: number, now: number): Promise<WindowCount> {
    const { start, reset_at } = windowOf(windowSeconds, now);
    return this.run(async (r) => ({ count: Number((await r.get(this.counterKey(bucket, windowSeconds, start))) ?? 0), reset_at }));
  }

  createKey(key: StoredKey): Promise<boolean> {
    return this.run(async (r) => {
      const created = Number(await r.createOnce(this.k('keys'), this.k('keys:order'), key.id, json(key))) === 1;
      if (created) await this.announceKeys(r);
      return created;
    });
  }

  /** A stored key with its revocation (kept apart so revoking never rewrites the record). */
  private static withRevocation(raw: string, revokedAt: string | null): StoredKey {
    const key = parse<StoredKey>(raw);
    return key.status !== 'revoked' && revokedAt !== null ? { ...key, status: 'revoked', revoked_at: revokedAt } : key;
  }

  listKeys(): Promise<StoredKey[]> {
    return this.run(async (r) => {
      const ids = await r.lrange(this.k('keys:order'), 0, -1);
      if (!ids.length) return [];
      const [keys, revoked] = await Promise.all([r.hmget(this.k('keys'), ...ids), r.hmget(this.k('keys:revoked'), ...ids)]);
      return keys.flatMap((raw, i) => (raw === null ? [] : [RedisStore.withRevocation(raw, revoked[i] ?? null)]));
    });
  }

  revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    return this.run(async (r) => {
      const found = (await r.revoke(this.k('keys'), this.k('keys:revoked'), id, at)) as [string, string] | null;
      if (!found) return undefined;
      await this.announceKeys(r);
      return RedisStore.withRevocation(found[0], found[1]);
    });
  }

  addComputeUnits(keyId: string, units: number): Promise<number> {
    return this.run(async (r) => Number(await r.hincrbyfloat(this.k('cu'), keyId, units)));
  }

  computeUnits(keyId: string): Promise<number> {
    return this.run(async (r) => Number((await r.hget(this.k('cu'), keyId)) ?? 0));
  }

  addUsage(month: string, keyId: string, requests: number): Promise<void> {
    return this.run(async (r) => {
      await r.addUsage(this.k(`usage:${month}`), this.k(`usage:${month}:order`), keyId, requests, USAGE_TTL_MS);
    });
  }

  usage(month: string): Promise<{ api_key_id: string; requests: number }[]> {
    return this.run(async (r) => {
      const [ids, counts] = await Promise.all([r.lrange(this.k(`usage:${month}:order`), 0, -1), r.hgetall(this.k(`usage:${month}`))]);
      // first-seen order, then a stable sort: ties keep it, as in the other stores
      return ids.filter((id) => id in counts).map((id) => ({ api_key_id: id, requests: Number(counts[id]) })).sort((a, b) => b.requests - a.requests);
    });
  }

  addAudit(entry: AuditEntry): Promise<void> {
    const now = Date.now();
    return this.run(async (r) => {
      await r.pushRecent(this.k('audit'), now, json(entry), now - RETENTION.auditMs, AUDIT_KEEP, RETENTION.auditMs);
    });
  }

  audit(limit: number): Promise<AuditEntry[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return Promise.resolve([]);
    const oldest = Date.now() - RETENTION.auditMs;
    return this.run(async (r) => (await r.lrange(this.k('audit'), 0, n - 1)).map(splitRecent).filter((e) => e.at >= oldest).map((e) => parse<AuditEntry>(e.payload)));
  }

  private jobKeys(id: string): string[] {
    return [this.k(`job:${id}`), this.k(`job:${id}:results`), this.k('jobs:unfinished'), this.k('jobs:seq')];
  }

  createJob(job: JobRecord): Promise<void> {
    const results = job.results.flatMap((result, index) => (result === null ? [] : [String(index), json(result)]));
    const fields: string[] = ['id', job.id, 'status', job.status, 'created_at', job.created_at, 'total', String(job.total), 'completed', String(job.completed), 'requests', json(job.requests)];
    if (job.api_key_id !== null) fields.push('api_key_id', job.api_key_id);
    for (const f of ['started_at', 'finished_at', 'error'] as const) if (job[f] !== undefined) fields.push(f, job[f]);
    const unfinished = job.status === 'pending' || job.status === 'running' ? 1 : 0;
    return this.run(async (r) => {
      await r.createJob(...this.jobKeys(job.id), job.id, RETENTION.jobsMs, unfinished, results.length / 2, ...results, ...fields);
    });
  }

  private async readJob(r: Scripted, id: string): Promise<JobRecord | undefined> {
    const [summary, stored] = await Promise.all([this.readSummary(r, id), r.hgetall(this.k(`job:${id}:results`))]);
    return summary && { ...summary, results: Array.from({ length: summary.total }, (_, i) => (stored[i] === undefined ? null : parse<BatchResult>(stored[i]))) };
  }

  private async readSummary(r: Scripted, id: string): Promise<JobSummary | undefined> {
    const meta = await r.hgetall(this.k(`job:${id}`));
    if (!meta.id) return undefined;
    const job: JobSummary = {
      id: meta.id,
      status: meta.status as JobRecord['status'],
      created_at: meta.created_at!,
      total: Number(meta.total),
      completed: Number(meta.completed),
      api_key_id: meta.api_key_id ?? null,
      requests: parse(meta.requests!),
    };
    for (const f of ['started_at', 'finished_at', 'error'] as const) if (meta[f] !== undefined) job[f] = meta[f];
    return job;
  }

  job(id: string): Promise<JobRecord | undefined> {
    return this.run((r) => this.readJob(r, id));
  }

  jobSummary(id: string): Promise<JobSummary | undefined> {
    return this.run((r) => this.readSummary(r, id));
  }

  jobResult(id: string, index: number): Promise<BatchResult | null | undefined> {
    return this.run(async (r) => {
      const [exists, result] = await Promise.all([r.exists(this.k(`job:${id}`)), r.hget(this.k(`job:${id}:results`), String(index))]);
      return exists ? (result === null ? null : parse<BatchResult>(result)) : undefined;
    });
  }

  updateJob(id: string, patch: Partial<Pick<JobRecord, 'status' | 'started_at' | 'finished_at' | 'error'>>, entry?: { index: number; result: BatchResult }): Promise<void> {
    // A field present in the patch is set (removed when undefined); an undefined status is ignored.
    const fields = JOB_PATCH_FIELDS.filter((f) => Object.hasOwn(patch, f) && (f !== 'status' || patch.status !== undefined)).flatMap((f) => [f, patch[f] === undefined ? '' : `=${patch[f]}`]);
    const index = entry && Number.isInteger(entry.index) ? entry.index : -1;
    return this.run(async (r) => {
      await r.updateJob(...this.jobKeys(id), id, index, entry ? json(entry.result) : '', ...fields);
    });
  }

  unfinishedJobs(): Promise<JobRecord[]> {
    return this.run(async (r) => {
      const ids = await r.zrange(this.k('jobs:unfinished'), 0, -1);
      const jobs = await Promise.all(ids.map((id) => this.readJob(r, id)));
      // a job that expired leaves its id behind: drop it now
      const gone = ids.filter((_, i) => !jobs[i]);
      if (gone.length) await r.zrem(this.k('jobs:unfinished'), ...gone);
      return jobs.filter((j): j is JobRecord => j !== undefined);
    });
  }

  addValidationRun(run: ValidationRun): Promise<void> {
    const now = Date.now();
    return this.run(async (r) => {
      // the first run recorded under an id is the one kept, as the other stores find it
      const stored = await r.set(this.k(`run:${run.id}`), json(run), 'PX', RETENTION.validationRunsMs, 'NX');
      if (stored) await r.pushRecent(this.k('runs'), now, run.id, now - RETENTION.validationRunsMs, 0, RETENTION.validationRunsMs);
    });
  }

  validationRuns(): Promise<ValidationRun[]> {
    return this.run(async (r) => {
      const ids = (await r.lrange(this.k('runs'), 0, -1)).map((item) => splitRecent(item).payload);
      if (!ids.length) return [];
      const runs = await r.mget(...ids.map((id) => this.k(`run:${id}`)));
      return runs.flatMap((raw) => (raw === null ? [] : [parse<ValidationRun>(raw)]));
    });
  }

  validationRun(id: string): Promise<ValidationRun | undefined> {
    return this.run(async (r) => {
      const raw = await r.get(this.k(`run:${id}`));
      return raw === null ? undefined : parse<ValidationRun>(raw);
    });
  }

  putSnapshot(instanceId: string, snapshot: Record<string, unknown>, at: number): Promise<void> {
    return this.run(async (r) => {
      await r.putSnapshot(this.k(`snap:${instanceId}`), this.k('snaps'), this.k('snaps:seq'), instanceId, json({ at, snapshot }), RETENTION.snapshotsMs);
    });
  }

  snapshots(since: number): Promise<Record<string, unknown>[]> {
    return this.run(async (r) => {
      const ids = await r.zrange(this.k('snaps'), 0, -1);
      if (!ids.length) return [];
      const stored = await r.mget(...ids.map((id) => this.k(`snap:${id}`)));
      // an instance whose snapshot expired (stopped a day ago or more) leaves its id: drop it now
      const gone = ids.filter((_, i) => stored[i] === null);
      if (gone.length) await r.zrem(this.k('snaps'), ...gone);
      return stored.flatMap((raw) => (raw === null ? [] : [parse<{ at: number; snapshot: Record<string, unknown> }>(raw)])).filter((s) => s.at >= since).map((s) => s.snapshot);
    });
  }

  killSwitches(): Promise<KillSwitch[]> {
    return this.run(async (r) => {
      const names = await r.lrange(this.k('kill:order'), 0, -1);
      if (!names.length) return [];
      return (await r.hmget(this.k('kill'), ...names)).flatMap((raw) => (raw === null ? [] : [parse<KillSwitch>(raw)]));
    });
  }

  setKillSwitch(s: KillSwitch): Promise<void> {
    return this.run(async (r) => {
      await r.upsert(this.k('kill'), this.k('kill:order'), s.switch, json(s));
    });
  }
}
