import type { ExecParameter, ExecRule, Executable, JudgmentExpr, Relation, ScalarExpr } from '../3-lower/ir.js';
import type { Dataset } from './dataset.js';
import { and, fromBoolean, HOLDS, NOT_HOLDS, not, or, type Outcome, outcomeJson } from './logic.js';
import type { EvaluationObserver } from './observer.js';
import { type Period, periodLabel } from './period.js';
import { Day, Decimal, formatValue, kindOf, toJson, type Value, ZERO } from '../values.js';

// The evaluator: lazy and memoised per (rule, entity id) within one query period. Only the taken
// branch of an `if` is evaluated and `and`/`or` short-circuit left to right, because errors
// (a missing input, a division by zero) abort the whole query.

/** What went wrong, for callers that can do better than show the message. */
export interface EvaluationErrorDetail {
  /** A missing input, so callers can name the field to supply. */
  missingInput?: { slot: string; entity: string };
  /** A table without a cell for the key looked up. */
  missingKey?: { parameter: number; key: number };
  /** Nothing in effect on the query date; `nextEffective` is the first later day something is. */
  notInEffect?: { nextEffective?: number };
  /** The evaluation ran past its deadline. */
  timedOut?: boolean;
}

export class EvaluationError extends Error {
  /** Rules being evaluated when the error happened, outermost first. */
  chain: string[] = [];
  constructor(
    message: string,
    readonly detail: EvaluationErrorDetail = {},
  ) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/** A rule value computed during a query, in the order computation finished. */
export interface TraceStep {
  rule: number;
  entity: string;
  result: Result;
}

export type Result = Value | Outcome;

export interface EvaluationOptions {
  /** Record every rule value computed (`trace`). */
  trace?: boolean;
  /** Wall-clock limit, ms since the epoch. */
  deadline?: number;
}

/** decimal.js's rounding mode for each RuleSpec one (both engines round with these). */
export const ROUNDING = {
  half_up: Decimal.ROUND_HALF_UP,
  half_even: Decimal.ROUND_HALF_EVEN,
  floor: Decimal.ROUND_FLOOR,
  ceil: Decimal.ROUND_CEIL,
} as const;

const IN_PROGRESS = Symbol('in progress');

export function describe(v: Value): string {
  return `${kindOf(v)} ${formatValue(v)}`;
}

export class Evaluation {
  private readonly memo: Map<string, Result | typeof IN_PROGRESS>[];
  private readonly members = new Map<string, string[]>();
  /** Every rule value computed, when tracing is on. */
  readonly trace: TraceStep[] | null;
  private readonly observer: EvaluationObserver | undefined;

  constructor(
    readonly program: Executable,
    readonly dataset: Dataset,
    readonly period: Period,
    options: EvaluationOptions & { observer?: EvaluationObserver } = {},
  ) {
    this.memo = program.rules.map(() => new Map());
    this.trace = options.trace ? [] : null;
    this.deadline = options.deadline ?? Infinity;
    this.observer = options.observer;
  }

  /** Wall-clock limit (ms since epoch); checked every few hundred rule evaluations. */
  private readonly deadline: number;
  private evaluations = 0;

  /** Evaluate a derived rule for an entity id. Judgment rules yield an Outcome. */
  rule(index: number, entity: string): Result {
    const memo = this.memo[index];
    const cached = memo.get(entity);
    if (cached !== undefined) {
      if (cached === IN_PROGRESS) throw new EvaluationError(`rule \`${this.program.rules[index].name}\` depends on itself`);
      this.observer?.readRule(index, entity);
      return cached;
    }
    const rule = this.program.rules[index];
    if ((++this.evaluations & 255) === 0 && Date.now() > this.deadline) throw new EvaluationError('the calculation took longer than its time limit', { timedOut: true });
    memo.set(entity, IN_PROGRESS);
    let result: Result;
    try {
      result = this.compute(rule, entity);
    } catch (err) {
      memo.delete(entity);
      if (err instanceof EvaluationError) err.chain.unshift(rule.id);
      throw err;
    }
    memo.set(entity, result);
    this.trace?.push({ rule: index, entity, result });
    if (this.observer) {
      this.observer.leaveRule(index, entity, result);
      this.observer.readRule(index, entity);
    }
    return result;
  }

