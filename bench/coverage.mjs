// npm run bench:coverage — what `rules test --coverage` costs over the whole shared corpus: the
// same run with and without it, in interleaved rounds (BENCH_REPEATS, default 5; the ratio is the
// median of the rounds' ratios, each of two runs back to back), once
// without the parse cache and once with a warm one (each mode warmed first: coverage reads modules
// with their source lines, which the cache keeps apart). With coverage the run also writes
// lcov.info, as a CI job would. Records the coverage figures the README quotes.
// BENCH_SELECTION (a folder of the corpus) runs on that part alone. Writes bench/results/coverage.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const selection = process.env.BENCH_SELECTION ? [path.join(corpus, process.env.BENCH_SELECTION)] : [];
const repeats = Number(process.env.BENCH_REPEATS ?? 5);
const work = mkdtempSync(path.join(tmpdir(), 'rules-bench-coverage-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg().map((l) => +l.toFixed(2));

function test(coverage, cacheArgs) {
  const args = [`${project}bin/rules.js`, 'test', '--root', corpus, ...selection, '--json', ...cacheArgs];
  if (coverage) args.push('--coverage', '--coverage-reporter', 'lcov', '--coverage-dir', path.join(work, 'out'));
  const started = performance.now();
  const out = execFileSync(process.execPath, args, { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }).toString();
  const wall = Math.round(performance.now() - started);
  const { summary, stats, coverage: measured } = JSON.parse(out);
  return { summary, wall_ms: wall, cpu_ms: stats.cpu_ms, peak_rss_mib: Math.round(stats.peak_rss_bytes / 1048576), coverage: measured };
}

const loadBefore = load();
const modes = {};
let last;
for (const [cache, cacheArgs] of [['no_cache', ['--no-cache']], ['warm_cache', ['--cache-dir', path.join(work, 'cache')]]]) {
  if (cache === 'warm_cache') for (const coverage of [false, true]) test(coverage, cacheArgs);
  const rounds = Array.from({ length: repeats }, () => ({ off: test(false, cacheArgs), on: test(true, cacheArgs) }));
  const side = (name) => {
    const runs = rounds.map((r) => r[name]);
    return { wall_ms: median(runs.map((r) => r.wall_ms)), runs_ms: runs.map((r) => r.wall_ms), cpu_ms: median(runs.map((r) => r.cpu_ms)), peak_rss_mib: Math.max(...runs.map((r) => r.peak_rss_mib)) };
  };
  const [off, on] = [side('off'), side('on')];
  // each round's two runs ran back to back, so their ratio is the least touched by a changing load;
  // processor time (all threads) is stretched less by other processes than wall time
  const ratios = (key) => rounds.map((r) => +(r.on[key] / r.off[key]).toFixed(2));
  modes[cache] = { off, on, ratio: median(ratios('wall_ms')), round_ratios: ratios('wall_ms'), cpu_ratio: median(ratios('cpu_ms')) };
  console.log(`${cache.replace('_', ' ')}: without coverage ${off.wall_ms} ms (${off.runs_ms.join(', ')}), with ${on.wall_ms} ms (${on.runs_ms.join(', ')}): ×${modes[cache].ratio} (rounds ${ratios('wall_ms').join(', ')}); processor time ${off.cpu_ms} → ${on.cpu_ms} ms, ×${modes[cache].cpu_ratio}`);
  last = rounds.at(-1).on;
}
const { summary, coverage } = last;
rmSync(work, { recursive: true, force: true });

const report = {
  benchmark: 'coverage',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average: { before: loadBefore, after: load() } },
  corpus: path.basename(corpus),
  selection: process.env.BENCH_SELECTION ?? null,
  repeats,
  cases: { files: summary.files, cases: summary.cases, passed: summary.passed },
  ...modes,
  coverage: { modules: coverage.modules, summary: coverage.summary },
};
for (const [kind, s] of Object.entries(coverage.summary)) console.log(`  ${kind}: ${s.percent} % (${s.covered} of ${s.total})`);
console.log(`load average ${report.machine.load_average.before.join(' ')} → ${report.machine.load_average.after.join(' ')} → ${writeResult('coverage', report)}`);
