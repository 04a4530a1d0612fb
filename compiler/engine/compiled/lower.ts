import type { CmpOp, ExecRule, Executable, JudgmentExpr, ScalarExpr } from '../../3-lower/ir.js';
import { describe as describeValue, EvaluationError } from '../evaluate.js';
import type { EvaluationObserver } from '../observer.js';
import type { GivenRaw } from '../dataset.js';
import { and, fromBoolean, HOLDS, NOT_HOLDS, not, or, type Outcome, UNDETERMINED } from '../logic.js';
import type { Period } from '../period.js';
import { Day, Decimal, formatValue, kindOf, type Value } from '../../values.js';
import * as num from './numbers.js';

// Lowers an executable's expressions once into JavaScript closures. Each closure does what the
// interpreter's case for its node does, in the same order (so the same errors surface first),
// on engine values: numbers in the fast form of ./numbers.ts, everything else as in the IR.
// Lowered `observed`, the closures also report to the evaluation's observer what the
// interpreter reports (each judgment's outcome, each comparison's sides, each branch taken), in
// the same order; the plain lowering, which calculations use, carries none of it.

/** A value as the compiled engine carries it: Value with numbers as `Num`. */
export type Fast = num.Num | boolean | string | Day;

/** What the lowered closures call back into: one household's evaluation (CompiledEvaluation). */
export interface EvaluationScope {
  readonly period: Period;
  /** Set only on evaluations of an observed lowering. */
  readonly observer: EvaluationObserver | undefined;
  rule(index: number, entity: string): Fast;
  fastParameter(index: number, key: number): Fast;
  fastInput(slot: number, entity: string): Fast;
  relationMembers(relIndex: number, current: string): string[];
}

export type ScalarFn = (ev: EvaluationScope, entity: string, current: string) => Fast;
export type JudgmentFn = (ev: EvaluationScope, entity: string, current: string) => Outcome;

export interface CompiledVersion {
  from: number | null;
  to: number | null;
  fn: ScalarFn | JudgmentFn;
}

export interface CompiledRule {
  source: ExecRule;
  versions: CompiledVersion[];
}

export interface CompiledParameterVersion {
  from: number | null;
  to: number | null;
  cells: Map<number, Fast>;
}

export interface CompiledProgram {
  exec: Executable;
  rules: CompiledRule[];
  parameters: CompiledParameterVersion[][];
  /** Derived relations' predicates, by relation index. */
  relationPredicates: (JudgmentFn | undefined)[];
  /** Input slots formulas read; slot i is numbered rules.length + i (see CompiledEvaluation's memo). */
  slots: string[];
}

export function toFast(v: Value): Fast {
  return v instanceof Decimal ? num.fromDecimal(v) : v;
}

/** A value as given (a JSON number not yet a Decimal: see Dataset.inputRaw) in the engine's form. */
export function fastOfGiven(v: GivenRaw): Fast {
  return typeof v === 'number' ? num.fromNumber(v) : toFast(v);
}

export function toValue(v: Fast): Value {
  return typeof v === 'number' ? num.toDecimal(v) : v;
}

const describe = (v: Fast): string => describeValue(toValue(v));

function numberOf(v: Fast, what: string): num.Num {
  if (typeof v === 'number' || v instanceof Decimal) return v;
  throw new EvaluationError(`type mismatch: ${what} needs a number, got ${describe(v)}`);
}

function dateOf(v: Fast, what: string): Day {
  if (v instanceof Day) return v;
  throw new EvaluationError(`type mismatch: ${what} needs a date, got ${describe(v)}`);
}

const TESTS: Record<CmpOp, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
  '==': (c) => c === 0,
  '!=': (c) => c !== 0,
};