  private compute(rule: ExecRule, entity: string): Result {
    if (rule.unitError) throw new EvaluationError(rule.unitError);
    const version = this.version(rule);
    this.observer?.enterRule(rule.index, entity, version);
    const expr = rule.versions[version].expr;
    if (rule.judgment) return this.judgment(expr as JudgmentExpr, entity, entity);
    let value = this.scalar(expr as ScalarExpr, entity, entity);
    if (rule.rounding && value instanceof Decimal) {
      value = value.toDecimalPlaces(rule.rounding.minorUnits, ROUNDING[rule.rounding.mode]);
    }
    return value;
  }

  /** The index of the rule's version in effect. */
  private version(rule: ExecRule): number {
    if (rule.alwaysApplies) return 0;
    const chosen = latestVersion(rule.versions, this.period.start);
    if (!chosen) throw new EvaluationError(`rule \`${rule.name}\` has no version in effect on ${periodLabel(this.period)}`, { notInEffect: { nextEffective: nextStart(rule.versions, this.period.start) } });
    return rule.versions.indexOf(chosen);
  }

  parameter(index: number, key: number): Value {
    const param = this.program.parameters[index];
    const value = parameterCell(param, param.versions, this.period, index, key);
    this.observer?.readParameter(index, versionInForce(param, this.period), key, value);
    return value;
  }

  /** A rule result in the reference form (the interpreter computes in it). */
  value(result: Result): Result {
    return result;
  }

  /** A rule result's JSON form: numbers as `toJson` gives them, judgments as true/false/null. */
  json(result: Result, judgment: boolean): unknown {
    if (judgment) return outcomeJson(result);
    return toJson(result as Value);
  }

  input(slot: string, entity: string): Value {
    const value = this.dataset.input(slot, entity, this.period);
    if (value === undefined) throw new EvaluationError(`missing input \`${slot}\` for entity ${entity} in ${periodLabel(this.period)}`, { missingInput: { slot, entity } });
    this.observer?.readInput(slot, entity);
    return value;
  }

  private number(v: Value, what: string): Decimal {
    if (v instanceof Decimal) return v;
    throw new EvaluationError(`type mismatch: ${what} needs a number, got ${describe(v)}`);
  }

  private date(v: Value, what: string): Day {
    if (v instanceof Day) return v;
    throw new EvaluationError(`type mismatch: ${what} needs a date, got ${describe(v)}`);
  }

