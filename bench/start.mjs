// npm run bench:start — one household in a fresh process, beside Node's own start (`node -e 0`),
// in one sitting: the commands take turns run by run, so load from elsewhere hits them alike.
//   rules calculate us-co/co-snap --compiled DIR --household FILE --json   (the bundled package)
//   the same without V8's code cache for the calculate bundle (as under another Node than the one
//   that built it, or from a read-only install): a copy of bin/ and dist/ whose cache is removed
//   before each run
//   rules calculate us-co/co-snap --household FILE --json                  (compiling the bundled encodings first)
//   rules calculate us-co/co-snap-composition --compiled DIR --household FILE --json
//                                  (the corpus's real-size composition, bench/composition.mjs, a
//                                   household of its first companion case: every input given)
// Target: the compiled runs within Node's start plus 50 ms. Writes bench/results/start.json.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileComposition, CORPUS, PROGRAM } from './composition.mjs';
import { caseHousehold } from './households.mjs';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_REPEATS ?? 21);
const BUDGET_MS = 50;
const work = mkdtempSync(path.join(tmpdir(), 'rules-start-'));
const cli = `${project}bin/rules.js`;
const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** A copy of the CLI (bin/, dist/) beside the project's node_modules, and a function that removes
 *  the code caches its calculate bundle has (the build's, or the one the last run left). */
function cacheLessCopy(into) {
  for (const dir of ['bin', 'dist']) cpSync(`${project}${dir}`, path.join(into, dir), { recursive: true, preserveTimestamps: true }); // the bundle stays as new as its modules
  copyFileSync(`${project}package.json`, path.join(into, 'package.json'));
  symlinkSync(`${project}node_modules`, path.join(into, 'node_modules'));
  const cli = path.join(into, 'dist', 'cli');
  return () => {
    for (const f of readdirSync(cli)) if (f.startsWith('calculate-bundle.cjs.') && f.includes('.v8cache')) rmSync(path.join(cli, f));
  };
}

try {
  const compiled = path.join(work, 'compiled');
  execFileSync(process.execPath, [cli, 'compile', '--out', compiled], { stdio: 'ignore' });
  const household = path.join(work, 'household.json');
  writeFileSync(household, JSON.stringify({ period: '2026-03', facts: { household_size: 2, snap_earned_income: 1200, snap_shelter_costs: 700 } }));
  const commands = {
    node_start: { shown: 'node -e 0', args: ['-e', '0'] },
    calculate_compiled: { shown: 'rules calculate us-co/co-snap --compiled DIR --household FILE --json', args: [cli, 'calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json'] },
    calculate_compiled_no_code_cache: { shown: 'the same without the code cache (another Node, a read-only install)', args: [path.join(work, 'copy', 'bin', 'rules.js'), 'calculate', 'us-co/co-snap', '--compiled', compiled, '--household', household, '--json'], before: cacheLessCopy(path.join(work, 'copy')) },
    calculate_bundled: { shown: 'rules calculate us-co/co-snap --household FILE --json', args: [cli, 'calculate', 'us-co/co-snap', '--household', household, '--json'] },
  };
  if (existsSync(CORPUS)) {
    const composition = await compileComposition(path.join(work, 'composition'));
    const full = path.join(work, 'composition-household.json');
    writeFileSync(full, JSON.stringify(caseHousehold(composition.pkg, composition.cases[0])));
    commands.calculate_composition = { shown: `rules calculate ${PROGRAM} --compiled DIR --household FILE --json`, args: [cli, 'calculate', PROGRAM, '--compiled', composition.compiled, '--household', full, '--json'] };
  }
  const runs = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const [name, { args, before }] of Object.entries(commands)) {
      before?.();
      const started = performance.now();
      execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'] });
      runs[name].push(round(performance.now() - started));
    }
  }
  const results = Object.fromEntries(Object.entries(runs).map(([name, xs]) => [name, { median_ms: median(xs), min_ms: Math.min(...xs), max_ms: Math.max(...xs), over_node_ms: round(median(xs) - median(runs.node_start)) }]));
  const report = {
    benchmark: 'start',
    recorded_at: new Date().toISOString(),
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
    runs: RUNS,
    commands: Object.fromEntries(Object.entries(commands).map(([name, c]) => [name, c.shown])),
    results,
    targets: Object.fromEntries(
      ['calculate_compiled', 'calculate_composition'].filter((name) => results[name]).map((name) => [`${name}_within_node_plus_${BUDGET_MS}_ms`, results[name].over_node_ms <= BUDGET_MS]),
    ),
  };
  const file = writeResult('start', report);
  for (const [name, r] of Object.entries(results)) console.log(`${name}: median ${r.median_ms} ms (${r.min_ms}–${r.max_ms}), ${r.over_node_ms} ms over node -e 0`);
  console.log(`→ ${file}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
