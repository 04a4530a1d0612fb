// npm run bench:compile — `rules compile` over the whole shared corpus (cold, CLI), and an
// incremental recompile after editing one module (warm workspace, in process, as --watch does).
// Writes bench/results/compile.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Workspace } from '../dist/compiler/workspace.js';
import { writeOutputTree } from '../dist/compiler/5-emit/output-tree.js';

const project = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const work = mkdtempSync(path.join(tmpdir(), 'rules-bench-'));

// 1. cold full compile through the CLI
const full = [];
let summary;
for (let i = 0; i < repeats; i++) {
  const out = path.join(work, `full-${i}`);
  const started = performance.now();
  summary = JSON.parse(execFileSync(process.execPath, [`${project}bin/rules.js`, 'compile', '--root', corpus, '--out', out, '--json'], { maxBuffer: 64 * 1024 * 1024 }).toString());
  full.push(Math.round(performance.now() - started));
  rmSync(out, { recursive: true, force: true });
}
console.log(`full compile: ${summary.packages.length} packages, ${summary.failures.length} failed, ${summary.modules} modules, ${summary.rules} rules; median ${median(full)} ms (${full.join(', ')})`);

// 2. incremental: the edited module sits in an overlay root that shadows the corpus
const overlay = path.join(work, 'overlay');
const moduleRel = 'us-co/regulations/10-ccr-2506-1/4.407.31.yaml';
mkdirSync(path.dirname(path.join(overlay, moduleRel)), { recursive: true });
const original = readFileSync(path.join(corpus, moduleRel), 'utf8');
const workspace = new Workspace([overlay, corpus], [path.join(corpus, 'programs')]);
const out = path.join(work, 'incremental');
writeOutputTree(out, workspace.build(), { durationMs: 0 }, { fullSweep: true });
const incremental = [];
for (let i = 0; i < 5; i++) {
  const file = path.join(overlay, moduleRel);
  writeFileSync(file, original.replace("formula: '594'", `formula: '${600 + i}'`));
  const started = performance.now();
  workspace.invalidate(file);
  const build = workspace.build();
  writeOutputTree(out, build, { durationMs: 0 });
  incremental.push(Math.round(performance.now() - started));
}
console.log(`incremental recompile after editing ${moduleRel}: median ${median(incremental)} ms (${incremental.join(', ')})`);
rmSync(work, { recursive: true, force: true });

const report = {
  benchmark: 'compile',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  corpus,
  full_compile: { packages: summary.packages.length, failures: summary.failures.length, modules: summary.modules, rules: summary.rules, wall_ms: median(full), runs_ms: full },
  incremental_recompile: { edited: moduleRel, ms: median(incremental), runs_ms: incremental },
};
mkdirSync(`${project}bench/results`, { recursive: true });
writeFileSync(`${project}bench/results/compile.json`, JSON.stringify(report, null, 2) + '\n');
console.log('→ bench/results/compile.json');
