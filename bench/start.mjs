// npm run bench:start — one household in a fresh process: `rules calculate us-co/co-snap
// --household FILE --json` from a compiled output (--compiled) and compiling the bundled
// encodings on the fly, beside Node's own start (`node -e 0`) measured in the same run.
// Writes bench/results/start.json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_REPEATS ?? 21);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = mkdtempSync(path.join(tmpdir(), 'rules-start-'));
const cli = `${project}bin/rules.js`;

function timed(args) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'] });
    runs.push(Math.round((performance.now() - started) * 10) / 10);
  }
  return { median_ms: median(runs), min_ms: Math.min(...runs), max_ms: Math.max(...runs) };
}

try {
  const compiled = path.join(work, 'compiled');
  execFileSync(process.execPath, [cli, 'compile', '--out', compiled], { stdio: 'ignore' });
  const household = path.join(work, 'household.json');
  writeFileSync(household, JSON.stringify({ period: '2026-03', facts: { household_size: 2, snap_earned_income: 1200, snap_shelter_costs: 700 } }));
  const results = {
    node_start: timed(['-e', '0']),
    calculate_compiled: timed([cli, 'calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json']),
    calculate_bundled: timed([cli, 'calculate', 'us-co/co-snap', '--household', household, '--json']),
  };
  const report = {
    benchmark: 'start',
    recorded_at: new Date().toISOString(),
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
    runs: RUNS,
    commands: {
      node_start: 'node -e 0',
      calculate_compiled: 'rules calculate us-co/co-snap --compiled DIR --household FILE --json',
      calculate_bundled: 'rules calculate us-co/co-snap --household FILE --json',
    },
    results,
    targets: { compiled_under_120_ms: results.calculate_compiled.median_ms < 120 },
  };
  const file = writeResult('start', report);
  for (const [name, r] of Object.entries(results)) console.log(`${name}: median ${r.median_ms} ms (${r.min_ms}–${r.max_ms})`);
  console.log(`→ ${file}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
