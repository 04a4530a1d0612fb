import type { Executable, Relation } from '../../3-lower/ir.js';
import { type Dataset, decimalOfGiven, type GivenRaw } from '../dataset.js';
import { EvaluationError, type EvaluationOptions, latestVersion, nextStart, parameterCell, type Result, versionInForce } from '../evaluate.js';
import { HOLDS, outcomeJson } from '../logic.js';
import { type Period, periodLabel } from '../period.js';
import { Decimal, toJson, type Value } from '../../values.js';
import { type CompiledProgram, type EvaluationScope, type Fast, type JudgmentFn, fastOfGiven, lowerExecutable, type ScalarFn, toFast, toValue } from './lower.js';
import * as num from './numbers.js';
import type { EvaluationObserver } from '../observer.js';

// One query through a compiled program: the interpreter's Evaluation (lazy, memoised per rule
// and entity id, same errors, same trace order) over closures and fast numbers. With an
// observer, the program's observed lowering runs, and the observer hears what it would hear
// from the interpreter, in the same order (values in this engine's form: see observer.ts).

const IN_PROGRESS = Symbol('in progress');
type Memo = (Fast | typeof IN_PROGRESS | undefined)[];

const lowered = new WeakMap<Executable, CompiledProgram>();
const loweredObserved = new WeakMap<Executable, CompiledProgram>();

/**
 * Values another evaluation of the same household computed, standing in for this one's where a
 * rule's whole dependency closure is the same in both programs (`rules diff`: the reform reuses
 * the baseline's unchanged rules). `from[i]` is the other program's index of rule i, or -1.
 * Values taken from the seed are not in this evaluation's trace: the other one computed them.
 */
export interface Seed {
  evaluation: CompiledEvaluation;
  from: Int32Array;
}

/** The program lowered to closures, once per executable (and once more, observed, when an observer asks). */
export function compiledProgram(exec: Executable, observed = false): CompiledProgram {
  const cache = observed ? loweredObserved : lowered;
  let program = cache.get(exec);
  if (!program) cache.set(exec, (program = lowerExecutable(exec, observed)));
  return program;
}

export class CompiledEvaluation implements EvaluationScope {
  private readonly program: CompiledProgram;
  private readonly memos = new Map<string, Memo>();
  private lastEntity = '';
  private lastMemo: Memo | undefined;
  /** Relation members by relation index, then current entity id. */
  private readonly members: (Map<string, string[]> | undefined)[] = [];
  private readonly deadline: number;
  private evaluations = 0;
  /** Every rule value computed, when tracing is on (results in the engine's form: see `value`, `json`). */
  readonly trace: { rule: number; entity: string; result: Fast }[] | null;
  private readonly seed: Seed | undefined;
  readonly observer: EvaluationObserver | undefined;

  constructor(
    exec: Executable,
    readonly dataset: Dataset,
    readonly period: Period,
    options: EvaluationOptions & { seed?: Seed; observer?: EvaluationObserver } = {},
  ) {
    this.observer = options.observer;
    this.program = compiledProgram(exec, Boolean(this.observer));
    this.trace = options.trace ? [] : null;
    this.deadline = options.deadline ?? Infinity;
    this.seed = options.seed;
  }

  /** A rule's value if this evaluation has computed it (nothing is computed). */
  computed(index: number, entity: string): Fast | undefined {
    const value = this.memos.get(entity)?.[index];
    return value === IN_PROGRESS ? undefined : value;
  }

  private memoOf(entity: string): Memo {
    if (entity === this.lastEntity && this.lastMemo) return this.lastMemo;
    let memo = this.memos.get(entity);
    if (!memo) this.memos.set(entity, (memo = new Array(this.program.rules.length + this.program.slots.length)));
    this.lastEntity = entity;
    this.lastMemo = memo;
    return memo;
  }

  /** A derived rule's value for an entity id, in the engine's form (see `value`, `json`). */
  rule(index: number, entity: string): Fast {
    const memo = this.memoOf(entity);
    const cached = memo[index];
    if (cached !== undefined) {
      if (cached === IN_PROGRESS) throw new EvaluationError(`rule \`${this.program.rules[index].source.name}\` depends on itself`);
      this.observer?.readRule(index, entity);
      return cached;
    }
    const seeded = this.seed && this.seed.from[index] >= 0 ? this.seed.evaluation.computed(this.seed.from[index], entity) : undefined;
    if (seeded !== undefined) return (memo[index] = seeded);
    const rule = this.program.rules[index];
    if ((++this.evaluations & 255) === 0 && Date.now() > this.deadline) throw new EvaluationError('the calculation took longer than its time limit', { timedOut: true });
    memo[index] = IN_PROGRESS;
    let result: Fast;
    try {
      result = this.compute(index, entity);
    } catch (err) {
      memo[index] = undefined;
      if (err instanceof EvaluationError) err.chain.unshift(rule.source.id);
      throw err;
    }
    memo[index] = result;
    this.trace?.push({ rule: index, entity, result });
    if (this.observer) {
      this.observer.leaveRule(index, entity, result);
      this.observer.readRule(index, entity);
    }
    return result;
  }

