import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { locate } from '../../../compiler/1-parse/locate.js';
import { SourceTree, walkFiles } from '../../../compiler/2-resolve/source-tree.js';
import type { Program } from '../../../compiler/3-lower/ir.js';
import { CaseError } from '../../../compiler/companion-tests/case-data.js';
import { actualToJson } from '../../../compiler/companion-tests/compare.js';
import { evaluateCase, runTestFile } from '../../../compiler/companion-tests/run-file.js';
import { type RawCase, readTestCases } from '../../../compiler/companion-tests/test-file.js';
import { compileModule } from '../../../compiler/compile.js';
import { RuleSpecError } from '../../../compiler/diagnostics.js';
import type { EngineName } from '../../../compiler/engine/engine.js';
import { EvaluationError } from '../../../compiler/engine/evaluate.js';
import { CORPUS, HAVE_CORPUS, PROJECT } from '../../support/paths.js';

// Real modules with their companion tests (the bundled encodings and a sample of the shared US
// corpus), and a sandbox root in front of their own root where a mutated copy of one module and
// its test file shadows the original while the rest of its imports resolve as they are.

export interface Pair {
  root: string;
  /** The module file, relative to its root. */
  module: string;
  moduleText: string;
  testText: string;
}

/** Larger modules (the corpus's generated tariff schedules) cost a second an input and teach nothing more. */
const MAX_TEXT = 20_000;

/** Every pair of the bundled encodings and every `stride`-th of the corpus that is not too large. */
export function realPairs(stride = 20): Pair[] {
  const pairs: Pair[] = [];
  const add = (root: string, every: number) => {
    walkFiles(root, (name) => name.endsWith('.test.yaml')).forEach((test, i) => {
      const module = test.replace(/\.test\.yaml$/, '.yaml');
      if (i % every || !existsSync(module)) return;
      const moduleText = readFileSync(module, 'utf8');
      const testText = readFileSync(test, 'utf8');
      if (moduleText.length > MAX_TEXT || testText.length > MAX_TEXT) return;
      const relative = path.relative(root, module);
      // a counterexample names the pair, not its whole text
      pairs.push({ root, module: relative, moduleText, testText, [fc.toStringMethod]: () => relative } as Pair);
    });
  };
  add(path.join(PROJECT, 'rulespec'), 1);
  if (HAVE_CORPUS) add(CORPUS, stride);
  return pairs;
}

export interface Placed {
  tree: SourceTree;
  moduleFile: string;
  testFile: string;
  target: string;
}

export class Sandbox {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'rules-fuzz-'));
  private readonly trees = new Map<string, SourceTree>();

  constructor() {
    afterAll(() => rmSync(this.dir, { recursive: true, force: true }));
  }

  /** Run `fn` with `moduleText` and `testText` in place of the pair's module and test file. */
  with<T>(pair: Pair, moduleText: string, testText: string, fn: (placed: Placed) => T): T {
    const tree = this.trees.get(pair.root) ?? this.trees.set(pair.root, new SourceTree([path.join(this.dir, path.basename(pair.root)), pair.root])).get(pair.root)!;
    const moduleFile = path.join(tree.roots[0]!, pair.module);
    const testFile = moduleFile.replace(/\.yaml$/, '.test.yaml');
    mkdirSync(path.dirname(moduleFile), { recursive: true });
    writeFileSync(moduleFile, moduleText);
    writeFileSync(testFile, testText);
    const target = tree.targetFor(moduleFile)!;
    tree.invalidate(target);
    try {
      return fn({ tree, moduleFile, testFile, target });
    } finally {
      rmSync(moduleFile, { force: true });
      rmSync(testFile, { force: true });
      tree.invalidate(target);
    }
  }
}

/** A diagnostic points at `file:line:column` (every error of it, the others of the same pass too). */
export function expectLocated(err: unknown): void {
  if (!(err instanceof RuleSpecError)) throw err; // a crash: any other error is a bug
  for (const e of [err, ...err.others]) {
    const position = e.position ?? (e.location ? locate(e.location) : undefined);
    expect(position, `unlocated diagnostic ${e.code}: ${e.message} (${JSON.stringify(e.location)})`).toBeDefined();
  }
}

/** The program of the placed module, or undefined after checking its diagnostics are located. */
export function compileChecked(placed: Placed): Program | undefined {
  try {
    return compileModule(placed.tree, placed.target);
  } catch (err) {
    expectLocated(err);
    return undefined;
  }
}

/** The test file's cases, or undefined after checking the diagnostic is located. */
export function casesChecked(placed: Placed): RawCase[] | undefined {
  try {
    return readTestCases(placed.testFile).cases;
  } catch (err) {
    expectLocated(err);
    return undefined;
  }
}

export type CaseOutcome = { values: unknown } | { error: string };

/** One case through an engine: its values, or the message of a domain error (anything else is a crash, rethrown). */
export function evaluateChecked(program: Program, c: RawCase, n: number, engine: EngineName): CaseOutcome {
  try {
    return { values: [...evaluateCase(program, c, n, { engine })].map(([k, v]) => [k, actualToJson(v)]) };
  } catch (err) {
    if (err instanceof RuleSpecError) expectLocated(err);
    else if (!(err instanceof CaseError || err instanceof EvaluationError)) throw err;
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}

/** `rules test` on the placed pair: it never throws, and each case that cannot run says where. */
export function expectRunLocated(placed: Placed): void {
  for (const result of runTestFile(placed.tree, placed.testFile)) {
    if (result.status !== 'error') continue;
    if (result.case === '(file)') expect(result.error, 'a test file that cannot be read is located').toMatch(/\.test\.yaml:\d+:\d+: /);
    else expect(result.line, `case ${result.case} of ${placed.testFile} errs without a line: ${result.error}`).toBeGreaterThan(0);
  }
}
