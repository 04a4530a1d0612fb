import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { defaultProgramsDirs } from '../compiler/2-resolve/corpus-layout.js';
import { SourceTree } from '../compiler/2-resolve/source-tree.js';
import { buildInto } from '../compiler/build-into.js';
import { recordStamp, upToDate } from '../compiler/compile-stamp.js';
import { Workspace } from '../compiler/workspace.js';
import { BUNDLED_ROOT, FIXTURES_DIR } from '../compiler/project.js';
import { Analytics } from './analytics.js';
import { buildApp } from './app.js';
import { descriptorWarning } from './connections.js';
import { DataDirLock } from './data-dir-lock.js';
import { KeyRegistry } from './auth/keys.js';
import type { ServerConfig } from './config.js';
import type { ServerContext } from './context.js';
import { type JobQueue, JobRunner } from './jobs.js';
import { RedisJobQueue, type RedisJobEnvironment } from './jobs-redis.js';
import { Catalog, type RuntimeMode } from './catalog/catalog.js';
import { MemoryStore } from './store/memory.js';
import { RedisStore } from './store/redis.js';
import { SqliteStore } from './store/sqlite.js';
import type { Store } from './store/store.js';
import { logBuildProblems, watchForReload } from './reload.js';
import { mappingIndex } from './migration/package-mapping.js';
import type { SourceWatcher } from '../compiler/watch.js';

// Starting and stopping the daemon: lock the data dir (with SQLite, one daemon per store), open the
// store, compile (or reuse) the encodings, load the catalogue, resume unfinished jobs, listen; on
// SIGTERM/SIGINT stop accepting, finish requests in flight and the job entries already running,
// flush counters, close the store, unlock. Requests still in flight when the grace period ends (a
// slow upload, a stalled client) have their connections cut, so stopping takes at most the grace
// period plus one job entry (each bounded by the calculation time limit). Pending job entries stay
// pending in the store for the next start.

const FIXTURE_ROOT = path.join(FIXTURES_DIR, 'rulespec');

export interface Daemon {
  app: FastifyInstance;
  ctx: ServerContext;
  url: string;
  /** Resolves when stopped; `graceExpired` when connections still in flight had to be cut. */
  stop(): Promise<{ graceExpired: boolean }>;
}

interface Compilation {
  workspace: Workspace;
  out: string;
}

/** Compile roots into `out` unless the last compilation there is of the same inputs (encodings,
 *  specs and the compiler itself: the stamp `rules compile` keeps, see compiler/compile-stamp.ts). */
function compileInto(roots: string[], out: string, rebuilds: boolean, log: (m: string) => void): Compilation {
  const workspace = new Workspace(roots, defaultProgramsDirs(roots));
  const stampFile = `${out}.stamp`;
  const inputs = workspace.inputsHash();
  const reused = upToDate(stampFile, inputs, out);
  if (reused) {
    log(`reusing the compiled output in ${out} (inputs unchanged)`);
    logBuildProblems(reused, log); // what that compilation could not do still holds
    return { workspace, out };
  }
  const started = performance.now();
  const manifest = buildInto(workspace, out, { fullSweep: true, rebuilds });
  recordStamp(stampFile, inputs, out);
  log(`compiled ${manifest.packages.length} packages (${manifest.failures.length} failed) from ${roots.join(', ')} in ${Math.round(performance.now() - started)} ms`);
  logBuildProblems(manifest, log);
  return { workspace, out };
}

export async function openStore(config: ServerConfig): Promise<Store> {
  if (config.store === 'memory') return new MemoryStore();
  if (config.redis) return RedisStore.connect(config.redis.url, { prefix: config.redis.prefix });
  return SqliteStore.open(path.join(config.dataDir, 'rules.db'));
}

/** Jobs queue in Redis beside a Redis store (every instance runs them), else in this process. */
export function jobQueueFor(store: Store, config: ServerConfig, parts: { catalog: () => Catalog; instanceId: string; analytics: Analytics }): JobQueue {
  const env: RedisJobEnvironment = { ...parts, calculateTimeoutMs: config.calculateTimeoutMs, maxPendingJobs: config.maxPendingJobsPerKey };
  return store instanceof RedisStore ? new RedisJobQueue(store, config.jobConcurrency, env) : new JobRunner(store, config.jobConcurrency, env);
}

