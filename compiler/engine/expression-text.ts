import type { Executable, JudgmentExpr, ScalarExpr } from '../3-lower/ir.js';
import { Day, type Value } from '../values.js';

// A lowered expression written back in RuleSpec's formula syntax, for people reading an
// explanation: the formula of the version in force and each side of a comparison, exactly as the
// engine evaluated them (a `match` reads as the `if` chain it lowers to).

// Binding strength, loosest first (the grammar of RuleSpec formulas, §5.2 of the reference).
const IF = 0;
const OR = 1;
const AND = 2;
const CMP = 3;
const ADD = 4;
const MUL = 5;
const UNARY = 6;
const ATOM = 7;

/** A value as a formula writes it: numbers and dates as they are, text in quotes. */
export function literalText(v: Value): string {
  return v instanceof Day ? `'${v}'` : typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v);
}

function wrap(text: string, strength: number, context: number): string {
  return strength < context ? `(${text})` : text;
}

/** Texts already written, by node: a program's expressions do not change, and explanations ask for the same ones again and again. */
const written = new WeakMap<ScalarExpr | JudgmentExpr, string>();

export function expressionText(e: ScalarExpr | JudgmentExpr, exec: Executable): string {
  let text = written.get(e);
  if (text === undefined) written.set(e, (text = write(e, exec, IF)));
  return text;
}

function write(e: ScalarExpr | JudgmentExpr, exec: Executable, context: number): string {
  const text = (x: ScalarExpr | JudgmentExpr, c: number) => write(x, exec, c);
  const list = (xs: (ScalarExpr | JudgmentExpr)[]) => xs.map((x) => text(x, IF)).join(', ');
  switch (e.k) {
    case 'lit':
      return literalText(e.v);
    case 'input':
    case 'jinput':
      return e.slot;
    case 'rule':
    case 'jrule':
      return exec.rules[e.rule].name;
    case 'param':
      return e.key ? `${exec.parameters[e.param].name}[${text(e.key, IF)}]` : exec.parameters[e.param].name;
    case 'arith':
      return wrap(`${text(e.a, e.op === '+' || e.op === '-' ? ADD : MUL)} ${e.op} ${text(e.b, (e.op === '+' || e.op === '-' ? ADD : MUL) + 1)}`, e.op === '+' || e.op === '-' ? ADD : MUL, context);
    case 'neg':
      return wrap(`-${text(e.a, UNARY)}`, UNARY, context);
    case 'minmax':
      return `${e.op}(${list(e.args)})`;
    case 'floor':
    case 'ceil':
      return `${e.k}(${text(e.a, IF)})`;
    case 'period_start':
    case 'period_end':
      return e.k;
    case 'days_between':
    case 'date_add_days':
      return `${e.k}(${list([e.a, e.b])})`;
    case 'count': {
      const rel = exec.relations[e.rel].name;
      return e.pred ? `count_where(${rel}, ${text(e.pred, IF)})` : `len(${rel})`;
    }
    case 'sum': {
      const rel = exec.relations[e.rel].name;
      return e.pred ? `sum_where(${rel}, ${text(e.value, IF)}, ${text(e.pred, IF)})` : `sum(${rel}.${text(e.value, ATOM)})`;
    }
    case 'if': {
      const arms = e.branches.map((b, i) => `${i === 0 ? 'if' : 'elif'} ${text(b.cond, OR)}: ${text(b.then, IF)}`);
      return wrap(`${arms.join(' ')} else: ${text(e.otherwise, IF)}`, IF, context === IF ? IF : ATOM);
    }
    case 'over_periods':
      return `${e.fn}(…)`;
    case 'const':
      return e.holds ? 'true' : 'false';
    case 'cmp':
      return wrap(`${text(e.a, ADD)} ${e.op} ${text(e.b, ADD)}`, CMP, context);
    case 'and':
      return wrap(`${text(e.a, AND)} and ${text(e.b, AND + 1)}`, AND, context);
    case 'or': {
      // `and` binds tighter, but a reader should not need to know it
      const operand = (x: JudgmentExpr, c: number) => (x.k === 'and' ? `(${text(x, c)})` : text(x, c));
      return wrap(`${operand(e.a, OR)} or ${operand(e.b, OR + 1)}`, OR, context);
    }
    case 'not':
      return wrap(`not ${text(e.a, UNARY)}`, UNARY, context);
    case 'member':
      return `member(${exec.relations[e.rel].name})`;
    case 'exactly_one':
      return `exactly_one(${list(e.args)})`;
  }
}
