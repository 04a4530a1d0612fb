// npm run bench:compile — `rules compile` over the shared corpus through the CLI, in one run:
//   1. the whole corpus cold (no cache), with the parse cache warm (a new output folder), and
//      unchanged (the same folder again: nothing to do);
//   2. Colorado SNAP alone (`--programs programs/us-co/snap`: its import closure only), cold and
//      with the parse cache warm;
//   3. an incremental recompile after editing one module (warm workspace, in process, as --watch
//      does). Wall time and peak RSS per process. Writes bench/results/compile.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Workspace } from '../dist/compiler/workspace.js';
import { writeOutputTree } from '../dist/compiler/5-emit/output-tree.js';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes) => Math.round(bytes / 1048576);
const work = mkdtempSync(path.join(tmpdir(), 'rules-bench-'));

function compile(args) {
  const started = performance.now();
  const summary = JSON.parse(execFileSync(process.execPath, [`${project}bin/rules.js`, 'compile', '--root', corpus, '--json', ...args], { maxBuffer: 64 * 1024 * 1024 }).toString());
  return { summary, wall_ms: Math.round(performance.now() - started), peak_rss_mib: mib(summary.peak_rss_bytes) };
}
const measure = (runs) => ({ wall_ms: median(runs.map((r) => r.wall_ms)), runs_ms: runs.map((r) => r.wall_ms), peak_rss_mib: Math.max(...runs.map((r) => r.peak_rss_mib)) });
const times = (n, fn) => Array.from({ length: n }, (_, i) => fn(i));

// 1. whole corpus
const cache = path.join(work, 'cache');
const cold = times(repeats, (i) => compile(['--out', path.join(work, `cold-${i}`), '--no-cache']));
const { summary } = cold[0];
compile(['--out', path.join(work, 'fill'), '--cache-dir', cache]); // fills the parse cache
const warm = times(repeats, (i) => compile(['--out', path.join(work, `warm-${i}`), '--cache-dir', cache]));
const unchanged = times(repeats, () => compile(['--out', path.join(work, 'fill'), '--cache-dir', cache]));
if (!unchanged.every((r) => r.summary.unchanged)) throw new Error('the unchanged recompile compiled');
const full = { packages: summary.packages.length, failures: summary.failures.length, modules: summary.modules, rules: summary.rules, cold: measure(cold), parse_cache_warm: measure(warm), unchanged: measure(unchanged) };
console.log(`whole corpus: ${full.packages} packages, ${full.failures} failed, ${full.modules} modules, ${full.rules} rules; cold ${full.cold.wall_ms} ms / ${full.cold.peak_rss_mib} MiB, parse cache warm ${full.parse_cache_warm.wall_ms} ms / ${full.parse_cache_warm.peak_rss_mib} MiB, unchanged ${full.unchanged.wall_ms} ms / ${full.unchanged.peak_rss_mib} MiB`);

// 2. one program's closure
const snapArgs = ['--programs', path.join(corpus, 'programs/us-co/snap')];
const snapCold = times(repeats, (i) => compile([...snapArgs, '--out', path.join(work, `snap-${i}`), '--no-cache']));
const snapWarm = times(repeats, (i) => compile([...snapArgs, '--out', path.join(work, `snap-warm-${i}`), '--cache-dir', cache]));
const snap = { packages: snapCold[0].summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`), modules: snapCold[0].summary.modules, rules: snapCold[0].summary.rules, cold: measure(snapCold), parse_cache_warm: measure(snapWarm) };
console.log(`Colorado SNAP alone (${snap.modules} modules, ${snap.rules} rules): cold ${snap.cold.wall_ms} ms / ${snap.cold.peak_rss_mib} MiB, parse cache warm ${snap.parse_cache_warm.wall_ms} ms / ${snap.parse_cache_warm.peak_rss_mib} MiB`);

// 2. incremental, as --watch and hot reload build (rebuilds: serialized parts are remembered):
//    the edited module sits in an overlay root that shadows the corpus
const overlay = path.join(work, 'overlay');
const moduleRel = 'us-co/regulations/10-ccr-2506-1/4.407.31.yaml';
mkdirSync(path.dirname(path.join(overlay, moduleRel)), { recursive: true });
const original = readFileSync(path.join(corpus, moduleRel), 'utf8');
const workspace = new Workspace([overlay, corpus], [path.join(corpus, 'programs')]);
const out = path.join(work, 'incremental');
writeOutputTree(out, workspace.build(), { durationMs: 0 }, { fullSweep: true, rebuilds: true });
const incremental = [];
for (let i = 0; i < 5; i++) {
  const file = path.join(overlay, moduleRel);
  writeFileSync(file, original.replace("formula: '594'", `formula: '${600 + i}'`));
  const started = performance.now();
  workspace.invalidate(file);
  const build = workspace.build();
  writeOutputTree(out, build, { durationMs: 0 }, { rebuilds: true });
  incremental.push(Math.round(performance.now() - started));
}
console.log(`incremental recompile after editing ${moduleRel}: median ${median(incremental)} ms (${incremental.join(', ')})`);
rmSync(work, { recursive: true, force: true });

const report = {
  benchmark: 'compile',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
  corpus: path.basename(corpus),
  repeats,
  full_compile: full,
  colorado_snap: snap,
  targets: {
    colorado_snap: { wall_ms: 500, peak_rss_mib: 200, met: snap.cold.wall_ms < 500 && snap.cold.peak_rss_mib < 200 },
    full_cold: { wall_ms: 6000, peak_rss_mib: 500, met: full.cold.wall_ms < 6000 && full.cold.peak_rss_mib < 500 },
    full_unchanged: { wall_ms: 1000, met: full.unchanged.wall_ms < 1000 },
  },
  incremental_recompile: { edited: moduleRel, ms: median(incremental), runs_ms: incremental },
};
console.log(`→ ${writeResult('compile', report)}`);
