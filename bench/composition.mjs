// The real-size program the benchmarks measure: the public corpus's Colorado SNAP composition
// (us-co/policies/cdhs/snap/fy-2026-benefit-calculation, 320 rules) served as a program of its
// own, us-co/co-snap-composition, with the 32 outputs its first companion case checks: a program
// spec written into `work` and compiled with `rules compile --programs` (no parse cache).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const project = fileURLToPath(new URL('..', import.meta.url));
export const CORPUS = process.env.RULES_CORPUS ?? fileURLToPath(new URL('../../shared/rulespec-us', import.meta.url));
export const COMPOSITION = 'us-co/policies/cdhs/snap/fy-2026-benefit-calculation';
export const PROGRAM = 'us-co/co-snap-composition';

/** Compile the composition's program into `work/compiled`: {compiled, cases, outputs, pkg, compileMs}. */
export async function compileComposition(work) {
  const { readTestCases } = await import(path.join(project, 'dist/compiler/companion-tests/test-file.js'));
  const cases = readTestCases(path.join(CORPUS, `${COMPOSITION}.test.yaml`)).cases;
  const outputs = Object.keys(cases[0].output).map((id) => id.slice(id.indexOf('#') + 1));
  const specDir = path.join(work, 'specs', 'us-co', 'snap-composition');
  mkdirSync(specDir, { recursive: true });
  writeFileSync(path.join(specDir, '2026-01.yaml'), `program: us-co/snap-composition\nperiod: 2026-01\noutputs:\n${outputs.map((o) => `  - ${o}\n`).join('')}scope:\n  state:\n    - ${COMPOSITION.slice('us-co/'.length)}\n`);
  const compiled = path.join(work, 'compiled');
  const started = performance.now();
  execFileSync(process.execPath, [path.join(project, 'bin/rules.js'), 'compile', '--root', CORPUS, '--programs', specDir, '--out', compiled, '--no-cache', '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const compileMs = Math.round(performance.now() - started);
  const manifest = JSON.parse(readFileSync(path.join(compiled, 'manifest.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(path.join(compiled, manifest.packages[0].package), 'utf8'));
  return { compiled, cases, outputs, pkg, compileMs };
}
