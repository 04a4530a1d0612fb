import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CaseResult } from '../../compiler/harness/run-file.js';
import type { FromWorker, ToWorker, WorkerSetup } from './messages.js';

// Spreads test files over worker threads, one per core. Files go out in small batches of
// neighbours (files in one folder tend to share imports, which a worker has then parsed).

export interface PoolProgress {
  files: number;
  results: CaseResult[];
}

export async function runInPool(
  files: string[],
  setup: WorkerSetup,
  onProgress: (progress: PoolProgress) => void,
  requestedWorkers?: number,
): Promise<CaseResult[]> {
  const workers = requestedWorkers ?? Math.max(1, Math.min(availableParallelism(), Math.ceil(files.length / 8)));
  const batchSize = Math.max(1, Math.min(16, Math.ceil(files.length / (workers * 8))));
  const batches: string[][] = [];
  for (let i = 0; i < files.length; i += batchSize) batches.push(files.slice(i, i + batchSize));
  const collected: CaseResult[][] = new Array(batches.length);
  let next = 0;
  const progress: PoolProgress = { files: 0, results: [] };

  const runWorker = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: setup });
      let current = -1;
      const feed = () => {
        if (next >= batches.length) {
          worker.postMessage({ type: 'exit' } satisfies ToWorker);
          return;
        }
        current = next++;
        worker.postMessage({ type: 'run', files: batches[current] } satisfies ToWorker);
      };
      worker.on('message', (msg: FromWorker) => {
        collected[current] = msg.results;
        progress.files += msg.files;
        progress.results = msg.results;
        onProgress(progress);
        feed();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`test worker exited with code ${code}`))));
      feed();
    });

  await Promise.all(Array.from({ length: Math.min(workers, batches.length) }, runWorker));
  return collected.flat();
}
