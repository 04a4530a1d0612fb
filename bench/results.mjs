// Where every benchmark writes its report: bench/results/<name>.json, or the folder
// BENCH_RESULTS_DIR names (the benchmark test runs each script there, so recorded results stay).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = process.env.BENCH_RESULTS_DIR ?? fileURLToPath(new URL('results', import.meta.url));

/** Write `report` as <name>.json; returns how to name the file in a message. */
export function writeResult(name, report) {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  return process.env.BENCH_RESULTS_DIR ? path.join(RESULTS, `${name}.json`) : `bench/results/${name}.json`;
}
