// The in-process half of bench/real-size.mjs, in a process of its own so that its peak memory is
// the library's: households (JSON Lines, one household per line) through the library's calculate()
// on a compiled package, each household's time split into
//   adapter  prepareHousehold: the household read into the engine's dataset
//   engine   startEvaluation and the requested outputs evaluated (with the trace, as the API)
//   output   the rest of calculate(): values and trace as JSON, warnings, the response
// each phase timed on the runtime's own functions (medians; output is the median calculate()
// less the medians of the other two). Then calculate() alone over every household,
// with and without the trace. Prints one JSON object on stdout.
//
//   node bench/real-size-library.mjs COMPILED_DIR JURISDICTION/PROGRAM_ID FILE.jsonl...
import { createReadStream } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const project = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => import(path.join(project, 'dist', p));
const { loadPackage, calculate } = await dist('lib/index.js');
const { prepareHousehold } = await dist('compiler/runtime/household.js');
const { resolveOutput } = await dist('compiler/runtime/calculate.js');
const { startEvaluation } = await dist('compiler/engine/engine.js');

const [compiled, program, ...files] = process.argv.slice(2);
const loaded = loadPackage(compiled, program);
const exec = loaded.executable;
const variables = loaded.pkg.default_outputs;
const targets = variables.map((name) => resolveOutput(loaded, name));
if (targets.some((t) => t?.kind !== 'rule')) throw new Error(`${program}: the split timing evaluates rules; an output here is a parameter or unknown`);
const TIMEOUT_MS = 10_000;
const WARM_UP = 1000;

const now = () => process.hrtime.bigint();
const us = (from, to) => Number(to - from) / 1000;
const round = (x, d = 1) => +x.toFixed(d);
const sorted = (xs) => Float64Array.from(xs).sort();
const at = (s, q) => s[Math.min(s.length - 1, Math.floor(s.length * q))];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Households of a JSON Lines file, one at a time (the file is not held in memory). */
async function* households(file) {
  const input = createReadStream(file);
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line.trim()) yield JSON.parse(line);
  } finally {
    input.destroy();
  }
}

/** Adapter and engine time of one household, through the runtime's own functions as calculate() calls them. */
function phases(household) {
  const t0 = now();
  const prepared = prepareHousehold(loaded, household);
  const t1 = now();
  let failed = false;
  try {
    const evaluation = startEvaluation('compiled', exec, prepared.dataset, prepared.period, { trace: true, deadline: Date.now() + TIMEOUT_MS });
    for (const t of targets) for (const id of prepared.instancesOf(exec.rules[t.index].entity)) evaluation.rule(t.index, id);
  } catch {
    failed = true; // the whole calculate() below says why
  }
  return { adapter: us(t0, t1), engine: us(t1, now()), failed };
}

/** One whole calculate(), as a library user calls it; whether it answered. */
function whole(household, trace) {
  try {
    calculate(loaded, { household, variables }, { trace, timeoutMs: TIMEOUT_MS });
    return true;
  } catch (err) {
    if (err?.code === undefined) throw err; // not a CalculationError: the benchmark is broken
    return false;
  }
}

let gcMs = 0;
const gc = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
});

const report = { program, outputs: variables.length, sets: {} };
for (const file of files) {
  // 1. warm-up, then each household split into phases and timed whole (in alternating order)
  let n = 0;
  for await (const h of households(file)) {
    if (n++ >= WARM_UP) break;
    phases(h);
    whole(h, true);
  }
  const adapter = [];
  const engine = [];
  const total = [];
  let failed = 0;
  gcMs = 0;
  gc.observe({ entryTypes: ['gc'] });
  let i = 0;
  for await (const h of households(file)) {
    let split;
    let t;
    let ok;
    const timeWhole = () => {
      const t0 = now();
      ok = whole(h, true);
      t = us(t0, now());
    };
    if (i++ % 2) timeWhole();
    split = phases(h);
    if (i % 2) timeWhole();
    if (split.failed === ok) throw new Error(`household ${i} of ${path.basename(file)}: the split evaluation and calculate() disagree on whether it fails`);
    adapter.push(split.adapter);
    engine.push(split.engine);
    total.push(t);
    if (!ok) failed++;
  }
  await new Promise((resolve) => setImmediate(resolve)); // the observer's last entries
  gc.disconnect();
  const gcPerHousehold = (gcMs * 1000) / (2 * total.length); // GC ran during both timings of each household
  const s = sorted(total);
  // medians: a household that a GC pause or another process's turn on the core stretches (the
  // p99 is tens of times the median on a shared machine) would move a mean more than a change
  const median = (xs) => at(sorted(xs), 0.5);
  const split = { adapter_us: round(median(adapter)), engine_us: round(median(engine)), output_us: round(at(s, 0.5) - median(adapter) - median(engine)) };

  // 2. calculate() alone over every household, with the trace (the API's default) and without
  const loop = {};
  for (const trace of [true, false]) {
    let spent = 0;
    let count = 0;
    for await (const h of households(file)) {
      const t0 = now();
      whole(h, trace);
      spent += us(t0, now());
      count++;
    }
    loop[trace ? 'with_trace' : 'without_trace'] = { households_per_s: Math.round(count / (spent / 1e6)), mean_us: round(spent / count) };
  }
  report.sets[path.basename(file, '.jsonl')] = {
    households: total.length,
    failed,
    calculate_us: { mean: round(mean(total)), median: round(at(s, 0.5)), p90: round(at(s, 0.9)), p99: round(at(s, 0.99)) },
    split_median_us: split,
    split_share: Object.fromEntries(Object.entries(split).map(([k, v]) => [k.replace('_us', ''), round(v / at(s, 0.5), 3)])),
    gc_us_per_household: round(gcPerHousehold),
    loop,
  };
}
report.peak_rss_mib = Math.round((process.resourceUsage().maxRSS * 1024) / 1048576);
process.stdout.write(JSON.stringify(report) + '\n');
