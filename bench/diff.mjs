// npm run bench:diff — `rules diff` as a user runs it, against `rules calculate` over the same
// generated Colorado SNAP households (households.mjs), in one run:
//   1. the cost of a diff against one calculation: 1,000,000 households (BENCH_HOUSEHOLDS)
//      through `rules calculate --compiled DIR --input … --output …`, then through `rules diff`
//      of a one-parameter change (the federal standard deduction for three people, --set) between
//      the same compiled output, with and without --output (each household's outputs on both sides);
//   2. the whole diff of that change over 100,000 households (BENCH_SMALL_HOUSEHOLDS), from the
//      bundled encodings compiled for the run, as a reviewer types it.
// Each is run BENCH_REPEATS times (default 3), the calculation and the diffs interleaved round by
// round so that they share the machine's load, and the medians compared.
// Targets (issue 20): the diff costs at most 2× the calculation; the whole 100,000-household diff
// finishes in under 10 s. Writes bench/results/diff.json.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compile } from '../dist/lib/index.js';
import { writeHouseholds } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const HOUSEHOLDS = Number(process.env.BENCH_HOUSEHOLDS ?? 1_000_000);
const SMALL = Math.min(HOUSEHOLDS, Number(process.env.BENCH_SMALL_HOUSEHOLDS ?? 100_000));
const TABLE = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
const SET = ['--set', `${TABLE}[3]=259`];
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const work = mkdtempSync(path.join(tmpdir(), 'rules-diff-bench-'));
const run = promisify(execFile);

/** A CLI run's wall time and its stdout; exit 1 (a household failed, or --fail-on-change) is not an error here. */
async function cli(args) {
  const started = performance.now();
  let stdout;
  try {
    ({ stdout } = await run(process.execPath, [`${project}bin/rules.js`, ...args], { cwd: work, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }));
  } catch (err) {
    if (err.code !== 1) throw err;
    stdout = err.stdout;
  }
  return { wall_ms: Math.round(performance.now() - started), out: JSON.parse(stdout) };
}

try {
  const compiled = path.join(work, 'compiled');
  await cli(['compile', '--out', compiled, '--json']);
  const pkg = compile().packages.find((p) => p.jurisdiction === 'us-co' && p.program_id === 'co-snap');
  const input = path.join(work, 'households.jsonl');
  const small = path.join(work, 'households-small.jsonl');
  await writeHouseholds(pkg, HOUSEHOLDS, input);
  await writeHouseholds(pkg, SMALL, small);
  console.log(`generated ${HOUSEHOLDS.toLocaleString('en-US')} households (${Math.round(statSync(input).size / 1048576)} MiB of JSON Lines) and ${SMALL.toLocaleString('en-US')}`);

  const loadAtStart = +loadavg()[0].toFixed(2);
  const runs = { calculate: [], diff: [], withOutput: [], whole: [] };
  for (let round = 1; round <= REPEATS; round++) {
    runs.calculate.push(await cli(['calculate', 'us-co/co-snap', '--compiled', compiled, '--input', input, '--output', path.join(work, 'calculated.jsonl'), '--json']));
    runs.diff.push(await cli(['diff', 'us-co/co-snap', '--baseline', compiled, '--reform', compiled, ...SET, '--input', input, '--json']));
    runs.withOutput.push(await cli(['diff', 'us-co/co-snap', '--baseline', compiled, '--reform', compiled, ...SET, '--input', input, '--output', path.join(work, 'diff.jsonl'), '--json']));
    runs.whole.push(await cli(['diff', 'us-co/co-snap', '--root', path.join(project, 'rulespec'), ...SET, '--input', small, '--no-cache', '--json']));
    console.log(`round ${round}: calculate ${runs.calculate.at(-1).wall_ms} ms, diff ${runs.diff.at(-1).wall_ms} ms, diff --output ${runs.withOutput.at(-1).wall_ms} ms, whole diff of ${SMALL.toLocaleString('en-US')} ${runs.whole.at(-1).wall_ms} ms (load ${loadavg()[0].toFixed(1)})`);
  }
  /** The run of median wall time, and every wall time. */
  const median = (list) => ({ ...[...list].sort((a, b) => a.wall_ms - b.wall_ms)[Math.floor(list.length / 2)], all_ms: list.map((r) => r.wall_ms) });
  const [calculate, diff, withOutput, whole] = [median(runs.calculate), median(runs.diff), median(runs.withOutput), median(runs.whole)];
  const s = diff.out.households;
  const ratio = +(diff.wall_ms / calculate.wall_ms).toFixed(2);
  const ratioWithOutput = +(withOutput.wall_ms / calculate.wall_ms).toFixed(2);
  const report = {
    benchmark: 'diff',
    recorded_at: new Date().toISOString(),
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m_at_start: loadAtStart, load_average_1m: +loadavg()[0].toFixed(2) },
    change: `--set ${TABLE}[3]=259 (the standard deduction for three people, 209 → 259)`,
    households: HOUSEHOLDS,
    repeats: REPEATS,
    calculate: { command: 'rules calculate us-co/co-snap --compiled DIR --input households.jsonl --output results.jsonl --json', wall_ms: calculate.wall_ms, all_ms: calculate.all_ms, households_per_s: calculate.out.households_per_s, peak_rss_mb: calculate.out.peak_rss_mb },
    diff: { command: 'rules diff us-co/co-snap --baseline DIR --reform DIR --set … --input households.jsonl --json', wall_ms: diff.wall_ms, all_ms: diff.all_ms, households_per_s: diff.out.stats.households_per_s, peak_rss_mb: diff.out.stats.peak_rss_mb, ratio_to_calculate: ratio },
    diff_with_output: { command: 'rules diff … --output diff.jsonl --json', wall_ms: withOutput.wall_ms, all_ms: withOutput.all_ms, peak_rss_mb: withOutput.out.stats.peak_rss_mb, ratio_to_calculate: ratioWithOutput },
    result: { compared: s.compared, changed: s.changed, gaining: s.gaining, losing: s.losing, total_change: s.total_change, root_causes: s.root_causes.map((c) => [c.legal_id, c.households]) },
    shared_rules: diff.out.shared_rules,
    whole_diff: { command: 'rules diff us-co/co-snap --root rulespec --set … --input households-small.jsonl --no-cache --json', households: SMALL, wall_ms: whole.wall_ms, all_ms: whole.all_ms, peak_rss_mb: whole.out.stats.peak_rss_mb },
    workers: diff.out.stats.workers,
    targets: { diff_at_most_2x_calculate: ratio <= 2, diff_with_output_at_most_2x_calculate: ratioWithOutput <= 2, whole_diff_of_100k_under_10_s: SMALL >= 100_000 ? whole.wall_ms < 10_000 : null },
  };
  const written = writeResult('diff', report);
  console.log(`${HOUSEHOLDS.toLocaleString('en-US')} households, medians of ${REPEATS}: calculate ${(calculate.wall_ms / 1000).toFixed(1)} s, diff ${(diff.wall_ms / 1000).toFixed(1)} s (${ratio}×), with --output ${(withOutput.wall_ms / 1000).toFixed(1)} s (${ratioWithOutput}×); ${SMALL.toLocaleString('en-US')} from the encodings ${(whole.wall_ms / 1000).toFixed(1)} s → ${written}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
