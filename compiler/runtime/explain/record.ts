import type { CmpExpr, IfExpr, JudgmentExpr } from '../../3-lower/ir.js';
import type { Outcome } from '../../engine/logic.js';
import type { EngineValue, EvaluationObserver } from '../../engine/observer.js';

// What one query read and decided, rule by rule: each (rule, entity id) computed once (the
// engine memoises), with the rules, inputs and dated figures it read in the order it read them,
// the branch each of its `if`s took, and the outcome and both sides of each judgment it decided.
// Values stay in the engine's form until the explanation is built (the evaluation's `json`
// writes them). Decisions are kept for the rule's own entity id; those made for related members
// inside a `count_where`/`sum_where` show up as the members' own reads.

// Most rules decide nothing and read a few things: one shared empty container each until a frame
// records its first (frames are made for every rule evaluated, so this keeps recording cheap).
const NONE_BRANCHES: (IfExpr | number)[] = [];
const NONE_JUDGMENTS: (JudgmentExpr | Outcome)[] = [];
const NONE_SIDES: EngineValue[] = [];
const NONE_FIGURES: FigureRead[] = [];
const NONE_COMPARISONS: CmpExpr[] = [];

/** An input a rule read. */
export interface InputRead {
  kind: 'input';
  slot: string;
  entity: string;
}

/** What a rule read: another rule (the frame that computed it) or an input. */
export type Read = Frame | InputRead;

export interface FigureRead {
  param: number;
  version: number;
  key: number;
  value: EngineValue;
}

/** One rule computed for one entity id. A class: every frame has the same shape, which keeps recording and building monomorphic. */
export class Frame {
  readonly kind = 'rule';
  result: EngineValue | Outcome | undefined = undefined;
  /** In the order first read; a rule read is its frame itself (no lookup when the tree is built). */
  readonly reads: Read[] = [];
  figures: FigureRead[] = NONE_FIGURES;
  /** Each `if` evaluated, in the order first evaluated, and the branch it took (the last time): node, branch, node, branch… */
  branches: (IfExpr | number)[] = NONE_BRANCHES;
  /** Each judgment node's outcome, as decided: node, outcome, node, outcome… (flat arrays, not a map: a frame decides a few, and most none). */
  judgments: (JudgmentExpr | Outcome)[] = NONE_JUDGMENTS;
  /** Comparisons in the order decided, each once, and their sides: `sides[2i]`, `sides[2i + 1]` are comparison i's. */
  comparisons: CmpExpr[] = NONE_COMPARISONS;
  sides: EngineValue[] = NONE_SIDES;
  /** The explanation's node for this frame, once built (explanation.ts keeps it here, not in a map keyed by frame). */
  node: unknown = undefined;
  /** The same rule's frame for the next entity id computed (a rule is usually computed for one). */
  next: Frame | undefined = undefined;

  constructor(
    readonly rule: number,
    readonly entity: string,
    readonly version: number,
  ) {}

  /** The branch an `if` took, or undefined if it was never evaluated. */
  taken(node: IfExpr): number | undefined {
    const b = this.branches;
    for (let i = 0; i < b.length; i += 2) if (b[i] === node) return b[i + 1] as number;
    return undefined;
  }

  /** A judgment node's outcome (the last decided), or undefined if it was never evaluated. */
  outcome(node: JudgmentExpr): Outcome | undefined {
    const j = this.judgments;
    for (let i = j.length - 2; i >= 0; i -= 2) if (j[i] === node) return j[i + 1] as Outcome;
    return undefined;
  }
}

export class QueryRecord implements EvaluationObserver {
  /** Frames by rule index: the first entity id's, then the others' through `next`. */
  private readonly frames: (Frame | undefined)[] = [];
  /** Figures read outside any rule (a parameter requested as an output). */
  readonly topFigures: FigureRead[] = [];
  private readonly stack: Frame[] = [];
  private top: Frame | undefined;

  enterRule(rule: number, entity: string, version: number): void {
    const frame = new Frame(rule, entity, version);
    let last = this.frames[rule];
    if (!last) this.frames[rule] = frame;
    else {
      while (last.next) last = last.next;
      last.next = frame;
    }
    this.stack.push(frame);
    this.top = frame;
  }

  frame(rule: number, entity: string): Frame | undefined {
    for (let frame = this.frames[rule]; frame; frame = frame.next) if (frame.entity === entity) return frame;
    return undefined;
  }

  /** Every frame recorded (every rule computed for an entity id). */
  *allFrames(): Generator<Frame> {
    for (let frame of this.frames) for (; frame; frame = frame.next) yield frame;
  }

  leaveRule(_rule: number, _entity: string, result: EngineValue | Outcome): void {
    this.stack.pop()!.result = result;
    this.top = this.stack[this.stack.length - 1];
  }

  // a rule reads few things: a linear look for a repeat is cheaper than a set of keys
  readRule(rule: number, entity: string): void {
    const reads = this.top?.reads;
    if (!reads) return;
    const frame = this.frame(rule, entity);
    // the engine reads a rule's value only once it is computed, and this record saw it computed
    if (!frame) throw new Error(`rule ${rule} read for ${entity} before it was computed`);
    for (const r of reads) if (r === frame) return;
    reads.push(frame);
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
    for (const f of figures) if (f.param === param && f.version === version && f.key === key) return;
    figures.push({ param, version, key, value });
  }

  branch(node: IfExpr, entity: string, taken: number): void {
    const top = this.top;
    if (!top || entity !== top.entity) return;
    if (top.branches === NONE_BRANCHES) top.branches = [];
    const at = top.branches.indexOf(node);
    if (at >= 0) top.branches[at + 1] = taken;
    else top.branches.push(node, taken);
  }

  compared(node: CmpExpr, entity: string, a: EngineValue, b: EngineValue): void {
    const top = this.top;
    if (!top || entity !== top.entity) return;
    if (top.comparisons === NONE_COMPARISONS) {
      top.comparisons = [];
      top.sides = [];
    } else if (top.comparisons.includes(node)) return; // the first time decided is kept
    top.comparisons.push(node);
    top.sides.push(a, b);
  }

  judged(node: JudgmentExpr, entity: string, outcome: Outcome): void {
    const top = this.top;
    if (!top || entity !== top.entity) return;
    if (top.judgments === NONE_JUDGMENTS) top.judgments = [];
    top.judgments.push(node, outcome);
  }
}
