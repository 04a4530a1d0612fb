import type { CmpExpr, IfExpr, JudgmentExpr } from '../../3-lower/ir.js';
import type { Outcome } from '../../engine/logic.js';
import type { EngineValue, EvaluationObserver } from '../../engine/observer.js';

// What one query read and decided, rule by rule: each (rule, entity id) computed once (the
// engine memoises), with the rules, inputs and dated figures it read in the order it read them,
// the branch each of its `if`s took, and the outcome and both sides of each judgment it decided.
// Values stay in the engine's form until the explanation is built (the evaluation's `json`
// writes them). Decisions are kept for the rule's own entity id; those made for related members
// inside a `count_where`/`sum_where` show up as the members' own reads.

export type Read = { kind: 'rule'; rule: number; entity: string } | { kind: 'input'; slot: string; entity: string };

export interface FigureRead {
  param: number;
  version: number;
  key: number;
  value: EngineValue;
}

export interface Frame {
  rule: number;
  entity: string;
  version: number;
  result: EngineValue | Outcome | undefined;
  reads: Read[];
  figures: FigureRead[];
  branches: Map<IfExpr, number>;
  outcomes: Map<JudgmentExpr, Outcome>;
  sides: Map<CmpExpr, [EngineValue, EngineValue]>;
  /** Comparisons in the order decided. */
  comparisons: CmpExpr[];
  /** The explanation's node for this frame, once built (explanation.ts keeps it here, not in a map keyed by frame). */
  node: unknown;
}

// Most rules decide nothing and read a few things: one shared empty container each until a frame
// records its first (frames are made for every rule evaluated, so this keeps recording cheap).
const NONE_BRANCHES: Map<IfExpr, number> = new Map();
const NONE_OUTCOMES: Map<JudgmentExpr, Outcome> = new Map();
const NONE_SIDES: Map<CmpExpr, [EngineValue, EngineValue]> = new Map();
const NONE_FIGURES: FigureRead[] = [];
const NONE_COMPARISONS: CmpExpr[] = [];


export class QueryRecord implements EvaluationObserver {
  /** Frames by rule index, then entity id. */
  private readonly frames: (Map<string, Frame> | undefined)[] = [];
  /** Figures read outside any rule (a parameter requested as an output). */
  readonly topFigures: FigureRead[] = [];
  private readonly stack: Frame[] = [];
  private top: Frame | undefined;

  enterRule(rule: number, entity: string, version: number): void {
    const frame: Frame = { rule, entity, version, result: undefined, reads: [], figures: NONE_FIGURES, branches: NONE_BRANCHES, outcomes: NONE_OUTCOMES, sides: NONE_SIDES, comparisons: NONE_COMPARISONS, node: undefined };
    (this.frames[rule] ??= new Map()).set(entity, frame);
    this.stack.push(frame);
    this.top = frame;
  }

  frame(rule: number, entity: string): Frame | undefined {
    return this.frames[rule]?.get(entity);
  }

  /** Every frame recorded (every rule computed for an entity id). */
  *allFrames(): Generator<Frame> {
    for (const byEntity of this.frames) if (byEntity) yield* byEntity.values();
  }

  leaveRule(_rule: number, _entity: string, result: EngineValue | Outcome): void {
    this.stack.pop()!.result = result;
    this.top = this.stack[this.stack.length - 1];
  }

  // a rule reads few things: a linear look for a repeat is cheaper than a set of keys
  readRule(rule: number, entity: string): void {
    const reads = this.top?.reads;
    if (!reads) return;
    for (const r of reads) if (r.kind === 'rule' && r.rule === rule && r.entity === entity) return;
    reads.push({ kind: 'rule', rule, entity });
  }

  readInput(slot: string, entity: string): void {
    const reads = this.top?.reads;
    if (!reads) return;
    for (const r of reads) if (r.kind === 'input' && r.slot === slot && r.entity === entity) return;
    reads.push({ kind: 'input', slot, entity });
  }

  readParameter(param: number, version: number, key: number, value: EngineValue): void {
    const top = this.top;
    if (top && top.figures === NONE_FIGURES) top.figures = [];
    const figures = top?.figures ?? this.topFigures;
    if (!figures.some((f) => f.param === param && f.version === version && f.key === key)) figures.push({ param, version, key, value });
  }

  branch(node: IfExpr, entity: string, taken: number): void {
    const top = this.top;
    if (!top || entity !== top.entity) return;
    if (top.branches === NONE_BRANCHES) top.branches = new Map();
    top.branches.set(node, taken);
  }

  compared(node: CmpExpr, entity: string, a: EngineValue, b: EngineValue): void {
    const top = this.top;
    if (!top || entity !== top.entity || top.sides.has(node)) return;
    if (top.sides === NONE_SIDES) {
      top.sides = new Map();
      top.comparisons = [];
    }
    top.sides.set(node, [a, b]);
    top.comparisons.push(node);
  }

  judged(node: JudgmentExpr, entity: string, outcome: Outcome): void {
    const top = this.top;
    if (!top || entity !== top.entity) return;
    if (top.outcomes === NONE_OUTCOMES) top.outcomes = new Map();
    top.outcomes.set(node, outcome);
  }
}
