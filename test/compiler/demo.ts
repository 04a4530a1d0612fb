// Shared helpers for the unit tests: temporary encoding trees, compiling, running companion
// tests and evaluating rules directly against a hand-built dataset.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SourceTree } from '../../compiler/2-resolve/source-tree.js';
import type { Program } from '../../compiler/3-lower/ir.js';
import { compileModule } from '../../compiler/compile.js';
import { RuleSpecError } from '../../compiler/diagnostics.js';
import { Dataset } from '../../compiler/engine/dataset.js';
import { Evaluation, type Result } from '../../compiler/engine/evaluate.js';
import type { Period } from '../../compiler/engine/period.js';
import type { Value } from '../../compiler/values.js';
import { describeError } from '../../compiler/describe-error.js';
import { type CaseResult, runTestFile } from '../../compiler/companion-tests/run-file.js';

/** Strip a leading newline and the common indentation, so YAML can be written indented in tests. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').replace(/\n[ \t]*$/, '\n').split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n');
}

const created: string[] = [];

export interface TempTree {
  root: string;
  tree: SourceTree;
  /** Absolute path of a file of the tree. */
  file(rel: string): string;
}

/** Write `{relativePath: text}` into a fresh temp directory (text is dedented) and open it as a SourceTree. */
export function writeTree(files: Record<string, string>): TempTree {
  const root = mkdtempSync(path.join(tmpdir(), 'rulespec-unit-'));
  created.push(root);
  for (const [rel, text] of Object.entries(files)) {
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, dedent(text));
  }
  return { root, tree: new SourceTree([root]), file: (rel) => path.join(root, rel) };
}

/** Remove every temp tree written so far (call from afterAll). */
export function removeTempTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The module target of the demo module used throughout: `us:statutes/demo/a`. */
export const T = 'us:statutes/demo/a';
export const MODULE = 'us/statutes/demo/a.yaml';
export const TESTS = 'us/statutes/demo/a.test.yaml';

/** A module file with `format:` and the given rules block (YAML text, already indented under `rules:`). */
export function moduleYaml(rules: string, extra = ''): string {
  return `format: rulespec/v1\n${extra}rules:\n${dedent(rules).replace(/^(?=.)/gm, '  ')}`;
}

/** Run the companion tests of the demo module (`a.yaml` + `a.test.yaml`). */
export function runDemo(rules: string, tests: string, extra = ''): CaseResult[] {
  const t = writeTree({ [MODULE]: moduleYaml(rules, extra), [TESTS]: tests });
  return runTestFile(t.tree, t.file(TESTS));
}

/** Compile the demo module. */
export function compileDemo(rules: string, extra = ''): Program {
  const t = writeTree({ [MODULE]: moduleYaml(rules, extra) });
  return compileModule(t.tree, T);
}

/** Compile a module of a tree expecting a RuleSpecError; returns it with its describeError text. */
export function compileError(t: TempTree, target: string): { err: RuleSpecError; text: string } {
  try {
    compileModule(t.tree, target);
  } catch (err) {
    if (!(err instanceof RuleSpecError)) throw err;
    return { err, text: describeError(err) };
  }
  throw new Error(`expected ${target} not to compile`);
}

/** Evaluate a derived rule by name for entity `e1`, with inputs (slot → value) covering the period. */
export function evalRule(program: Program, name: string, period: Period, inputs: Record<string, Value> = {}, entity = 'e1'): Result {
  const data = new Dataset();
  for (const [slot, value] of Object.entries(inputs)) data.addInput(slot, entity, value, period);
  const index = program.ruleByName.get(name);
  if (index === undefined) throw new Error(`no derived rule ${name}`);
  return new Evaluation(program, data, period).rule(index, entity);
}

/** `status` of each case, by case name. */
export function statuses(results: CaseResult[]): Record<string, CaseResult['status']> {
  return Object.fromEntries(results.map((r) => [r.case, r.status]));
}

/** The single result of a one-case run (fails the test if there is not exactly one). */
export function only(results: CaseResult[]): CaseResult {
  if (results.length !== 1) throw new Error(`expected one case result, got ${results.length}: ${JSON.stringify(results)}`);
  return results[0];
}
