import type { Executable, Expr, JudgmentExpr, ScalarExpr } from '../3-lower/ir.js';
import { isJudgment } from '../engine/reads.js';
import { Day, Decimal, type Value } from '../values.js';

// A lowered expression written back as a RuleSpec formula on one line, with names for the rules,
// parameters, inputs and relations it references. A runtime package keeps only the lowered form
// of each dated version, so this is how `rules diff` shows every version of a changed formula,
// whichever form (encodings or a compiled output) each side was read from.

const ARITH_LEVEL: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

export function valueText(v: Value): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Decimal || v instanceof Day) return v.toString();
  return String(v);
}

export function formulaText(exec: Executable, expr: Expr): string {
  const rel = (i: number) => exec.relations[i].name;

  // `level` of the context: an operand binds tighter than its context or is parenthesised
  const scalar = (e: ScalarExpr, level = 0): string => {
    switch (e.k) {
      case 'lit':
        return valueText(e.v);
      case 'input':
        return e.slot;
      case 'rule':
        return exec.rules[e.rule].name;
      case 'param':
        return e.key ? `${exec.parameters[e.param].name}[${scalar(e.key)}]` : exec.parameters[e.param].name;
      case 'arith': {
        const own = ARITH_LEVEL[e.op];
        // the right operand of - and / is grouped when it is of the same level: a - (b - c)
        const text = `${scalar(e.a, own)} ${e.op} ${scalar(e.b, e.op === '-' || e.op === '/' ? own + 1 : own)}`;
        return own < level ? `(${text})` : text;
      }
      case 'neg':
        return `-${scalar(e.a, 3)}`;
      case 'minmax':
        return `${e.op}(${e.args.map((a) => scalar(a)).join(', ')})`;
      case 'floor':
      case 'ceil':
        return `${e.k}(${scalar(e.a)})`;
      case 'period_start':
      case 'period_end':
        return e.k;
      case 'days_between':
      case 'date_add_days':
        return `${e.k}(${scalar(e.a)}, ${scalar(e.b)})`;
      case 'count':
        return e.pred ? `count_where(${rel(e.rel)}, ${judgment(e.pred)})` : `len(${rel(e.rel)})`;
      case 'sum':
        return e.pred ? `sum_where(${rel(e.rel)}, ${scalar(e.value)}, ${judgment(e.pred)})` : `sum(${rel(e.rel)}.${scalar(e.value)})`;
      case 'if': {
        const arms = e.branches.map((b, i) => `${i ? 'elif' : 'if'} ${judgment(b.cond)}: ${scalar(b.then)}`);
        const text = `${arms.join(' ')} else: ${scalar(e.otherwise)}`;
        return level > 0 ? `(${text})` : text;
      }
      case 'over_periods':
        return `${e.fn}(…)`;
    }
  };

  // judgment levels: or 1, and 2, not 3
  const judgment = (e: JudgmentExpr, level = 0): string => {
    switch (e.k) {
      case 'const':
        return e.holds ? 'true' : 'false';
      case 'cmp':
        return `${scalar(e.a, 1)} ${e.op} ${scalar(e.b, 1)}`;
      case 'jrule':
        return exec.rules[e.rule].name;
      case 'jinput':
        return e.slot;
      case 'and':
      case 'or': {
        const own = e.k === 'or' ? 1 : 2;
        const text = `${judgment(e.a, own)} ${e.k} ${judgment(e.b, own)}`;
        return own < level ? `(${text})` : text;
      }
      case 'not':
        return `not ${judgment(e.a, 3)}`;
      case 'member':
        return rel(e.rel);
      case 'exactly_one':
        return `exactly_one(${e.args.map((a) => judgment(a)).join(', ')})`;
    }
  };

  return isJudgment(expr) ? judgment(expr) : scalar(expr);
}