  scalar(e: ScalarExpr, entity: string, current: string): Value {
    switch (e.k) {
      case 'lit':
        return e.v;
      case 'input':
        return this.input(e.slot, entity);
      case 'rule': {
        const r = this.rule(e.rule, entity);
        if (this.program.rules[e.rule].judgment) {
          throw new EvaluationError(`rule \`${this.program.rules[e.rule].name}\` is a judgment; it cannot be used as a value (compare with it in a judgment instead)`);
        }
        return r as Value;
      }
      case 'param': {
        let key = 0;
        if (e.key) {
          const k = this.number(this.scalar(e.key, entity, current), `the index of \`${this.program.parameters[e.param].name}[…]\``);
          if (!k.isInteger()) throw new EvaluationError(`type mismatch: table index ${k} of \`${this.program.parameters[e.param].name}\` is not an integer`);
          key = k.toNumber();
        }
        return this.parameter(e.param, key);
      }
      case 'arith': {
        const a = this.number(this.scalar(e.a, entity, current), `\`${e.op}\``);
        const b = this.number(this.scalar(e.b, entity, current), `\`${e.op}\``);
        switch (e.op) {
          case '+':
            return a.plus(b);
          case '-':
            return a.minus(b);
          case '*':
            return a.times(b);
          case '/':
            if (b.isZero()) throw new EvaluationError(`division by zero (${a} / 0)`);
            return a.div(b);
        }
        break;
      }
      case 'neg':
        return ZERO.minus(this.number(this.scalar(e.a, entity, current), 'unary `-`'));
      case 'minmax': {
        let best: Decimal | undefined;
        for (const arg of e.args) {
          const v = this.number(this.scalar(arg, entity, current), `${e.op}()`);
          if (!best || (e.op === 'max' ? v.gt(best) : v.lt(best))) best = v;
        }
        return best!;
      }
      case 'floor':
        return this.number(this.scalar(e.a, entity, current), 'floor()').floor();
      case 'ceil':
        return this.number(this.scalar(e.a, entity, current), 'ceil()').ceil();
      case 'period_start':
        return new Day(this.period.start);
      case 'period_end':
        return new Day(this.period.end);
      case 'days_between': {
        const a = this.date(this.scalar(e.a, entity, current), 'days_between()');
        const b = this.date(this.scalar(e.b, entity, current), 'days_between()');
        return new Decimal(b.n - a.n);
      }
      case 'date_add_days': {
        const d = this.date(this.scalar(e.a, entity, current), 'date_add_days()');
        const n = this.number(this.scalar(e.b, entity, current), 'date_add_days()');
        if (!n.isInteger()) throw new EvaluationError(`type mismatch: date_add_days() needs a whole number of days, got ${n}`);
        return new Day(d.n + n.toNumber());
      }
      case 'count': {
        let n = 0;
        for (const m of this.relationMembers(e.rel, entity)) if (!e.pred || this.judgment(e.pred, m, entity) === HOLDS) n++;
        return new Decimal(n);
      }
      case 'sum': {
        let total = ZERO;
        for (const m of this.relationMembers(e.rel, entity)) {
          if (e.pred && this.judgment(e.pred, m, entity) !== HOLDS) continue;
          total = total.plus(this.number(this.scalar(e.value, m, entity), 'sum over a relation'));
        }
        return total;
      }
      case 'if':
        for (let i = 0; i < e.branches.length; i++) {
          if (this.judgment(e.branches[i].cond, entity, current) === HOLDS) {
            this.observer?.branch(e, entity, i);
            return this.scalar(e.branches[i].then, entity, current);
          }
        }
        this.observer?.branch(e, entity, e.branches.length);
        return this.scalar(e.otherwise, entity, current);
      case 'over_periods':
        throw new EvaluationError(`${e.fn}() is a lifetime reduction; it cannot be evaluated for a single period`);
    }
    throw new Error(`unhandled scalar node ${(e as ScalarExpr).k}`);
  }

  judgment(e: JudgmentExpr, entity: string, current: string): Outcome {
    const outcome = this.judge(e, entity, current);
    this.observer?.judged(e, entity, outcome);
    return outcome;
  }

  private judge(e: JudgmentExpr, entity: string, current: string): Outcome {
    switch (e.k) {
      case 'const':
        return e.holds ? HOLDS : NOT_HOLDS;
      case 'cmp': {
        const a = this.scalar(e.a, entity, current);
        const b = this.scalar(e.b, entity, current);
        this.observer?.compared(e, entity, a, b);
        return this.compare(e.op, a, b);
      }
      case 'jrule': {
        const rule = this.program.rules[e.rule];
        const r = this.rule(e.rule, e.onCurrent ? current : entity);
        if (!rule.judgment) throw new EvaluationError(`rule \`${rule.name}\` (dtype ${rule.dtype ?? 'none'}) is a value, not a judgment; compare it (e.g. \`${rule.name} == true\`)`);
        return r as Outcome;
      }
      case 'jinput': {
        const v = this.input(e.slot, entity);
        if (typeof v !== 'boolean') throw new EvaluationError(`type mismatch: input \`${e.slot}\` is used as a condition, so it must be true or false, got ${describe(v)}`);
        return fromBoolean(v);
      }
      case 'and':
        return and(this.judgment(e.a, entity, current), () => this.judgment(e.b, entity, current));
      case 'or':
        return or(this.judgment(e.a, entity, current), () => this.judgment(e.b, entity, current));
      case 'not':
        return not(this.judgment(e.a, entity, current));
      case 'member':
        return fromBoolean(this.relationMembers(e.rel, current).includes(entity));
      case 'exactly_one': {
        // OR_i (j_i AND NOT j_k for every k ≠ i), with the usual short-circuits
        let result: Outcome = NOT_HOLDS;
        for (let i = 0; i < e.args.length && result !== HOLDS; i++) {
          result = or(result, () =>
            e.args.reduce<Outcome>((acc, arg, k) => and(acc, () => (k === i ? this.judgment(arg, entity, current) : not(this.judgment(arg, entity, current)))), HOLDS),
          );
        }
        return result;
      }
    }
  }

