import { readFileSync } from 'node:fs';
import { locate } from '../1-parse/locate.js';
import type { Program } from '../3-lower/ir.js';
import type { LoweringOrigins } from '../3-lower/program.js';
import { reachableTargets } from '../2-resolve/closure.js';
import type { SourceTree } from '../2-resolve/source-tree.js';
import { compileModule } from '../compile.js';
import { RuleSpecError } from '../diagnostics.js';
import { type EngineName, startEvaluation } from '../engine/engine.js';
import { latestVersion, type TraceStep } from '../engine/evaluate.js';
import type { Outcome } from '../engine/logic.js';
import type { EvaluationObserver } from '../engine/observer.js';
import type { Period } from '../engine/period.js';
import type { Value } from '../values.js';
import { type Actual, actualToJson, expectedToJson, matches } from './compare.js';
import { buildDataset, CaseError, casePeriod, queryEntityId, rejectComputedInputs, rowIdOf, tables } from './case-data.js';
import { describeError } from '../describe-error.js';
import type { CoverageCollector } from './coverage/collector.js';
import { checkInputRoots, strictFileProblem } from './strict.js';
import { moduleFileOf, type RawCase, readTestCases } from './test-file.js';

// Runs the cases of one companion test file against its module's program.

export interface Failure {
  output: string;
  expected: unknown;
  actual: unknown;
}

export interface CaseResult {
  file: string;
  case: string;
  status: 'pass' | 'fail' | 'error';
  failures: Failure[];
  error?: string;
  /** The case's line in its test file, for a case that does not pass. */
  line?: number;
}

export interface RunOptions {
  filter?: string;
  /** Apply the reference harness's stricter rules (strict.ts). */
  strict?: boolean;
  /** Count what the cases exercise (coverage/). */
  coverage?: CoverageCollector;
}

export function runTestFile(tree: SourceTree, testFile: string, options: RunOptions = {}): CaseResult[] {
  if (options.coverage) countModuleOf(tree, testFile, options.coverage);
  let cases: RawCase[];
  let listPath: string[];
  try {
    ({ cases, listPath } = readTestCases(testFile, tree.cache));
  } catch (err) {
    return [{ file: testFile, case: '(file)', status: 'error', failures: [], error: describeError(err) }];
  }
  const selected = cases
    .map((c, i) => ({ c, n: i + 1, name: typeof c.name === 'string' ? c.name : `case ${i + 1}` }))
    .filter(({ name }) => !options.filter || name.includes(options.filter) || testFile.includes(options.filter));
  if (selected.length === 0) return [];
  const fileProblem = options.strict ? strictFileProblem(testFile) : undefined;
  if (fileProblem) return withLines(testFile, listPath, selected, selected.map(({ name }) => ({ file: testFile, case: name, status: 'error', failures: [], error: fileProblem })));

  const moduleFile = moduleFileOf(testFile);
  const target = tree.targetFor(moduleFile);
  const origins: LoweringOrigins | undefined = options.coverage && new Map();
  let program: Program;
  try {
    if (!target) throw new RuleSpecError('unresolved_import', `${moduleFile} is not under a jurisdiction folder of the roots (${tree.roots.join(', ')})`);
    program = compileModule(tree, target, origins);
  } catch (err) {
    const error = describeError(err);
    return withLines(testFile, listPath, selected, selected.map(({ name }) => ({ file: testFile, case: name, status: 'error', failures: [], error })));
  }
  const observer = options.coverage?.observe(program, origins!);
  return withLines(testFile, listPath, selected, selected.map(({ c, n, name }) => runCase(program, c, n, name, testFile, options.strict, observer)));
}

/** A test file's module is counted, whether or not a case of it runs (an empty file, a filter). */
function countModuleOf(tree: SourceTree, testFile: string, coverage: CoverageCollector): void {
  const target = tree.targetFor(moduleFileOf(testFile));
  const mod = target && tree.module(target);
  if (mod) coverage.include(mod);
}

/** Locate the cases that do not pass (the file is read again only when one fails). */
function withLines(file: string, listPath: string[], selected: { n: number }[], results: CaseResult[]): CaseResult[] {
  if (results.every((r) => r.status === 'pass')) return results;
  const text = readFileSync(file, 'utf8');
  return results.map((r, i) => (r.status === 'pass' ? r : { ...r, line: locate({ file, path: [...listPath, selected[i].n - 1] }, text)?.line }));
}