interface StartOptions {
  logger?: boolean | object;
  log?: (m: string) => void;
}

/** Start a daemon; with the SQLite store, the only one on its data dir (DataDirBusyError otherwise). */
export async function startDaemon(config: ServerConfig, options: StartOptions = {}): Promise<Daemon> {
  mkdirSync(config.dataDir, { recursive: true });
  const lock = config.store === 'sqlite' ? DataDirLock.acquire(config.dataDir) : undefined;
  try {
    return await start(config, options, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function start(config: ServerConfig, options: StartOptions, lock: DataDirLock | undefined): Promise<Daemon> {
  const log = options.log ?? (() => undefined);
  const store = await openStore(config);

  const mode: RuntimeMode = config.runtime;
  let compilation: Compilation | undefined;
  let catalog: Catalog;
  if (config.compiled && mode === 'compiled') {
    catalog = Catalog.load(config.compiled, mode);
  } else {
    const roots = mode === 'fixture' ? [FIXTURE_ROOT] : config.roots.length ? config.roots : [BUNDLED_ROOT];
    compilation = compileInto(roots, path.join(config.dataDir, mode === 'fixture' ? 'fixture-compiled' : 'compiled'), config.watch, log);
    catalog = Catalog.load(compilation.out, mode);
  }
  const treeRoots = config.roots.length ? config.roots : catalog.roots;
  const tree = treeRoots.length ? new SourceTree(treeRoots) : null;

  const instanceId = config.instanceId;
  const analytics = new Analytics(instanceId);
  const keys = new KeyRegistry(config.apiKeys, store, { watchFailed: (error) => analytics.storeError(error, 'subscribing to key change announcements') });
  await keys.refresh();
  const jobs = jobQueueFor(store, config, { catalog: () => catalog, instanceId, analytics });
  const ctx: ServerContext = {
    config,
    store,
    keys,
    catalog: () => catalog,
    tree: () => tree,
    jobs,
    analytics,
    instanceId,
    startedAt: new Date(),
  };

  const app = buildApp(ctx, { logger: options.logger });
  // mapping tables written against another version of the corpus served: each gap said once
  for (const warning of mappingIndex(catalog).warnings) app.log.warn(warning);
  if (store instanceof RedisStore) {
    const where = `Redis store ${store.where}`;
    store.watchConnection((up, reason) =>
      up ? app.log.warn(`${where} is reachable again`) : app.log.error(`${where} is unreachable (${reason}): requests that need it answer 503 store_unavailable until it returns; reconnecting`),
    );
  }
  const descriptors = descriptorWarning(config.connections);
  if (descriptors) log(`warning: ${descriptors}`);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  lock?.listening(url);
  const resumed = await jobs.resume();
  if (resumed) log(`resumed ${resumed} unfinished jobs`);

  // counters and usage are batched to the store in the background, off the request path
  const flush = async () => {
    try {
      await ctx.analytics.flushUsage(store);
      await store.putSnapshot(instanceId, ctx.analytics.snapshot() as unknown as Record<string, unknown>, Date.now());
    } catch (error) {
      ctx.analytics.storeError(error, 'flushing usage and analytics');
    }
  };
  const flushTimer = setInterval(() => void flush(), 5_000);
  const sweep = () => void store.sweep(Date.now()).catch((error: unknown) => ctx.analytics.storeError(error, 'sweeping expired records'));
  const sweepTimer = setInterval(sweep, 3600_000);
  flushTimer.unref();
  sweepTimer.unref();
  sweep();

  let watcher: SourceWatcher | undefined;
  if (config.watch && compilation) {
    watcher = watchForReload(compilation.workspace, compilation.out, mode, (next) => (catalog = next), log);
    await watcher.ready;
  }

  let stopping: Promise<{ graceExpired: boolean }> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(flushTimer);
      clearInterval(sweepTimer);
      let graceExpired = false;
      const grace = setTimeout(() => {
        graceExpired = true;
        app.server.closeAllConnections();
      }, config.shutdownGraceMs);
      const jobsStopped = jobs.stop(); // no new entries start; the running ones finish
      await watcher?.close();
      await app.close(); // stops accepting and waits for requests in flight
      await jobsStopped;
      clearTimeout(grace);
      await flush();
      await store.close();
      lock?.release();
      return { graceExpired };
    })());
  return { app, ctx, url, stop };
}
