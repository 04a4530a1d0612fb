import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CacheReport } from '../../compiler/1-parse/parse-cache.js';
import type { ModuleCoverage } from '../../compiler/companion-tests/coverage/provisions.js';
import type { CaseResult } from '../../compiler/companion-tests/run-file.js';
import type { FromWorker, ToWorker, WorkerSetup } from './messages.js';

// Spreads test files over worker threads, one per core. Most of a run is parsing the modules
// that test files import, and neighbouring files share imports, so each worker owns a
// contiguous region of the (sorted) file list and walks it front to back; a worker whose
// region is done takes batches from the back of the region with the most left.

export interface PoolProgress {
  files: number;
  results: CaseResult[];
}

export interface PoolRun {
  results: CaseResult[];
  /** What the workers' parse caches did, when there is a cache. */
  cache: CacheReport[];
  /** Test file → the module targets it reaches, when the setup asks for them. */
  closures: Map<string, string[]>;
  /** Each worker's coverage counts, when the setup asks for them (one record per module and worker). */
  coverage: ModuleCoverage[];
}

/** A larger young generation than V8's default: a run allocates many short-lived values (parsed
 *  modules, datasets, decimals), and with the default most of its time went to scavenges. */
const YOUNG_GENERATION_MB = 96;

interface Region {
  next: number; // first batch not yet handed out
  end: number; // one past the last batch
}

export async function runInPool(
  files: string[],
  setup: WorkerSetup,
  onProgress: (progress: PoolProgress) => void,
  requestedWorkers?: number,
): Promise<PoolRun> {
  const workers = requestedWorkers ?? Math.max(1, Math.min(availableParallelism(), Math.ceil(files.length / 8)));
  const batchSize = Math.max(1, Math.min(16, Math.ceil(files.length / (workers * 8))));
  const batches: string[][] = [];
  for (let i = 0; i < files.length; i += batchSize) batches.push(files.slice(i, i + batchSize));
  const count = Math.min(workers, batches.length);
  const regions: Region[] = Array.from({ length: count }, (_, i) => ({
    next: Math.floor((i * batches.length) / count),
    end: Math.floor(((i + 1) * batches.length) / count),
  }));
  const collected: CaseResult[][] = new Array(batches.length);
  const progress: PoolProgress = { files: 0, results: [] };
  const cache: CacheReport[] = [];
  const closures = new Map<string, string[]>();
  const coverage: ModuleCoverage[] = [];

  const take = (own: Region): number | undefined => {
    if (own.next < own.end) return own.next++;
    const richest = regions.reduce((a, b) => (b.end - b.next > a.end - a.next ? b : a));
    return richest.next < richest.end ? --richest.end : undefined;
  };

  const runWorker = (own: Region) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
      let current: number | undefined;
      const feed = () => {
        current = take(own);
        const msg: ToWorker = current === undefined ? { type: 'exit' } : { type: 'run', files: batches[current] };
        worker.postMessage(msg);
      };
      worker.on('message', (msg: FromWorker) => {
        if (msg.type === 'coverage') {
          for (const m of msg.modules) coverage.push(m);
          return;
        }
        collected[current!] = msg.results;
        if (msg.cache) cache.push(msg.cache);
        for (const [file, targets] of msg.closures ?? []) closures.set(file, targets);
        progress.files += msg.files;
        progress.results = msg.results;
        onProgress(progress);
        feed();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`test worker exited with code ${code}`))));
      feed();
    });

  await Promise.all(regions.map(runWorker));
  return { results: collected.flat(), cache, closures, coverage };
}