function comparer(op: CmpOp): (a: Fast, b: Fast) => Outcome {
  const test = TESTS[op];
  return (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return test(a < b ? -1 : a > b ? 1 : 0) ? HOLDS : NOT_HOLDS;
    if ((typeof a === 'number' || a instanceof Decimal) && (typeof b === 'number' || b instanceof Decimal)) return fromBoolean(test(num.cmp(a, b)));
    if (a instanceof Day && b instanceof Day) return fromBoolean(test(a.n - b.n));
    const ka = kindOf(toValue(a));
    if (ka === kindOf(toValue(b)) && (ka === 'bool' || ka === 'text')) {
      if (op === '==') return fromBoolean(a === b);
      if (op === '!=') return fromBoolean(a !== b);
      throw new EvaluationError(`type mismatch: \`${op}\` cannot order ${ka} values (${formatValue(toValue(a))}, ${formatValue(toValue(b))}); only == and != apply`);
    }
    throw new EvaluationError(`type mismatch: cannot compare ${describe(a)} ${op} ${describe(b)}`);
  };
}

const ARITH = { '+': num.plus, '-': num.minus, '*': num.times } as const;

class Lowering {
  readonly slots: string[] = [];
  private readonly slotNumbers = new Map<string, number>();
  constructor(
    private readonly exec: Executable,
    private readonly observed: boolean,
  ) {}

  private slotNumber(slot: string): number {
    let n = this.slotNumbers.get(slot);
    if (n === undefined) {
      this.slotNumbers.set(slot, (n = this.exec.rules.length + this.slots.length));
      this.slots.push(slot);
    }
    return n;
  }

