// npm run bench:test-loop — the encoder's test loop over the whole shared corpus, in one run:
//   1. `rules test` without the parse cache, cold (an empty cache, filled by the run) and warm,
//      in interleaved rounds (median of BENCH_REPEATS, default 3);
//   2. `rules test --watch`: the re-run after editing one Colorado module, from the write on disk
//      to the run's report on stdout, and the run alone.
// The watched corpus is a temporary copy (the shared corpus is never edited). Writes
// bench/results/test-loop.json.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const cli = `${project}bin/rules.js`;
const work = mkdtempSync(path.join(tmpdir(), 'rules-bench-loop-'));
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes) => Math.round(bytes / 1048576);

// 1. whole corpus: no cache, cold cache, warm cache
function test(cacheArgs) {
  const started = performance.now();
  const out = execFileSync(process.execPath, [cli, 'test', '--root', corpus, '--json', ...cacheArgs], { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }).toString();
  const wall = Math.round(performance.now() - started);
  const { summary, stats } = JSON.parse(out);
  return { passed: summary.passed, cases: summary.cases, files: summary.files, wall_ms: wall, run_ms: stats.duration_ms, peak_rss_mib: mib(stats.peak_rss_bytes), parse_cache: stats.parse_cache };
}
// rounds of the three, interleaved, so that the load of a shared machine falls on all alike
const rounds = Array.from({ length: repeats }, (_, i) => {
  const cacheDir = path.join(work, `cache-${i}`);
  return { no_cache: test(['--no-cache']), cold: test(['--cache-dir', cacheDir]), warm: test(['--cache-dir', cacheDir]) };
});
const whole = Object.fromEntries(
  ['no_cache', 'cold', 'warm'].map((name) => {
    const runs = rounds.map((r) => r[name]);
    return [name, { ...runs[0], wall_ms: median(runs.map((r) => r.wall_ms)), runs_ms: runs.map((r) => r.wall_ms), peak_rss_mib: Math.max(...runs.map((r) => r.peak_rss_mib)) }];
  }),
);
for (const [name, r] of Object.entries(whole)) console.log(`rules test, ${name.replace('_', ' ')}: ${r.passed}/${r.cases} cases, median ${r.wall_ms} ms wall (${r.runs_ms.join(', ')}), peak RSS ${r.peak_rss_mib} MiB`);

// 2. --watch on a copy: edit one Colorado module (alternating values), time each re-run
const copy = path.join(work, 'rulespec-us');
cpSync(corpus, copy, { recursive: true });
const moduleRel = 'us-co/regulations/10-ccr-2506-1/4.407.31.yaml';
const moduleFile = path.join(copy, moduleRel);
const original = readFileSync(moduleFile, 'utf8');
if (!original.includes("formula: '594'")) throw new Error(`${moduleRel} no longer holds the value this benchmark edits`);

const proc = spawn(process.execPath, [cli, 'test', '--watch', '--json', '--root', copy, '--cache-dir', path.join(work, 'watch-cache')], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
const runs = [];
let waiting;
let pending = '';
proc.stdout.on('data', (chunk) => {
  pending += chunk.toString();
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    runs.push({ at: performance.now(), report: JSON.parse(pending.slice(0, nl)) });
    pending = pending.slice(nl + 1);
    waiting?.();
  }
});
const nextRun = (n) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no run #${n} within 120 s`)), 120_000);
    const check = () => (runs.length >= n ? (clearTimeout(timer), resolve(runs[n - 1])) : (waiting = check));
    check();
  });

const first = await nextRun(1);
const reruns = [];
for (let i = 0; i < 7; i++) {
  await new Promise((r) => setTimeout(r, 300)); // let the watcher settle between edits
  const written = performance.now();
  writeFileSync(moduleFile, original.replace("formula: '594'", `formula: '${i % 2 ? 594 : 600 + i}'`));
  const { at, report } = await nextRun(2 + i);
  reruns.push({ end_to_end_ms: Math.round(at - written), run_ms: report.stats.duration_ms, files: report.summary.files, cases: report.summary.cases });
}
proc.kill('SIGTERM');
await new Promise((r) => proc.once('exit', r));
rmSync(work, { recursive: true, force: true });
const watch = {
  edited: moduleRel,
  first_run_ms: first.report.stats.duration_ms,
  rerun_files: reruns[0].files,
  rerun_cases: reruns[0].cases,
  end_to_end_ms: median(reruns.map((r) => r.end_to_end_ms)),
  run_ms: median(reruns.map((r) => r.run_ms)),
  runs: reruns,
};
console.log(`--watch re-run after editing ${moduleRel}: ${watch.rerun_files} test files, ${watch.rerun_cases} cases; median ${watch.end_to_end_ms} ms from the write to the report (the run itself ${watch.run_ms} ms)`);

const report = {
  benchmark: 'test-loop',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
  corpus: path.basename(corpus),
  repeats,
  whole_corpus: { ...whole, warm_vs_cold: +(whole.cold.wall_ms / whole.warm.wall_ms).toFixed(2), warm_vs_no_cache: +(whole.no_cache.wall_ms / whole.warm.wall_ms).toFixed(2) },
  watch: { ...watch, target_ms: 300, met: watch.end_to_end_ms < 300 },
};
console.log(`warm cache ${report.whole_corpus.warm_vs_cold}x faster than cold → ${writeResult('test-loop', report)}`);
