import type { Value } from '../values.js';
import type { Formula, ParsedModule, RuleDecl, VersionDecl } from '../1-parse/module.js';

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
  | IfExpr
  | { k: 'over_periods'; fn: string };

export type IfExpr = { k: 'if'; branches: { cond: JudgmentExpr; then: ScalarExpr }[]; otherwise: ScalarExpr };
export type CmpExpr = { k: 'cmp'; op: CmpOp; a: ScalarExpr; b: ScalarExpr };

export type JudgmentExpr =
  | { k: 'const'; holds: boolean }
  | CmpExpr
  /** A Judgment rule; `onCurrent` (derived-relation predicates) reads it on the current entity. */
  | { k: 'jrule'; rule: number; onCurrent?: boolean }
  | { k: 'jinput'; slot: string }
  | { k: 'and' | 'or'; a: JudgmentExpr; b: JudgmentExpr }
  | { k: 'not'; a: JudgmentExpr }
  /** Membership of (current, member) in a relation: derived-relation predicates only. */
  | { k: 'member'; rel: number }
  | { k: 'exactly_one'; args: JudgmentExpr[] };

export type Expr = ScalarExpr | JudgmentExpr;

export interface ExecVersion<E = ScalarExpr | JudgmentExpr> {
  from: number | null; // day number
  to: number | null;
  expr: E;
}

export type RoundingMode = 'half_up' | 'half_even' | 'floor' | 'ceil';

/** What the engine needs of a derived rule; this is what a runtime package stores. */
export interface ExecRule {
  index: number;
  id: string;
  name: string;
  entity: string;
  dtype: string | null;
  judgment: boolean;
  /** Single version without `effective_to`: applies on every date (the reference engine's rule). */
  alwaysApplies: boolean;
  versions: ExecVersion[];
  rounding: { mode: RoundingMode; minorUnits: number } | null;
  /** Set when the rule names a unit no module declares: evaluating it is an error. */
  unitError: string | null;
}

export interface ParameterVersion {
  from: number | null;
  to: number | null;
  cells: Map<number, Value>;
}

export interface ExecParameter {
  index: number;
  id: string;
  name: string;
  indexedBy: string | null;
  dtype: string | null;
  versions: ParameterVersion[]; // sorted by `from`
}

export interface Relation {
  index: number;
  /** Runtime id: `module#relation.name`, or the bare name of an implicit relation. */
  id: string;
  name: string;
  kind: 'data' | 'derived' | 'implicit';
  arity: number;
  /** Target of the declaring module (null for an implicit relation). */
  origin: string | null;
  /** Entity label of each slot, when declared. */
  arguments: string[];
  derived?: {
    source: number;
    currentSlot: number;
    relatedSlot: number;
    predicate: JudgmentExpr;
    entity?: string;
    memberRelation?: string;
  };
}

/** A program the engine can evaluate. */
export interface Executable {
  rules: ExecRule[];
  parameters: ExecParameter[];
  relations: Relation[];
  ruleByName: Map<string, number>;
  ruleById: Map<string, number>;
  paramByName: Map<string, number>;
  paramById: Map<string, number>;
  relationById: Map<string, number>;
  /** Every input slot some formula reads (plus table `indexed_by` slots). */
  inputSlots: Set<string>;
}

// ---- compile-time program: the executable plus where everything came from ----------------

export interface RuleVersion extends ExecVersion {
  formula: Formula;
  /** The module whose formula this is (differs from the rule's origin under a `sets` binding). */
  formulaModule: ParsedModule;
}

export interface DerivedRule extends ExecRule {
  versions: RuleVersion[];
  origin: ParsedModule;
  decl: RuleDecl;
  ruleDeps: Set<number>;
  paramDeps: Set<number>;
  inputDeps: Set<string>;
  relationDeps: Set<number>;
}

export interface Parameter extends ExecParameter {
  origin: ParsedModule;
  decl: RuleDecl;
  /** The declaration of each version, as `versions` orders them (under a `sets` binding, the bound value's). */
  versionDecls: VersionDecl[];
}

/** How formulas use an input: decides its dtype and default in runtime packages. */
export type InputUse = 'condition' | 'number' | 'integer' | 'text' | 'date' | 'value';

export interface InputInfo {
  entities: Set<string>;
  uses: Set<InputUse>;
  /** Modules whose formulas read the input. */
  readers: Set<ParsedModule>;
  /** Text literals formulas compare it with (its likely values). */
  literals: Set<string>;
}

export interface Program extends Executable {
  root: ParsedModule;
  modules: ParsedModule[];
  rules: DerivedRule[];
  parameters: Parameter[];
  inputs: Map<string, InputInfo>;
}
