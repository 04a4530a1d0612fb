import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceTree } from '../../../compiler/2-resolve/source-tree.js';
import type { Program } from '../../../compiler/3-lower/ir.js';
import { compileModule } from '../../../compiler/compile.js';
import type { EngineName } from '../../../compiler/engine/engine.js';
import type { TraceStep } from '../../../compiler/engine/evaluate.js';
import type { EvaluationObserver } from '../../../compiler/engine/observer.js';
import { toValue } from '../../../compiler/engine/compiled/lower.js';
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
// traces, and an observer (what explanations are built from) must hear the same events, in the
// same order, from both. Numbers are compared by their exact decimal digits, not as doubles.

const canon = (v: unknown): string => (v instanceof Decimal ? `n:${v.toString()}` : v instanceof Day ? `d:${v}` : JSON.stringify(v));

function traceText(trace: TraceStep[]): string {
  return trace.map((s) => `${s.rule}@${s.entity}=${canon(s.result)}`).join('\n');
}

/** A value an engine reports, in the interpreter's form (a JS number is the compiled engine's scaled decimal). */
const heardValue = (v: unknown): string => canon(typeof v === 'number' ? toValue(v) : v);

/** What an observer hears, a line per event; expression nodes are numbered in the order first heard (`ids`, shared by the runs compared). */
class EventLog implements EvaluationObserver {
  readonly lines: string[] = [];
  constructor(private readonly ids: Map<object, number>) {}
  private id(node: object): number {
    let n = this.ids.get(node);
    if (n === undefined) this.ids.set(node, (n = this.ids.size));
    return n;
  }
  enterRule(rule: number, entity: string, version: number) {
    this.lines.push(`enter ${rule} ${entity} v${version}`);
  }
  leaveRule(rule: number, entity: string, result: unknown) {
    this.lines.push(`leave ${rule} ${entity} ${heardValue(result)}`);
  }
  readRule(rule: number, entity: string) {
    this.lines.push(`rule ${rule} ${entity}`);
  }
  readInput(slot: string, entity: string) {
    this.lines.push(`input ${slot} ${entity}`);
  }
  readParameter(param: number, version: number, key: number, value: unknown) {
    this.lines.push(`param ${param} v${version} [${key}] ${heardValue(value)}`);
  }
  branch(node: object, entity: string, taken: number) {
    this.lines.push(`branch #${this.id(node)} ${entity} ${taken}`);
  }
  compared(node: object, entity: string, a: unknown, b: unknown) {
    this.lines.push(`compared #${this.id(node)} ${entity} ${heardValue(a)} ${heardValue(b)}`);
  }
  judged(node: object, entity: string, outcome: string) {
    this.lines.push(`judged #${this.id(node)} ${entity} ${outcome}`);
  }
}

/** A case through one engine: its outputs and trace, or its error; with `log`, what its observer heard. */
function runCase(program: Program, c: Record<string, unknown>, n: number, engine: EngineName, log?: EventLog): string {
  const trace: TraceStep[] = [];
  const heard = () => (log ? `\n--\n${log.lines.join('\n')}` : '');
  try {
    const actuals = evaluateCase(program, c, n, { engine, trace, observer: log });
    const values = [...actuals].map(([k, v]) => `${k}=${JSON.stringify(actualToJson(v))}|${Array.isArray(v) ? v.map(canon).join(',') : canon(v)}`);
    return `${values.join('\n')}\n--\n${traceText(trace)}${heard()}`;
  } catch (err) {
    return `error: ${describeError(err)}\n--\n${traceText(trace)}${heard()}`;
  }
}

function testFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.yaml'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Every companion case of the shared corpus through both engines (`compare` says what of a case must agree); the first mismatches, the cases run, the reference's errors. */
function acrossCorpus(compare: (program: Program, c: Record<string, unknown>, n: number) => [reference: string, compiled: string]) {
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
      const [reference, compiled] = compare(program, c, i + 1);
      if (reference.startsWith('error:')) errors++;
      if (compiled !== reference && mismatches.length < 10) mismatches.push(`${path.relative(CORPUS, file)} case ${i + 1}\n  interpreter: ${reference.slice(0, 400)}\n  compiled:    ${compiled.slice(0, 400)}`);
    });
  }
  return { mismatches, cases, errors };
}

describe('compiled engine against the interpreter', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'every case of the shared corpus gives identical values, errors and traces',
    () => {
      const { mismatches, cases, errors } = acrossCorpus((program, c, n) => [runCase(program, c, n, 'interpreter'), runCase(program, c, n, 'compiled')]);
      expect(mismatches).toEqual([]);
      expect(cases).toBeGreaterThanOrEqual(23941);
      expect(errors).toBe(0);
    },
    120_000,
  );

  it.runIf(HAVE_CORPUS || process.env.CI)(
    'every case of the shared corpus: an observer hears the same reads, figures, branches, comparisons and outcomes from both, in the same order',
    () => {
      const { mismatches, cases } = acrossCorpus((program, c, n) => {
        const ids = new Map<object, number>();
        return [runCase(program, c, n, 'interpreter', new EventLog(ids)), runCase(program, c, n, 'compiled', new EventLog(ids))];
      });
      expect(mismatches).toEqual([]);
      expect(cases).toBeGreaterThanOrEqual(23941);
    },
    180_000,
  );

  it('generated households through every bundled package give identical responses, explanations included', () => {
    const build = new Workspace([BUNDLED_ROOT], [path.join(BUNDLED_ROOT, 'programs')]).build();
    expect(build.packages.length).toBeGreaterThanOrEqual(4);
    let compared = 0;
    let failed = 0;
    const outcomes = new Set<string>();
    for (const { pkg } of build.packages) {
      const loaded = new LoadedPackage(pkg);
      // every fifth household explained too (the explanation through the compiled engine's observed lowering)
      const run = (household: Record<string, unknown>, engine: EngineName) => {
        try {
          return JSON.stringify(calculate(loaded, { household }, { engine, explain: compared % 5 === 0 }));
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
