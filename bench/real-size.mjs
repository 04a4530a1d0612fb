// npm run bench:real-size — the benchmark of record on a real-size program: the public corpus's
// Colorado SNAP composition (us-co/policies/cdhs/snap/fy-2026-benefit-calculation, 320 rules),
// served as a program of its own with the 32 outputs its first companion case checks (a program
// spec compiled with `rules compile --programs`: bench/composition.mjs), over two kinds of household:
//   full    varied from the composition's six companion cases: every input the case gives, by
//           legal id, one to six members (bench/households.mjs, caseHouseholds);
//   sparse  a few facts by name and each member's age and citizenship, as a screening client
//           sends them;
// through each user path, in one run:
//   1. the library's calculate() in process, each household's time split into adapter, engine
//      and output (bench/real-size-library.mjs, in a process of its own);
//   2. `rules calculate --input FILE --output FILE` with 1 and with 2 workers;
//   3. POST /v1/calculate/batch on a real daemon (`rules serve --compiled DIR --store memory`):
//      batches of up to 25 entries within the API's body limit, 4 connections at a time.
// Records time per household, households/s and peak memory of each path, and checks that every
// path answers the same households and fails the same ones. Writes bench/results/real-size.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPOSITION, compileComposition, PROGRAM } from './composition.mjs';
import { headers, peakRssMib, startDaemon, stop } from './daemon.mjs';
import { caseHouseholds, random } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const { BODY_LIMIT } = await import(path.join(project, 'dist/server/body-limits.js'));

const FULL = Number(process.env.BENCH_HOUSEHOLDS ?? 10_000);
const SPARSE = FULL * 5;
const BATCH = 25;
const CONNECTIONS = 4;
const round = (x, d = 1) => +x.toFixed(d);
const work = mkdtempSync(path.join(tmpdir(), 'rules-real-size-'));
const cli = path.join(project, 'bin/rules.js');

/** Sparse households: what a screening form asks, by input name. */
function sparseHouseholds(count, seed) {
  const rand = random(seed);
  const money = (zeroShare, max) => (rand() < zeroShare ? 0 : Math.round(rand() * max * 100) / 100);
  return Array.from({ length: count }, () => {
    const ids = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, k) => `member-${k + 1}`);
    return {
      period: '2026-01',
      facts: {
        household_size: ids.length,
        snap_countable_earned_income: money(0.3, 4000),
        other_unearned_income: money(0.6, 1500),
        household_shelter_costs_incurred: money(0.1, 2500),
        household_incurred_or_anticipated_heating_or_cooling_costs_separate_from_rent_or_mortgage: rand() < 0.5,
        household_lives_in_application_state: true,
        // the encoding divides by these two, whose defaults are 0: a client that leaves them out gets a division by zero
        self_employment_income_period_months: 1,
        real_property_assessment_percentage_rate: 1,
      },
      entities: {
        Member: Object.fromEntries(ids.map((id) => [id, {}])),
        Person: Object.fromEntries(ids.map((id, k) => [id, { member_age: k === 0 ? 18 + Math.floor(rand() * 70) : Math.floor(rand() * 80), member_is_us_citizen: rand() < 0.9 }])),
      },
    };
  });
}

/** Households as JSON Lines (the form `rules calculate --input` reads). */
function writeJsonl(name, households) {
  const file = path.join(work, `${name}.jsonl`);
  writeFileSync(file, households.map((h) => JSON.stringify(h)).join('\n') + '\n');
  return file;
}

/** `rules calculate --input` with `workers` threads: wall time, the run's own figures, peak memory. */
function viaCli(file, workers) {
  const started = performance.now();
  const res = spawnSync(process.execPath, [cli, 'calculate', PROGRAM, '--compiled', compiled, '--input', file, '--output', path.join(work, 'results.jsonl'), '--json', '--workers', String(workers)], { maxBuffer: 64 * 1024 * 1024 });
  const wall = performance.now() - started;
  // exit 1: some households failed; the summary is still on stdout
  if (res.status !== 0 && res.status !== 1) throw new Error(`rules calculate exited ${res.status}: ${res.stderr}`);
  const s = JSON.parse(res.stdout.toString());
  return { workers, wall_ms: Math.round(wall), run_ms: s.duration_ms, households_per_s: s.households_per_s, us_per_household: round(1e6 / s.households_per_s), peak_rss_mib: s.peak_rss_mb, ok: s.ok, failed: s.failed };
}

/** Requests of up to BATCH entries whose bodies stay within the API's limit. */
function batches(households) {
  const out = [];
  let entries = [];
  let size = 0;
  const [jurisdiction, program_id] = PROGRAM.split('/');
  for (const household of households) {
    const entry = JSON.stringify({ jurisdiction, program_id, household });
    if (entries.length && (entries.length === BATCH || size + entry.length + 64 > BODY_LIMIT)) {
      out.push(`{"requests":[${entries.join(',')}]}`);
      entries = [];
      size = 0;
    }
    entries.push(entry);
    size += entry.length + 1;
  }
  if (entries.length) out.push(`{"requests":[${entries.join(',')}]}`);
  return out;
}