  private compute(index: number, entity: string): Fast {
    const { source, versions } = this.program.rules[index];
    if (source.unitError) throw new EvaluationError(source.unitError);
    let version = versions[0];
    if (!source.alwaysApplies) {
      const chosen = latestVersion(versions, this.period.start);
      if (!chosen) throw new EvaluationError(`rule \`${source.name}\` has no version in effect on ${periodLabel(this.period)}`, { notInEffect: { nextEffective: nextStart(versions, this.period.start) } });
      version = chosen;
    }
    this.observer?.enterRule(index, entity, versions.indexOf(version));
    if (source.judgment) return (version.fn as JudgmentFn)(this, entity, entity);
    const value = (version.fn as ScalarFn)(this, entity, entity);
    if (source.rounding && (typeof value === 'number' || value instanceof Decimal)) return num.round(value, source.rounding.minorUnits, source.rounding.mode);
    return value;
  }

  fastParameter(index: number, key: number): Fast {
    const value = parameterCell(this.program.exec.parameters[index], this.program.parameters[index], this.period, index, key);
    this.observer?.readParameter(index, versionInForce(this.program.exec.parameters[index], this.period), key, value);
    return value;
  }

  /** Input slot number `slot` (see CompiledProgram.slots), memoised with the entity's rules. */
  fastInput(slot: number, entity: string): Fast {
    const memo = this.memoOf(entity);
    let value = memo[slot] as Fast | undefined;
    if (value === undefined) memo[slot] = value = fastOfGiven(this.inputRaw(this.program.slots[slot - this.program.rules.length], entity));
    // the interpreter reads an input each time a formula names it, and says so each time
    this.observer?.readInput(this.program.slots[slot - this.program.rules.length], entity);
    return value;
  }

  input(slot: string, entity: string): Value {
    return decimalOfGiven(this.inputRaw(slot, entity));
  }

  private inputRaw(slot: string, entity: string): GivenRaw {
    const value = this.dataset.inputRaw(slot, entity, this.period);
    if (value === undefined) throw new EvaluationError(`missing input \`${slot}\` for entity ${entity} in ${periodLabel(this.period)}`, { missingInput: { slot, entity } });
    return value;
  }

  /** Related member ids of a relation for the current entity, ascending and de-duplicated. */
  relationMembers(relIndex: number, current: string): string[] {
    let byCurrent = this.members[relIndex];
    if (!byCurrent) this.members[relIndex] = byCurrent = new Map();
    let ids = byCurrent.get(current);
    if (ids) return ids;
    const relations = this.program.exec.relations;
    const rel = relations[relIndex];
    const found: string[] = [];
    if (rel.derived) {
      const d = rel.derived;
      const source = relations[d.source];
      const predicate = this.program.relationPredicates[relIndex]!;
      const candidates = source.derived ? this.relationMembers(d.source, current) : this.dataset.members(source, this.period, current, d.currentSlot, d.relatedSlot);
      for (const m of candidates) if (predicate(this, m, current) === HOLDS) found.push(m);
    }
    found.push(...this.dataset.members(rel, this.period, current, 1, 0));
    // ascending and de-duplicated, as the interpreter's Set then sort gives them
    found.sort();
    ids = found.filter((m, k) => k === 0 || m !== found[k - 1]);
    byCurrent.set(current, ids);
    return ids;
  }

  // ---- the interpreter's interface, in its value forms ----

  parameter(index: number, key: number): Value {
    return toValue(this.fastParameter(index, key));
  }

  /** A rule result (from `fastRule` or the trace) as the interpreter gives it. */
  value(result: Fast): Result {
    return toValue(result) as Result;
  }

  /** A rule result's JSON form: numbers as `toJson` gives them, judgments as true/false/null. */
  json(result: Fast, judgment: boolean): unknown {
    if (judgment) return outcomeJson(result);
    if (typeof result === 'number' || result instanceof Decimal) return num.numJson(result);
    return toJson(result as Value);
  }
}