  scalar(e: ScalarExpr): ScalarFn {
    const exec = this.exec;
    switch (e.k) {
      case 'lit': {
        const v = toFast(e.v);
        return () => v;
      }
      case 'input': {
        const slot = this.slotNumber(e.slot);
        return (ev, entity) => ev.fastInput(slot, entity);
      }
      case 'rule': {
        const index = e.rule;
        const rule = exec.rules[index];
        if (rule.judgment) {
          return (ev, entity) => {
            ev.rule(index, entity);
            throw new EvaluationError(`rule \`${rule.name}\` is a judgment; it cannot be used as a value (compare with it in a judgment instead)`);
          };
        }
        return (ev, entity) => ev.rule(index, entity);
      }
      case 'param': {
        const index = e.param;
        if (!e.key) return (ev) => ev.fastParameter(index, 0);
        const key = this.scalar(e.key);
        const name = exec.parameters[index].name;
        return (ev, entity, current) => {
          const k = numberOf(key(ev, entity, current), `the index of \`${name}[…]\``);
          if (!num.isInteger(k)) throw new EvaluationError(`type mismatch: table index ${num.toDecimal(k)} of \`${name}\` is not an integer`);
          return ev.fastParameter(index, num.toInteger(k));
        };
      }
      case 'arith': {
        const a = this.scalar(e.a);
        const b = this.scalar(e.b);
        const what = `\`${e.op}\``;
        if (e.op === '/') {
          return (ev, entity, current) => {
            const x = numberOf(a(ev, entity, current), what);
            const y = numberOf(b(ev, entity, current), what);
            if (num.isZero(y)) throw new EvaluationError(`division by zero (${num.toDecimal(x)} / 0)`);
            return num.div(x, y);
          };
        }
        const op = ARITH[e.op];
        return (ev, entity, current) => op(numberOf(a(ev, entity, current), what), numberOf(b(ev, entity, current), what));
      }
      case 'neg': {
        const a = this.scalar(e.a);
        return (ev, entity, current) => num.negate(numberOf(a(ev, entity, current), 'unary `-`'));
      }
      case 'minmax': {
        const args = e.args.map((arg) => this.scalar(arg));
        const what = `${e.op}()`;
        const better = e.op === 'max' ? (c: number) => c > 0 : (c: number) => c < 0;
        return (ev, entity, current) => {
          let best: num.Num | undefined;
          for (const arg of args) {
            const v = numberOf(arg(ev, entity, current), what);
            if (best === undefined || better(num.cmp(v, best))) best = v;
          }
          return best!;
        };
      }
      case 'floor':
      case 'ceil': {
        const a = this.scalar(e.a);
        const what = `${e.k}()`;
        const f = e.k === 'floor' ? num.floor : num.ceil;
        return (ev, entity, current) => f(numberOf(a(ev, entity, current), what));
      }
      case 'period_start':
        return (ev) => new Day(ev.period.start);
      case 'period_end':
        return (ev) => new Day(ev.period.end);
      case 'days_between': {
        const a = this.scalar(e.a);
        const b = this.scalar(e.b);
        return (ev, entity, current) => {
          const x = dateOf(a(ev, entity, current), 'days_between()');
          const y = dateOf(b(ev, entity, current), 'days_between()');
          return num.fromInteger(y.n - x.n);
        };
      }
      case 'date_add_days': {
        const a = this.scalar(e.a);
        const b = this.scalar(e.b);
        return (ev, entity, current) => {
          const d = dateOf(a(ev, entity, current), 'date_add_days()');
          const n = numberOf(b(ev, entity, current), 'date_add_days()');
          if (!num.isInteger(n)) throw new EvaluationError(`type mismatch: date_add_days() needs a whole number of days, got ${num.toDecimal(n)}`);
          return new Day(d.n + num.toInteger(n));
        };
      }
      case 'count': {
        const rel = e.rel;
        const pred = e.pred && this.judgment(e.pred);
        return (ev, entity) => {
          let n = 0;
          for (const m of ev.relationMembers(rel, entity)) if (!pred || pred(ev, m, entity) === HOLDS) n++;
          return num.fromInteger(n);
        };
      }
      case 'sum': {
        const rel = e.rel;
        const pred = e.pred && this.judgment(e.pred);
        const value = this.scalar(e.value);
        return (ev, entity) => {
          let total: num.Num = 0;
          for (const m of ev.relationMembers(rel, entity)) {
            if (pred && pred(ev, m, entity) !== HOLDS) continue;
            total = num.plus(total, numberOf(value(ev, m, entity), 'sum over a relation'));
          }
          return total;
        };
      }
      case 'if': {
        const conds = e.branches.map((b) => this.judgment(b.cond));
        const thens = e.branches.map((b) => this.scalar(b.then));
        const otherwise = this.scalar(e.otherwise);
        if (this.observed) {
          return (ev, entity, current) => {
            for (let i = 0; i < conds.length; i++) {
              if (conds[i](ev, entity, current) === HOLDS) {
                ev.observer!.branch(e, entity, i);
                return thens[i](ev, entity, current);
              }
            }
            ev.observer!.branch(e, entity, conds.length);
            return otherwise(ev, entity, current);
          };
        }
        return (ev, entity, current) => {
          for (let i = 0; i < conds.length; i++) if (conds[i](ev, entity, current) === HOLDS) return thens[i](ev, entity, current);
          return otherwise(ev, entity, current);
        };
      }
      case 'over_periods': {
        const message = `${e.fn}() is a lifetime reduction; it cannot be evaluated for a single period`;
        return () => {
          throw new EvaluationError(message);
        };
      }
    }
  }

  judgment(e: JudgmentExpr): JudgmentFn {
    const judge = this.judge(e);
    if (!this.observed) return judge;
    return (ev, entity, current) => {
      const outcome = judge(ev, entity, current);
      ev.observer!.judged(e, entity, outcome);
      return outcome;
    };
  }

