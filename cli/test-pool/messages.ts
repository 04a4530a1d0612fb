import type { CacheReport } from '../../compiler/1-parse/parse-cache.js';
import type { ModuleCoverage } from '../../compiler/companion-tests/coverage/provisions.js';
import type { CaseResult } from '../../compiler/companion-tests/run-file.js';

// What the test pool's main thread and its workers say to each other.

export interface WorkerSetup {
  roots: string[];
  filter?: string;
  strict?: boolean;
  /** The parse cache's folder (none: no cache), and the run its workers write packs for. */
  cache?: { dir: string; run: string };
  /** Also say which module targets each test file reaches (what --watch needs). */
  closures?: boolean;
  /** Count what the cases exercise of these module files (--coverage), sent when the worker exits. */
  coverage?: { modules: string[] };
}

export type ToWorker = { type: 'run'; files: string[] } | { type: 'exit' };

export type FromWorker =
  | { type: 'results'; files: number; results: CaseResult[]; cache?: CacheReport; closures?: [file: string, targets: string[]][] }
  | { type: 'coverage'; modules: ModuleCoverage[] };
