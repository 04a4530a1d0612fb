import type { CmpExpr, IfExpr, JudgmentExpr } from '../3-lower/ir.js';
import type { Outcome } from './logic.js';
import type { Value } from '../values.js';

// What the reference interpreter reports while it evaluates, for whoever needs more than values:
// explanations (which figures, inputs and branches a value came from), coverage (which branches,
// dated values and rules the companion cases reach). Events arrive in evaluation order; a rule's
// reads and decisions come between its `enterRule` and `leaveRule`. An error aborts the query,
// so a rule that fails has no `leaveRule`. Values come in the engine's own form, as it computed
// them (converting each would cost more than observing): the interpreter's Values, or the compiled
// engine's (a JS number there is a scaled decimal, see compiled/numbers.ts); the evaluation's
// `json` writes either form as JSON.

/** A value as an engine computes it: a Value (the interpreter), or the compiled engine's Fast value, which is a Value or a scaled-decimal number. */
export type EngineValue = Value | number;

export interface EvaluationObserver {
  /** A rule starts computing for `entity` with version `version` (an index into its versions). */
  enterRule(rule: number, entity: string, version: number): void;
  /** It computed `result` (an EngineValue, or an Outcome for a judgment). */
  leaveRule(rule: number, entity: string, result: EngineValue | Outcome): void;
  /** A rule's value was used (computed just now or remembered). */
  readRule(rule: number, entity: string): void;
  /** An input was read (each time a formula names it). */
  readInput(slot: string, entity: string): void;
  /** Cell `key` of version `version` of a parameter was read. */
  readParameter(param: number, version: number, key: number, value: EngineValue): void;
  /** An `if` took branch `taken` (an index into its branches; `branches.length` is the `else`). */
  branch(node: IfExpr, entity: string, taken: number): void;
  /** A comparison's two sides, before it is decided. */
  compared(node: CmpExpr, entity: string, a: EngineValue, b: EngineValue): void;
  /** A judgment node's outcome (every node, comparisons and connectives alike). */
  judged(node: JudgmentExpr, entity: string, outcome: Outcome): void;
}
