import type { Executable, Expr, JudgmentExpr, ScalarExpr } from '../3-lower/ir.js';

// What a rule's formula reads, from its lowered expression: the rules, parameters, inputs and
// relations it references directly. Within an aggregation over a relation (`count_where`,
// `sum_where`, `len`, `sum`) and in a derived relation's predicate, rules and inputs are read on
// the related entities, not on the entity the rule is evaluated for; those are kept apart
// (`memberRules`, `memberInputs`) so a caller can tell "this rule on this entity" from "this rule
// on some member".

export interface Reads {
  /** Rules read on the entity the formula is evaluated for. */
  rules: Set<number>;
  /** Rules read on related entities (inside aggregations and relation predicates). */
  memberRules: Set<number>;
  params: Set<number>;
  /** Input slots read on the entity itself. */
  inputs: Set<string>;
  /** Input slots read on related entities. */
  memberInputs: Set<string>;
  relations: Set<number>;
}

const emptyReads = (): Reads => ({ rules: new Set(), memberRules: new Set(), params: new Set(), inputs: new Set(), memberInputs: new Set(), relations: new Set() });

/** Everything `expr` (one version of a rule) reads directly. */
export function readsOf(exec: Executable, expr: Expr): Reads {
  const reads = emptyReads();
  const seenRelations = new Set<number>();

  // `depth` counts the aggregations entered: 0 is the rule's own entity, 1 the members of a
  // relation of it (where `onCurrent` reads go back to the rule's own entity), deeper is further.
  const relation = (index: number, depth: number): void => {
    reads.relations.add(index);
    if (seenRelations.has(index)) return;
    seenRelations.add(index);
    const derived = exec.relations[index].derived;
    if (!derived) return;
    relation(derived.source, depth);
    judgment(derived.predicate, depth + 1);
  };

  const scalar = (e: ScalarExpr, depth: number): void => {
    switch (e.k) {
      case 'input':
        (depth === 0 ? reads.inputs : reads.memberInputs).add(e.slot);
        return;
      case 'rule':
        (depth === 0 ? reads.rules : reads.memberRules).add(e.rule);
        return;
      case 'param':
        reads.params.add(e.param);
        if (e.key) scalar(e.key, depth);
        return;
      case 'arith':
      case 'days_between':
      case 'date_add_days':
        scalar(e.a, depth);
        scalar(e.b, depth);
        return;
      case 'neg':
      case 'floor':
      case 'ceil':
        scalar(e.a, depth);
        return;
      case 'minmax':
        for (const a of e.args) scalar(a, depth);
        return;
      case 'count':
        relation(e.rel, depth);
        if (e.pred) judgment(e.pred, depth + 1);
        return;
      case 'sum':
        relation(e.rel, depth);
        scalar(e.value, depth + 1);
        if (e.pred) judgment(e.pred, depth + 1);
        return;
      case 'if':
        for (const b of e.branches) {
          judgment(b.cond, depth);
          scalar(b.then, depth);
        }
        scalar(e.otherwise, depth);
        return;
      case 'lit':
      case 'period_start':
      case 'period_end':
      case 'over_periods':
        return;
    }
  };

  const judgment = (e: JudgmentExpr, depth: number): void => {
    switch (e.k) {
      case 'cmp':
        scalar(e.a, depth);
        scalar(e.b, depth);
        return;
      case 'jrule': {
        const on = e.onCurrent ? depth - 1 : depth;
        (on <= 0 ? reads.rules : reads.memberRules).add(e.rule);
        return;
      }
      case 'jinput':
        (depth === 0 ? reads.inputs : reads.memberInputs).add(e.slot);
        return;
      case 'and':
      case 'or':
        judgment(e.a, depth);
        judgment(e.b, depth);
        return;
      case 'not':
        judgment(e.a, depth);
        return;
      case 'member':
        relation(e.rel, depth);
        return;
      case 'exactly_one':
        for (const a of e.args) judgment(a, depth);
        return;
      case 'const':
        return;
    }
  };

  if (isJudgment(expr)) judgment(expr, 0);
  else scalar(expr as ScalarExpr, 0);
  return reads;
}

const JUDGMENT_KINDS = new Set(['const', 'cmp', 'jrule', 'jinput', 'and', 'or', 'not', 'member', 'exactly_one']);

/** Whether an expression is in judgment position (the two languages' node kinds are disjoint). */
export const isJudgment = (e: Expr): e is JudgmentExpr => JUDGMENT_KINDS.has(e.k);
