import type { Value } from '../engine/values.js';
import type { Formula, ParsedModule } from '../1-parse/module.js';

// The lowered program: two small expression languages (scalar and judgment) over rules,
// parameters, inputs and relations referenced by index. This is what the engine evaluates.

export type ArithOp = '+' | '-' | '*' | '/';
export type CmpOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

export type ScalarExpr =
  | { k: 'lit'; v: Value }
  | { k: 'input'; slot: string }
  | { k: 'rule'; rule: number }
  | { k: 'param'; param: number; key: ScalarExpr | null }
  | { k: 'arith'; op: ArithOp; a: ScalarExpr; b: ScalarExpr }
  | { k: 'neg'; a: ScalarExpr }
  | { k: 'minmax'; op: 'max' | 'min'; args: ScalarExpr[] }
  | { k: 'floor' | 'ceil'; a: ScalarExpr }
  | { k: 'period_start' | 'period_end' }
  | { k: 'days_between'; a: ScalarExpr; b: ScalarExpr }
  | { k: 'date_add_days'; a: ScalarExpr; b: ScalarExpr }
  | { k: 'count'; rel: number; pred: JudgmentExpr | null }
  | { k: 'sum'; rel: number; value: ScalarExpr; pred: JudgmentExpr | null }
  | { k: 'if'; branches: { cond: JudgmentExpr; then: ScalarExpr }[]; otherwise: ScalarExpr }
  | { k: 'over_periods'; fn: string };

export type JudgmentExpr =
  | { k: 'const'; holds: boolean }
  | { k: 'cmp'; op: CmpOp; a: ScalarExpr; b: ScalarExpr }
  /** A Judgment rule; `onCurrent` (derived-relation predicates) reads it on the current entity. */
  | { k: 'jrule'; rule: number; onCurrent?: boolean }
  | { k: 'jinput'; slot: string }
  | { k: 'and' | 'or'; a: JudgmentExpr; b: JudgmentExpr }
  | { k: 'not'; a: JudgmentExpr }
  /** Membership of (current, member) in a relation: derived-relation predicates only. */
  | { k: 'member'; rel: number }
  | { k: 'exactly_one'; args: JudgmentExpr[] };

export type Expr = ScalarExpr | JudgmentExpr;

export interface RuleVersion<E> {
  from: number | null; // day number
  to: number | null;
  expr: E;
  formula: Formula;
}

export interface DerivedRule {
  index: number;
  id: string;
  name: string;
  entity: string;
  dtype: string | null;
  judgment: boolean;
  /** Single version without `effective_to`: applies on every date (the reference engine's rule). */
  alwaysApplies: boolean;
  versions: RuleVersion<ScalarExpr | JudgmentExpr>[];
  rounding: { mode: RoundingMode; minorUnits: number } | null;
  /** Set when the rule names a unit no module declares: evaluating it is an error. */
  unitError: string | null;
  origin: ParsedModule;
  ruleDeps: Set<number>;
  paramDeps: Set<number>;
  inputDeps: Set<string>;
  relationDeps: Set<number>;
}

export type RoundingMode = 'half_up' | 'half_even' | 'floor' | 'ceil';

export interface ParameterVersion {
  from: number | null;
  to: number | null;
  cells: Map<number, Value>;
}

export interface Parameter {
  index: number;
  id: string;
  name: string;
  indexedBy: string | null;
  dtype: string | null;
  versions: ParameterVersion[]; // sorted by `from`
  origin: ParsedModule;
}

export interface Relation {
  index: number;
  /** Runtime id: `module#relation.name`, or the bare name of an implicit relation. */
  id: string;
  name: string;
  kind: 'data' | 'derived' | 'implicit';
  arity: number;
  origin: ParsedModule | null;
  derived?: {
    source: number;
    currentSlot: number;
    relatedSlot: number;
    predicate: JudgmentExpr;
    entity?: string;
    memberRelation?: string;
  };
}

export interface Program {
  root: ParsedModule;
  modules: ParsedModule[];
  rules: DerivedRule[];
  parameters: Parameter[];
  relations: Relation[];
  ruleByName: Map<string, number>;
  ruleById: Map<string, number>;
  paramByName: Map<string, number>;
  paramById: Map<string, number>;
  relationById: Map<string, number>;
  /** Every input slot some formula reads (plus table `indexed_by` slots). */
  inputSlots: Set<string>;
}
