// npm run bench:answers — what an answer costs beyond its values, through the library's calculate()
// as the API runs it (with the trace), in one run so the ratios are meaningful:
//   1. assumptions: every calculation's dataset records the defaults it reads, and the answer
//      lists them; the share of calculate() spent listing them (assumptionsOf, timed on the same
//      evaluated households), on sparse households (a few facts, many assumptions) and on
//      households giving every input (none);
//   2. explanations: calculate() with `explain: true` against without, on the same households.
// On the bundled Colorado and New York packages, and on the real-size program (the public corpus's
// Colorado SNAP composition, 320 rules: bench/composition.mjs) with households varied from its
// companion cases (every input the case gives).
// Target (issue P14): assumptions at most 10 % of a calculation, an explanation at most 3×.
// Writes bench/results/answers.json.

import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileComposition, PROGRAM } from './composition.mjs';
import { caseHouseholds, generateHouseholds } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => import(path.join(project, 'dist', p));
const { compile, loadPackage, calculate } = await dist('lib/index.js');
const { assumptionsOf } = await dist('compiler/runtime/calculate.js');
const { prepareHousehold } = await dist('compiler/runtime/household.js');
const { startEvaluation } = await dist('compiler/engine/engine.js');

const HOUSEHOLDS = Number(process.env.BENCH_HOUSEHOLDS ?? 2000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 2) => +x.toFixed(d);

/** Median µs per household of each function over the same households, taking turns batch by batch. */
function timeTogether(households, fs, rounds = 15) {
  for (const f of Object.values(fs)) for (const h of households.slice(0, 300)) f(h); // warm-up
  const per = Object.fromEntries(Object.keys(fs).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [k, f] of Object.entries(fs)) {
      const t = process.hrtime.bigint();
      for (const h of households) f(h);
      per[k].push(Number(process.hrtime.bigint() - t) / households.length / 1000);
    }
  }
  return Object.fromEntries(Object.entries(per).map(([k, xs]) => [k, round(median(xs))]));
}

/** The row of one package and kind of household: the assumptions' share and the explanation's ratio. */
function measure(id, loaded, kind, households) {
  const pkg = loaded.pkg;
  const requests = households.map((household) => ({ household }));
  // the assumptions step alone, over evaluations made as calculate() makes them
  const evaluated = households.map((household) => {
    const prepared = prepareHousehold(loaded, household);
    const evaluation = startEvaluation('compiled', loaded.executable, prepared.dataset, prepared.period, { trace: false });
    for (const name of pkg.default_outputs) {
      const rule = loaded.executable.ruleByName.get(name);
      if (rule === undefined) continue;
      const entity = loaded.executable.rules[rule].entity;
      for (const id of prepared.instancesOf(entity)) evaluation.rule(rule, id);
    }
    return { prepared };
  });
  const us = timeTogether(
    requests.map((r, i) => ({ r, e: evaluated[i] })),
    {
      // as the API answers (the trace is always recorded there)
      calculate: ({ r }) => calculate(loaded, r),
      explain: ({ r }) => calculate(loaded, { ...r, explain: true }),
      assumptions: ({ e }) => assumptionsOf(loaded, e.prepared),
    },
  );
  const assumed = evaluated.reduce((n, e) => n + assumptionsOf(loaded, e.prepared).length, 0) / evaluated.length;
  const row = {
    package: id,
    households: kind,
    count: households.length,
    assumptions_per_household: round(assumed, 1),
    calculate_us: us.calculate,
    assumptions_us: us.assumptions,
    assumptions_share: round(us.assumptions / us.calculate, 3),
    explain_us: us.explain,
    explain_ratio: round(us.explain / us.calculate),
  };
  console.log(`${id}, ${kind} (${row.count}, ${row.assumptions_per_household} assumed each): calculate ${row.calculate_us} µs; assumptions ${row.assumptions_us} µs (${round(row.assumptions_share * 100, 1)} %); with explain ${row.explain_us} µs (${row.explain_ratio}×)`);
  return row;
}

/** The households a package answers (a generated one it refuses is left out). */
const answered = (loaded, households) =>
  households.filter((household) => {
    try {
      calculate(loaded, { household });
      return true;
    } catch {
      return false;
    }
  });

const packages = compile().packages;
const results = [];
for (const id of ['us-co/co-snap', 'us-ny/ny-snap']) {
  const loaded = loadPackage(packages.find((p) => `${p.jurisdiction}/${p.program_id}` === id));
  const pkg = loaded.pkg;
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity);
  // every input given (generated from the sample) and sparse (the same households with two facts of the main entity)
  const full = answered(loaded, generateHouseholds(pkg, HOUSEHOLDS, 7));
  const sparse = full.map((h) => {
    const facts = Object.fromEntries(Object.entries(h.entities[main.entity][main.id_template]).filter(([k]) => /size|earned_income|region/.test(k)));
    const { [main.entity]: _main, ...others } = h.entities;
    return { period: h.period, entities: { ...others, [main.entity]: { [main.id_template]: facts } } };
  });
  results.push(measure(id, loaded, 'every input given', full));
  results.push(measure(id, loaded, 'sparse', sparse));
}

// the real-size program, compiled from the shared corpus
const work = mkdtempSync(path.join(tmpdir(), 'rules-answers-'));
try {
  const { compiled, cases, pkg } = await compileComposition(work);
  const loaded = loadPackage(compiled, PROGRAM);
  results.push(measure(PROGRAM, loaded, 'varied from its cases', answered(loaded, caseHouseholds(pkg, cases, Math.ceil(HOUSEHOLDS / 4), 7))));
} finally {
  rmSync(work, { recursive: true, force: true });
}

const report = {
  benchmark: 'answers',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: round(loadavg()[0]) },
  results,
  targets: {
    assumptions_at_most_10_percent: results.every((r) => r.assumptions_share <= 0.1),
    explanation_at_most_3x: results.every((r) => r.explain_ratio <= 3),
  },
};
console.log(`→ ${writeResult('answers', report)}`);
