import type { CmpExpr, IfExpr, JudgmentExpr } from '../../3-lower/ir.js';
import type { Outcome } from '../../engine/logic.js';
import type { EvaluationObserver } from '../../engine/observer.js';
import type { Value } from '../../values.js';

// What one query read and decided, rule by rule: each (rule, entity id) computed once (the
// engine memoises), with the rules, inputs and dated figures it read in the order it read them,
// the branch each of its `if`s took, and the outcome and both sides of each judgment it decided.
// Decisions are kept for the rule's own entity id; those made for related members inside a
// `count_where`/`sum_where` show up as the members' own reads.

export type Read = { kind: 'rule'; rule: number; entity: string } | { kind: 'input'; slot: string; entity: string };

export interface FigureRead {
  param: number;
  version: number;
  key: number;
  value: Value;
}

export interface Frame {
  rule: number;
  entity: string;
  version: number;
  result: Value | Outcome | undefined;
  reads: Read[];
  figures: FigureRead[];
  branches: Map<IfExpr, number>;
  outcomes: Map<JudgmentExpr, Outcome>;
  sides: Map<CmpExpr, [Value, Value]>;
  /** Comparisons in the order decided. */
  comparisons: CmpExpr[];
}

export const frameKey = (rule: number, entity: string) => `${rule}\u0000${entity}`;

export class QueryRecord implements EvaluationObserver {
  readonly frames = new Map<string, Frame>();
  /** Figures read outside any rule (a parameter requested as an output). */
  readonly topFigures: FigureRead[] = [];
  private readonly stack: Frame[] = [];
  private readonly seen: Set<string>[] = [];

  private get top(): Frame | undefined {
    return this.stack[this.stack.length - 1];
  }

  enterRule(rule: number, entity: string, version: number): void {
    const frame: Frame = { rule, entity, version, result: undefined, reads: [], figures: [], branches: new Map(), outcomes: new Map(), sides: new Map(), comparisons: [] };
    this.frames.set(frameKey(rule, entity), frame);
    this.stack.push(frame);
    this.seen.push(new Set());
  }

  leaveRule(_rule: number, _entity: string, result: Value | Outcome): void {
    this.stack.pop()!.result = result;
    this.seen.pop();
  }

  private once(key: string): boolean {
    const seen = this.seen[this.seen.length - 1];
    if (!seen || seen.has(key)) return false;
    seen.add(key);
    return true;
  }

  readRule(rule: number, entity: string): void {
    if (this.once(`r${rule}\u0000${entity}`)) this.top!.reads.push({ kind: 'rule', rule, entity });
  }

  readInput(slot: string, entity: string): void {
    if (this.once(`i${slot}\u0000${entity}`)) this.top!.reads.push({ kind: 'input', slot, entity });
  }

  readParameter(param: number, version: number, key: number, value: Value): void {
    const figure = { param, version, key, value };
    if (!this.top) this.topFigures.push(figure);
    else if (this.once(`p${param}\u0000${version}\u0000${key}`)) this.top.figures.push(figure);
  }

  branch(node: IfExpr, entity: string, taken: number): void {
    const top = this.top;
    if (top && entity === top.entity) top.branches.set(node, taken);
  }

  compared(node: CmpExpr, entity: string, a: Value, b: Value): void {
    const top = this.top;
    if (top && entity === top.entity && !top.sides.has(node)) {
      top.sides.set(node, [a, b]);
      top.comparisons.push(node);
    }
  }

  judged(node: JudgmentExpr, entity: string, outcome: Outcome): void {
    const top = this.top;
    if (top && entity === top.entity) top.outcomes.set(node, outcome);
  }
}
