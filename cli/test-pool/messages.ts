import type { CaseResult } from '../../compiler/harness/run-file.js';

// What the test pool's main thread and its workers say to each other.

export interface WorkerSetup {
  roots: string[];
  filter?: string;
  strict?: boolean;
}

export type ToWorker = { type: 'run'; files: string[] } | { type: 'exit' };

export type FromWorker = { type: 'results'; files: number; results: CaseResult[] };