function runCase(program: Program, c: RawCase, n: number, name: string, file: string, strict?: boolean, observer?: EvaluationObserver): CaseResult {
  const result: CaseResult = { file, case: name, status: 'pass', failures: [] };
  try {
    if (strict) checkInputRoots(c);
    const actuals = evaluateCase(program, c, n, { observer });
    for (const [output, actual] of actuals) {
      const expected = (c.output as Record<string, unknown>)[output];
      if (!matches(expected, actual)) {
        result.failures.push({ output, expected: expectedToJson(expected), actual: actualToJson(actual) });
      }
    }
    if (result.failures.length) result.status = 'fail';
  } catch (err) {
    result.status = 'error';
    result.error = describeError(err);
  }
  return result;
}

export interface CaseEvaluationOptions {
  /** The interpreter (the reference) unless told otherwise. */
  engine?: EngineName;
  /** When given, every rule value computed is appended to it, in the reference form. */
  trace?: TraceStep[];
  /** Told what the evaluation does (the interpreter runs when one is given). */
  observer?: EvaluationObserver;
}

/** Every output of the case with its actual value (a list for row-ordered outputs). */
export function evaluateCase(program: Program, c: RawCase, n: number, options: CaseEvaluationOptions = {}): Map<string, Actual | Actual[]> {
  if (typeof c.name !== 'string' || c.name === '') throw new CaseError('a case needs a `name`');
  if (c.period === undefined) throw new CaseError('a case needs a `period`');
  const outputs = c.output;
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs) || Object.keys(outputs).length === 0) {
    throw new CaseError('a case needs a non-empty `output` mapping');
  }
  const period = casePeriod(c.period);
  rejectComputedInputs(program, c);

  const derived: [string, number][] = [];
  const params: [string, number][] = [];
  for (const key of Object.keys(outputs)) {
    const rule = program.ruleById.get(key);
    const param = program.paramById.get(key);
    if (rule !== undefined) derived.push([key, rule]);
    else if (param !== undefined) params.push([key, param]);
    else throw new CaseError(`output \`${key}\` is not a rule of this program (its module or an import)`);
  }

  const actuals = new Map<string, Actual | Actual[]>();
  if (derived.length) {
    const entities = new Set(derived.map(([, r]) => program.rules[r].entity));
    if (entities.size > 1) throw new CaseError(`outputs of one case must share an entity; these are on ${[...entities].join(', ')}`);
    const entity = [...entities][0];
    const queryId = queryEntityId(c, entity, n);
    const evaluation = startEvaluation(options.engine ?? 'interpreter', program, buildDataset(program, c, queryId, period), period, { trace: Boolean(options.trace), observer: options.observer });
    const rowOrdered = derived.some(([key]) => Array.isArray((outputs as Record<string, unknown>)[key]));
    const ids = rowOrdered ? (tables(c)[entity] ?? []).map((row, k) => rowIdOf(entity, row, k)) : [queryId];
    for (const [key, rule] of derived) {
      const values = ids.map((id): Actual => {
        const r = evaluation.value(evaluation.rule(rule, id));
        return program.rules[rule].judgment ? { outcome: r as Outcome } : (r as Value);
      });
      actuals.set(key, rowOrdered ? values : values[0]);
    }
    for (const step of evaluation.trace ?? []) options.trace!.push({ rule: step.rule, entity: step.entity, result: evaluation.value(step.result) });
  }
  for (const [key, param] of params) actuals.set(key, parameterOutput(program, param, c, period, options.observer));
  return actuals;
}

/** Parameters are read directly (as the reference harness does): latest version by start date,
 *  the cell chosen by the case's value for the table's `indexed_by` input, else cell 0. */
function parameterOutput(program: Program, index: number, c: RawCase, period: Period, observer?: EvaluationObserver): Value {
  const param = program.parameters[index];
  const versions = param.versions.map((v) => ({ ...v, to: null }));
  const version = latestVersion(versions, period.start);
  if (!version) throw new CaseError(`parameter \`${param.name}\` has no version in effect on the case's period`);
  let key = '0';
  if (param.indexedBy) {
    const slot = param.indexedBy;
    const inputs = (c.input ?? {}) as Record<string, unknown>;
    const found = Object.keys(inputs).find((k) => k === slot || k.endsWith(`#input.${slot}`) || k.endsWith(`#${slot}`) || k.endsWith(`.${slot}`));
    if (found === undefined) throw new CaseError(`parameter \`${param.name}\` is indexed by \`${slot}\`, but the case gives no \`…#input.${slot}\``);
    key = String(inputs[found]);
  }
  const value = [...version.cells].find(([k]) => String(k) === key)?.[1];
  if (value === undefined) throw new CaseError(`parameter \`${param.name}\` has no value for key ${key}`);
  observer?.readParameter(index, versions.indexOf(version), Number(key), value);
  return value;
}


/** The module targets a test file's cases depend on: its module's reachable imports. */
export function testedTargets(tree: SourceTree, testFile: string): string[] {
  const target = tree.targetFor(moduleFileOf(testFile));
  return target ? reachableTargets(tree, target) : [];
}
