// npm run bench:engine — the compiled engine against the interpreter, in one run so the ratios
// are meaningful:
//   1. the bundled us-co/co-snap sample household with its trace: the engine alone (outputs and
//      trace over a prepared household) and the whole calculate() (household adapter, engine,
//      trace as JSON);
//   2. the public corpus's Colorado SNAP composition (us-co/policies/cdhs/snap/fy-2026-benefit-
//      calculation) with its trace over 10,000 households varied from its test cases, each timed
//      on its own right after its dataset is built (as a calculation does it).
// Writes bench/results/engine.json.

import { availableParallelism, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { random, variedCase } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const dist = (p) => import(path.join(project, 'dist', p));
const { compile, loadPackage, calculate } = await dist('lib/index.js');
const { prepareHousehold } = await dist('compiler/runtime/household.js');
const { startEvaluation } = await dist('compiler/engine/engine.js');
const { SourceTree } = await dist('compiler/2-resolve/source-tree.js');
const { compileModule } = await dist('compiler/compile.js');
const { readTestCases } = await dist('compiler/companion-tests/test-file.js');
const { buildDataset, casePeriod, queryEntityId } = await dist('compiler/companion-tests/case-data.js');

const ENGINES = ['interpreter', 'compiled'];
/** Timed batches per function of the sample (BENCH_SAMPLES; fewer for a smoke run). */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 2) => +x.toFixed(d);

/** Median µs per call of each function, over `samples` timed batches of `batch` calls after a
 *  warm-up; the functions take turns batch by batch so that load from elsewhere hits them alike. */
function timeTogether(fs, { batch = 1000, samples = SAMPLES } = {}) {
  for (const f of Object.values(fs)) for (let i = 0; i < batch * 3; i++) f(i);
  const per = Object.fromEntries(Object.keys(fs).map((k) => [k, []]));
  for (let s = 0; s < samples; s++) {
    for (const [k, f] of Object.entries(fs)) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) f(i);
      per[k].push(Number(process.hrtime.bigint() - t) / batch / 1000);
    }
  }
  return Object.fromEntries(Object.entries(per).map(([k, xs]) => [k, { median_us: round(median(xs)), min_us: round(Math.min(...xs)), max_us: round(Math.max(...xs)) }]));
}

// ---- 1. the bundled Colorado SNAP sample ----
const co = loadPackage(compile().packages.find((p) => p.jurisdiction === 'us-co' && p.program_id === 'co-snap'));
const request = co.pkg.sample_request;
const prepared = prepareHousehold(co, request.household);
const exec = co.executable;
const outputs = request.variables.map((v) => exec.ruleByName.get(v));
const sample = { package: 'us-co/co-snap (bundled)', rules: exec.rules.length, engine: {}, calculate: {} };
Object.assign(
  sample.engine,
  timeTogether(
    Object.fromEntries(
      ENGINES.map((engine) => [
        engine,
        () => {
          const evaluation = startEvaluation(engine, exec, prepared.dataset, prepared.period, { trace: true });
          for (const r of outputs) evaluation.rule(r, prepared.mainId);
        },
      ]),
    ),
  ),
);
Object.assign(sample.calculate, timeTogether(Object.fromEntries(ENGINES.map((engine) => [engine, () => calculate(co, request, { engine })]))));
sample.engine.speedup = round(sample.engine.interpreter.median_us / sample.engine.compiled.median_us);
sample.calculate.speedup = round(sample.calculate.interpreter.median_us / sample.calculate.compiled.median_us);
console.log(`co-snap sample, engine with trace: interpreter ${sample.engine.interpreter.median_us} µs, compiled ${sample.engine.compiled.median_us} µs (${sample.engine.speedup}×)`);
console.log(`co-snap sample, calculate():      interpreter ${sample.calculate.interpreter.median_us} µs, compiled ${sample.calculate.compiled.median_us} µs (${sample.calculate.speedup}×)`);

