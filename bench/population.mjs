// npm run bench:population — 1,000,000 generated Colorado SNAP households (the bundled us-co/co-snap
// package's sample, varied: see households.mjs) through `rules calculate --input … --output …`
// without trace, as a user runs it: one process, a worker thread per core. Records the wall time,
// households per second and the process's peak RSS (worker threads included).
// Writes bench/results/population.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../dist/lib/index.js';
import { writeHouseholds } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const HOUSEHOLDS = Number(process.env.BENCH_HOUSEHOLDS ?? 1_000_000);
const work = mkdtempSync(path.join(tmpdir(), 'rules-population-'));
const cli = (args) => execFileSync(process.execPath, [`${project}bin/rules.js`, ...args], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }).toString();

try {
  const compiled = path.join(work, 'compiled');
  cli(['compile', '--out', compiled]);
  const pkg = compile().packages.find((p) => p.jurisdiction === 'us-co' && p.program_id === 'co-snap');
  const input = path.join(work, 'households.jsonl');
  await writeHouseholds(pkg, HOUSEHOLDS, input);
  const inputBytes = statSync(input).size;
  console.log(`generated ${HOUSEHOLDS.toLocaleString('en-US')} households (${Math.round(inputBytes / 1048576)} MiB of JSON Lines)`);

  const output = path.join(work, 'results.jsonl');
  const started = performance.now();
  let summary;
  try {
    summary = JSON.parse(cli(['calculate', 'us-co/co-snap', '--compiled', compiled, '--input', input, '--output', output, '--json']));
  } catch (err) {
    // exit 1: some generated households fail (a unit size of 0, for one); the summary is still on stdout
    if (err.status !== 1) throw err;
    summary = JSON.parse(err.stdout.toString());
  }
  const wall = Math.round(performance.now() - started);
  const report = {
    benchmark: 'population',
    recorded_at: new Date().toISOString(),
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
    command: 'rules calculate us-co/co-snap --compiled DIR --input households.jsonl --output results.jsonl --json',
    households: summary.households,
    input_mib: Math.round(inputBytes / 1048576),
    output_mib: Math.round(statSync(output).size / 1048576),
    calculated: summary.ok,
    failed: summary.failed,
    workers: summary.workers,
    wall_ms: wall,
    run_ms: summary.duration_ms,
    households_per_s: summary.households_per_s,
    peak_rss_mb: summary.peak_rss_mb,
    targets: { under_60_s: wall < 60_000, peak_rss_under_500_mib: summary.peak_rss_mb < 500 },
  };
  const written = writeResult('population', report);
  console.log(`${summary.households.toLocaleString('en-US')} households in ${(wall / 1000).toFixed(1)} s (${summary.households_per_s.toLocaleString('en-US')}/s on ${summary.workers} workers), ${summary.failed.toLocaleString('en-US')} failed, peak RSS ${summary.peak_rss_mb} MiB → ${written}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
