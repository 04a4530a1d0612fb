import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceTree } from '../../../compiler/2-resolve/source-tree.js';
import type { Program } from '../../../compiler/3-lower/ir.js';
import { compileModule } from '../../../compiler/compile.js';
import type { EngineName } from '../../../compiler/engine/engine.js';
import type { TraceStep } from '../../../compiler/engine/evaluate.js';
import { Day, Decimal } from '../../../compiler/values.js';
import { actualToJson } from '../../../compiler/companion-tests/compare.js';
import { describeError } from '../../../compiler/describe-error.js';
import { evaluateCase } from '../../../compiler/companion-tests/run-file.js';
import { moduleFileOf, readTestCases } from '../../../compiler/companion-tests/test-file.js';
import { BUNDLED_ROOT } from '../../../compiler/project.js';
import { calculate } from '../../../compiler/runtime/calculate.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { Workspace } from '../../../compiler/workspace.js';
import { generateHouseholds } from '../../../bench/households.mjs';
import { CORPUS, HAVE_CORPUS } from '../../support/paths.js';

// The compiled engine against the interpreter (the reference): every case of the shared corpus
// and generated households through the bundled packages must give identical values, errors and
// traces. Numbers are compared by their exact decimal digits, not as doubles.

const canon = (v: unknown): string => (v instanceof Decimal ? `n:${v.toString()}` : v instanceof Day ? `d:${v}` : JSON.stringify(v));

function traceText(trace: TraceStep[]): string {
  return trace.map((s) => `${s.rule}@${s.entity}=${canon(s.result)}`).join('\n');
}

/** A case through one engine: its outputs and trace, or its error. */
function runCase(program: Program, c: Record<string, unknown>, n: number, engine: EngineName): string {
  const trace: TraceStep[] = [];
  try {
    const actuals = evaluateCase(program, c, n, { engine, trace });
    const values = [...actuals].map(([k, v]) => `${k}=${JSON.stringify(actualToJson(v))}|${Array.isArray(v) ? v.map(canon).join(',') : canon(v)}`);
    return `${values.join('\n')}\n--\n${traceText(trace)}`;
  } catch (err) {
    return `error: ${describeError(err)}\n--\n${traceText(trace)}`;
  }
}

function testFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.yaml'))
    .map((f) => path.join(dir, f))
    .sort();
}

describe('compiled engine against the interpreter', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'every case of the shared corpus gives identical values, errors and traces',
    () => {
      const tree = new SourceTree([CORPUS]);
      const mismatches: string[] = [];
      let cases = 0;
      let errors = 0;
      for (const file of testFiles(CORPUS)) {
        const target = tree.targetFor(moduleFileOf(file));
        if (!target) continue;
        let program: Program;
        try {
          program = compileModule(tree, target);
        } catch {
          continue; // a module that does not compile is the conformance test's failure, not this one's
        }
        readTestCases(file).cases.forEach((c, i) => {
          cases++;
          const reference = runCase(program, c, i + 1, 'interpreter');
          if (reference.startsWith('error:')) errors++;
          const compiled = runCase(program, c, i + 1, 'compiled');
          if (compiled !== reference && mismatches.length < 10) mismatches.push(`${path.relative(CORPUS, file)} case ${i + 1}\n  interpreter: ${reference.slice(0, 400)}\n  compiled:    ${compiled.slice(0, 400)}`);
        });
      }
      expect(mismatches).toEqual([]);
      expect(cases).toBeGreaterThanOrEqual(23941);
      expect(errors).toBe(0);
    },
    120_000,
  );

  it('generated households through every bundled package give identical responses', () => {
    const build = new Workspace([BUNDLED_ROOT], [path.join(BUNDLED_ROOT, 'programs')]).build();
    expect(build.packages.length).toBeGreaterThanOrEqual(4);
    let compared = 0;
    let failed = 0;
    const outcomes = new Set<string>();
    for (const { pkg } of build.packages) {
      const loaded = new LoadedPackage(pkg);
      const run = (household: Record<string, unknown>, engine: EngineName) => {
        try {
          return JSON.stringify(calculate(loaded, { household }, { engine }));
        } catch (err) {
          failed++;
          return `error: ${(err as Error).message}`;
        }
      };
      for (const household of generateHouseholds(pkg, 1500, 15)) {
        const reference = run(household, 'interpreter');
        expect(run(household, 'compiled'), `${pkg.jurisdiction}/${pkg.program_id} ${JSON.stringify(household)}`).toBe(reference);
        outcomes.add(reference.slice(0, 200));
        compared++;
      }
    }
    expect(compared).toBe(1500 * build.packages.length);
    // the households are varied: many distinct results, and not all of them errors
    expect(outcomes.size).toBeGreaterThan(1000);
    expect(failed).toBeLessThan(compared);
  }, 60_000);
});