// ---- 2. the public corpus's Colorado SNAP composition over 10,000 varied households ----
const COMPOSITION = 'us-co/policies/cdhs/snap/fy-2026-benefit-calculation';
const HOUSEHOLDS = Number(process.env.BENCH_HOUSEHOLDS ?? 10_000);
const tree = new SourceTree([corpus]);
const moduleFile = path.join(corpus, `${COMPOSITION}.yaml`);
const program = compileModule(tree, tree.targetFor(moduleFile));
const seeds = readTestCases(path.join(corpus, `${COMPOSITION}.test.yaml`)).cases;
const rand = random(2026);

/** A varied household: its dataset (built as calculate() builds one, right before evaluating), period, outputs and id. */
function prepare(i) {
  const seed = seeds[i % seeds.length];
  const c = variedCase(seed, rand);
  const period = casePeriod(c.period);
  const rules = Object.keys(c.output).map((k) => program.ruleById.get(k)).filter((r) => r !== undefined);
  const id = queryEntityId(c, program.rules[rules[0]].entity, (i % seeds.length) + 1);
  return { dataset: buildDataset(program, c, id, period), period, rules, id };
}
const composition = { module: COMPOSITION, rules: program.rules.length, households: HOUSEHOLDS, seeds: seeds.length, errors: {}, trace_steps: {}, engine: {} };
const times = Object.fromEntries(ENGINES.map((e) => [e, []]));
const counts = Object.fromEntries(ENGINES.map((e) => [e, { errors: 0, steps: 0 }]));
const evaluate = (engine, h) => {
  const evaluation = startEvaluation(engine, program, h.dataset, h.period, { trace: true });
  let failed = false;
  try {
    for (const r of h.rules) evaluation.rule(r, h.id);
  } catch {
    failed = true;
  }
  return { failed, steps: evaluation.trace.length };
};
for (let i = 0; i < Math.min(3000, HOUSEHOLDS); i++) for (const engine of ENGINES) evaluate(engine, prepare(i)); // warm-up
// each household is prepared, then evaluated by both engines (in alternating order), each timed on its own
for (let i = 0; i < HOUSEHOLDS; i++) {
  const h = prepare(i);
  for (const engine of i % 2 ? ENGINES : [...ENGINES].reverse()) {
    const t = process.hrtime.bigint();
    const { failed, steps } = evaluate(engine, h);
    times[engine].push(Number(process.hrtime.bigint() - t) / 1000);
    counts[engine].errors += failed ? 1 : 0;
    counts[engine].steps += steps;
  }
}
for (const engine of ENGINES) {
  const per = times[engine];
  composition.engine[engine] = { median_us: round(median(per)), mean_us: round(per.reduce((a, b) => a + b, 0) / per.length), p90_us: round([...per].sort((a, b) => a - b)[Math.floor(per.length * 0.9)]) };
  composition.errors[engine] = counts[engine].errors;
  composition.trace_steps[engine] = Math.round(counts[engine].steps / HOUSEHOLDS);
}
composition.engine.speedup = round(composition.engine.interpreter.median_us / composition.engine.compiled.median_us);
console.log(`${COMPOSITION} (${program.rules.length} rules), ${HOUSEHOLDS} households with trace: interpreter ${composition.engine.interpreter.median_us} µs, compiled ${composition.engine.compiled.median_us} µs (${composition.engine.speedup}×); ${composition.errors.compiled} households end in an error, ${composition.trace_steps.compiled} trace steps each`);

const report = {
  benchmark: 'engine',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: round(loadavg()[0]) },
  sample,
  composition,
  targets: {
    sample_speedup_at_least_5: sample.engine.speedup >= 5,
    sample_compiled_at_most_10_us: sample.engine.compiled.median_us <= 10,
    composition_compiled_at_most_100_us: composition.engine.compiled.median_us <= 100,
  },
};
console.log(`→ ${writeResult('engine', report)}`);