  private compare(op: string, a: Value, b: Value): Outcome {
    if (a instanceof Decimal && b instanceof Decimal) {
      const c = a.cmp(b);
      return fromBoolean(op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '>=' ? c >= 0 : op === '==' ? c === 0 : c !== 0);
    }
    if (a instanceof Day && b instanceof Day) {
      const c = a.n - b.n;
      return fromBoolean(op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '>=' ? c >= 0 : op === '==' ? c === 0 : c !== 0);
    }
    const ka = kindOf(a);
    if (ka === kindOf(b) && (ka === 'bool' || ka === 'text')) {
      if (op === '==') return fromBoolean(a === b);
      if (op === '!=') return fromBoolean(a !== b);
      throw new EvaluationError(`type mismatch: \`${op}\` cannot order ${ka} values (${formatValue(a)}, ${formatValue(b)}); only == and != apply`);
    }
    throw new EvaluationError(`type mismatch: cannot compare ${describe(a)} ${op} ${describe(b)}`);
  }

  /** Related member ids of a relation for the current entity, ascending and de-duplicated. */
  relationMembers(relIndex: number, current: string): string[] {
    const key = `${relIndex}\u0000${current}`;
    let ids = this.members.get(key);
    if (ids) return ids;
    const rel = this.program.relations[relIndex];
    const found = new Set<string>();
    if (rel.derived) {
      const d = rel.derived;
      const source = this.program.relations[d.source];
      const candidates = source.derived ? this.relationMembers(d.source, current) : this.dataset.members(source, this.period, current, d.currentSlot, d.relatedSlot);
      for (const m of candidates) if (this.judgment(d.predicate, m, current) === HOLDS) found.add(m);
    }
    for (const m of this.dataset.members(rel, this.period, current, 1, 0)) found.add(m);
    ids = [...found].sort();
    this.members.set(key, ids);
    return ids;
  }
}

/** The first day after `day` on which some version starts. */
export function nextStart(versions: { from: number | null }[], day: number): number | undefined {
  const later = versions.map((v) => v.from).filter((f): f is number => f !== null && f > day);
  return later.length ? Math.min(...later) : undefined;
}

/**
 * Cell `key` of parameter `index` in the version in effect in `period` (`versions`: the
 * parameter's own, or the same versions with their cells in another number form); an
 * EvaluationError naming what is missing otherwise. Both engines look parameters up here.
 */
export function parameterCell<T>(
  param: { name: string; indexedBy?: string | null; versions: { from: number | null }[] },
  versions: { from: number | null; to: number | null; cells: Map<number, T> }[],
  period: Period,
  index: number,
  key: number,
): T {
  const version = latestVersion(versions, period.start);
  if (!version) throw new EvaluationError(`parameter \`${param.name}\` has no value in effect on ${periodLabel(period)}`, { notInEffect: { nextEffective: nextStart(param.versions, period.start) } });
  const value = version.cells.get(key);
  if (value === undefined) {
    throw new EvaluationError(
      param.indexedBy || version.cells.size > 1
        ? `parameter \`${param.name}\` has no value for key ${key}${param.indexedBy ? ` (${param.indexedBy})` : ''}`
        : `parameter \`${param.name}\` is a table; look it up with \`${param.name}[…]\``,
      { missingKey: { parameter: index, key } },
    );
  }
  return value;
}

/** The version with the greatest `from` on or before `day`; none when that version has expired. */
/** The index of the version of a parameter in force in `period` (the cell read has just been found in it). */
export function versionInForce(param: ExecParameter, period: Period): number {
  return param.versions.indexOf(latestVersion(param.versions, period.start)!);
}

export function latestVersion<V extends { from: number | null; to: number | null }>(versions: V[], day: number): V | undefined {
  let chosen: V | undefined;
  for (const v of versions) if (v.from === null || v.from <= day) chosen = v;
  if (chosen && chosen.to !== null && day > chosen.to) return undefined;
  return chosen;
}