  private judge(e: JudgmentExpr): JudgmentFn {
    const exec = this.exec;
    switch (e.k) {
      case 'const': {
        const outcome = e.holds ? HOLDS : NOT_HOLDS;
        return () => outcome;
      }
      case 'cmp': {
        const a = this.scalar(e.a);
        const b = this.scalar(e.b);
        const compare = comparer(e.op);
        if (this.observed) {
          return (ev, entity, current) => {
            const x = a(ev, entity, current);
            const y = b(ev, entity, current);
            ev.observer!.compared(e, entity, x, y);
            return compare(x, y);
          };
        }
        return (ev, entity, current) => compare(a(ev, entity, current), b(ev, entity, current));
      }
      case 'jrule': {
        const index = e.rule;
        const rule = exec.rules[index];
        const onCurrent = Boolean(e.onCurrent);
        if (!rule.judgment) {
          return (ev, entity, current) => {
            ev.rule(index, onCurrent ? current : entity);
            throw new EvaluationError(`rule \`${rule.name}\` (dtype ${rule.dtype ?? 'none'}) is a value, not a judgment; compare it (e.g. \`${rule.name} == true\`)`);
          };
        }
        return onCurrent ? (ev, _entity, current) => ev.rule(index, current) as Outcome : (ev, entity) => ev.rule(index, entity) as Outcome;
      }
      case 'jinput': {
        const name = e.slot;
        const slot = this.slotNumber(name);
        return (ev, entity) => {
          const v = ev.fastInput(slot, entity);
          if (typeof v !== 'boolean') throw new EvaluationError(`type mismatch: input \`${name}\` is used as a condition, so it must be true or false, got ${describe(v)}`);
          return v ? HOLDS : NOT_HOLDS;
        };
      }
      case 'and': {
        const a = this.judgment(e.a);
        const b = this.judgment(e.b);
        return (ev, entity, current) => {
          const x = a(ev, entity, current);
          if (x === NOT_HOLDS) return NOT_HOLDS;
          const y = b(ev, entity, current);
          if (y === NOT_HOLDS) return NOT_HOLDS;
          return x === HOLDS && y === HOLDS ? HOLDS : UNDETERMINED;
        };
      }
      case 'or': {
        const a = this.judgment(e.a);
        const b = this.judgment(e.b);
        return (ev, entity, current) => {
          const x = a(ev, entity, current);
          if (x === HOLDS) return HOLDS;
          const y = b(ev, entity, current);
          if (y === HOLDS) return HOLDS;
          return x === NOT_HOLDS && y === NOT_HOLDS ? NOT_HOLDS : UNDETERMINED;
        };
      }
      case 'not': {
        const a = this.judgment(e.a);
        return (ev, entity, current) => not(a(ev, entity, current));
      }
      case 'member': {
        const rel = e.rel;
        return (ev, entity, current) => fromBoolean(ev.relationMembers(rel, current).includes(entity));
      }
      case 'exactly_one': {
        // the interpreter's formula, OR_i (j_i AND NOT j_k for every k ≠ i), with its short-circuits
        const args = e.args.map((arg) => this.judgment(arg));
        return (ev, entity, current) => {
          let result: Outcome = NOT_HOLDS;
          for (let i = 0; i < args.length && result !== HOLDS; i++) {
            result = or(result, () => args.reduce<Outcome>((acc, arg, k) => and(acc, () => (k === i ? arg(ev, entity, current) : not(arg(ev, entity, current)))), HOLDS));
          }
          return result;
        };
      }
    }
  }
}

/** Lower every rule version, parameter table and derived-relation predicate of a program (`observed`: reporting to an observer). */
export function lowerExecutable(exec: Executable, observed = false): CompiledProgram {
  const lowering = new Lowering(exec, observed);
  return {
    exec,
    rules: exec.rules.map((rule) => ({
      source: rule,
      versions: rule.versions.map((v) => ({
        from: v.from,
        to: v.to,
        fn: rule.judgment ? lowering.judgment(v.expr as JudgmentExpr) : lowering.scalar(v.expr as ScalarExpr),
      })),
    })),
    parameters: exec.parameters.map((p) => p.versions.map((v) => ({ from: v.from, to: v.to, cells: new Map([...v.cells].map(([k, value]) => [k, toFast(value)])) }))),
    relationPredicates: exec.relations.map((r) => r.derived && lowering.judgment(r.derived.predicate)),
    slots: lowering.slots,
  };
}
