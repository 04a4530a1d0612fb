// npm run bench:corpus — `rules test` over the whole shared corpus, with one worker and with one
// per core, in one run so the ratio is meaningful; without the parse cache (bench:test-loop
// measures it). Writes bench/results/corpus.json.
import { execFileSync } from 'node:child_process';

import { availableParallelism, cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const repeats = Number(process.env.BENCH_REPEATS ?? 3);

function run(workers) {
  const out = execFileSync(process.execPath, [`${project}bin/rules.js`, 'test', '--root', corpus, '--json', '--workers', String(workers), '--no-cache'], {
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  }).toString();
  const { summary, stats } = JSON.parse(out);
  return { summary, wall_ms: stats.duration_ms, peak_rss_mb: Math.round(stats.peak_rss_bytes / 1048576) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
for (const workers of [1, availableParallelism()]) {
  const runs = Array.from({ length: repeats }, () => run(workers));
  const wall = median(runs.map((r) => r.wall_ms));
  const { summary } = runs[0];
  results.push({
    workers,
    files: summary.files,
    cases: summary.cases,
    passed: summary.passed,
    wall_ms: wall,
    wall_ms_runs: runs.map((r) => r.wall_ms),
    cases_per_s: Math.round(summary.cases / (wall / 1000)),
    peak_rss_mb: Math.max(...runs.map((r) => r.peak_rss_mb)),
  });
  console.log(`workers=${workers}: ${summary.passed}/${summary.cases} cases in ${wall} ms (${results.at(-1).cases_per_s} cases/s), peak RSS ${results.at(-1).peak_rss_mb} MiB`);
}
const report = {
  benchmark: 'corpus',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  corpus: path.basename(corpus),
  repeats,
  results,
  speedup: +(results[0].wall_ms / results.at(-1).wall_ms).toFixed(2),
};
console.log(`speedup with ${availableParallelism()} workers: ${report.speedup}x → ${writeResult('corpus', report)}`);