/** Every batch POSTed, CONNECTIONS at a time: calculations/s, batch latency, entries answered and failed. */
async function viaHttp(url, bodies) {
  const post = async (body) => {
    const res = await fetch(`${url}/v1/calculate/batch`, { method: 'POST', headers, body });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`POST /v1/calculate/batch: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json.data.results;
  };
  for (const body of bodies.slice(0, 10)) await post(body); // warm-up
  let next = 0;
  let ok = 0;
  let failed = 0;
  const latencies = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const t = performance.now();
        const results = await post(body);
        latencies.push(performance.now() - t);
        for (const r of results) r.status === 'ok' ? ok++ : failed++;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { batches: bodies.length, entries_per_batch: round((ok + failed) / bodies.length), wall_ms: Math.round(wall * 1000), calculations_per_s: Math.round((ok + failed) / wall), us_per_household: round((wall * 1e6) / (ok + failed)), batch_p50_ms: round(sorted[Math.floor(sorted.length / 2)]), batch_p99_ms: round(sorted[Math.floor(sorted.length * 0.99)]), ok, failed };
}

let compiled;
try {
  const composition = await compileComposition(work);
  compiled = composition.compiled;
  const { cases, outputs, pkg, compileMs } = composition;

  const sets = { full: caseHouseholds(pkg, cases, FULL, 2026), sparse: sparseHouseholds(SPARSE, 2026) };
  const files = Object.fromEntries(Object.entries(sets).map(([name, hs]) => [name, writeJsonl(name, hs)]));
  const workload = Object.fromEntries(
    Object.entries(sets).map(([name, hs]) => [
      name,
      {
        households: hs.length,
        members: `${Math.min(...hs.map((h) => Object.keys(h.entities.Member).length))}-${Math.max(...hs.map((h) => Object.keys(h.entities.Member).length))}`,
        inputs_given_mean: round(mean(hs.map((h) => Object.keys(h.facts).length + Object.values(h.entities).reduce((n, byId) => n + Object.values(byId).reduce((m, attrs) => m + Object.keys(attrs).length, 0), 0)))),
        jsonl_mib: round(statSync(files[name]).size / 1048576),
      },
    ]),
  );
  for (const [name, w] of Object.entries(workload)) console.log(`${name}: ${w.households.toLocaleString('en-US')} households, ${w.members} members, ${w.inputs_given_mean} inputs given on average (${w.jsonl_mib} MiB of JSON Lines)`);

  // 1. the library in process
  const library = JSON.parse(execFileSync(process.execPath, [path.join(project, 'bench/real-size-library.mjs'), compiled, PROGRAM, files.full, files.sparse], { maxBuffer: 16 * 1024 * 1024 }).toString());
  for (const [name, r] of Object.entries(library.sets)) {
    const s = r.split_median_us;
    console.log(`library calculate(), ${name}: median ${r.calculate_us.median} µs per household (mean ${r.calculate_us.mean}, p90 ${r.calculate_us.p90}) = adapter ${s.adapter_us} + engine ${s.engine_us} + output ${s.output_us}; GC ${r.gc_us_per_household} µs; ${r.loop.with_trace.households_per_s}/s with trace, ${r.loop.without_trace.households_per_s}/s without; ${r.failed} failed`);
  }
  console.log(`library peak RSS ${library.peak_rss_mib} MiB`);

  // 2. the CLI
  const cliRuns = {};
  for (const name of Object.keys(sets)) {
    cliRuns[name] = [1, 2].map((workers) => viaCli(files[name], workers));
    for (const r of cliRuns[name]) console.log(`rules calculate --input, ${name}, ${r.workers} worker(s): ${r.households_per_s.toLocaleString('en-US')}/s (${r.us_per_household} µs each), wall ${r.wall_ms} ms, peak RSS ${r.peak_rss_mib} MiB`);
  }

  // 3. the daemon
  const { url, daemon } = await startDaemon(path.join(work, 'daemon'), ['--compiled', compiled, '--store', 'memory']);
  const http = {};
  try {
    for (const [name, hs] of Object.entries(sets)) {
      http[name] = await viaHttp(url, batches(hs));
      const r = http[name];
      console.log(`POST /v1/calculate/batch, ${name}: ${r.calculations_per_s.toLocaleString('en-US')} calculations/s (${r.entries_per_batch} per batch, p50 ${r.batch_p50_ms} ms, p99 ${r.batch_p99_ms} ms)`);
    }
    http.peak_rss_mib = peakRssMib(daemon.pid);
  } finally {
    await stop(daemon);
  }

  // every path answers and fails the same households
  for (const name of Object.keys(sets)) {
    const failed = [library.sets[name].failed, ...cliRuns[name].map((r) => r.failed), http[name].failed];
    if (new Set(failed).size !== 1) throw new Error(`${name}: the paths fail different numbers of households (library, CLI ×2, HTTP): ${failed.join(', ')}`);
  }

  const report = {
    benchmark: 'real-size',
    recorded_at: new Date().toISOString(),
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: round(loadavg()[0], 2) },
    program: { composition: COMPOSITION, served_as: PROGRAM, outputs: outputs.length, rules: pkg.executable.rules.length, inputs: pkg.input_count, compile_ms: compileMs },
    workload,
    library,
    cli: cliRuns,
    http: { connections: CONNECTIONS, ...http },
    targets: {
      full_library_calculate_at_most_100_us: library.sets.full.calculate_us.median <= 100,
      full_cli_2_workers_at_least_10000_per_s: cliRuns.full[1].households_per_s >= 10_000,
      sparse_cli_2_workers_at_least_30000_per_s: cliRuns.sparse[1].households_per_s >= 30_000,
    },
  };
  console.log(`→ ${writeResult('real-size', report)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
