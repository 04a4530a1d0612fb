import type { CmpExpr, CmpOp, ExecParameter, IfExpr, JudgmentExpr, ScalarExpr } from '../../3-lower/ir.js';
import { expressionText } from '../../engine/expression-text.js';
import { HOLDS, type Outcome, outcomeJson } from '../../engine/logic.js';
import type { EngineValue } from '../../engine/observer.js';
import { Day, toJson } from '../../values.js';
import type { LoadedPackage } from '../loaded-package.js';
import type { PreparedHousehold } from '../household.js';
import type { FigureRead, Frame, QueryRecord } from './record.js';

// An answer's explanation: for each requested output, the tree of what it was computed from for
// this household (rules with their formula in force, the dated figures they read, the branches
// they took and the comparisons they decided; inputs given or assumed), and, for an output that
// came out false or zero, the tests that decided it. The shape is ExplanationSchema
// (server/schemas.ts), versioned by `explanation_version`.

export const EXPLANATION_VERSION = 1;

export interface InForce {
  from: string | null;
  to: string | null;
}

export interface Figure {
  name: string;
  legal_id: string;
  /** The table row read (its `indexed_by` value); null for a single value. */
  key: number | null;
  value: unknown;
  in_force: InForce;
  citation: string[];
}

export interface Side {
  expression: string;
  value: unknown;
}

export interface Comparison {
  test: string;
  left: Side;
  op: CmpOp;
  right: Side;
  holds: boolean | null;
}

export interface BranchTaken {
  /** The condition that held (`else` when none did). */
  condition: string;
  /** Its position among the `if`'s arms (the `else` is the last). */
  branch: number;
}

export interface RuleNode {
  kind: 'rule';
  name: string;
  legal_id: string;
  entity: string;
  entity_id: string;
  value: unknown;
  formula: string;
  in_force: InForce;
  citation: string[];
  figures: Figure[];
  branches: BranchTaken[];
  comparisons: Comparison[];
  children: ExplanationNode[];
}

export interface InputNode {
  kind: 'input';
  name: string;
  legal_id: string | null;
  entity: string;
  entity_id: string;
  value: unknown;
  status: 'given' | 'assumed';
  /** Where the household gave it (given), or why it was assumed. */
  field?: string;
  reason?: 'not_given' | 'null';
  /** The sources of the rule that reads it. */
  citation: string[];
}

export interface ParameterNode extends Omit<Figure, 'key'> {
  kind: 'parameter';
  key: number | null;
  children: InputNode[];
}

export type ExplanationNode = RuleNode | InputNode | ParameterNode;

export interface DecidingTest {
  rule: string;
  name: string;
  entity_id: string;
  /** The test as the formula states it. */
  test: string;
  holds: boolean | null;
  comparison?: Comparison;
  /** A condition that is an input (true or false as given or assumed). */
  input?: { name: string; value: unknown; status: 'given' | 'assumed' };
  citation: string[];
  /** The test in words, with both values and the citation. */
  text: string;
}

export interface ExplainedOutput {
  output: string;
  entity: string;
  entity_id: string;
  value: unknown;
  node: ExplanationNode;
  /** For a value that is false, zero or undetermined: the tests that made it so. */
  deciding?: DecidingTest[];
}

export interface Explanation {
  explanation_version: typeof EXPLANATION_VERSION;
  period: string;
  outputs: ExplainedOutput[];
}

export type ExplainTarget = { output: string } & ({ kind: 'rule'; index: number; ids: string[] } | { kind: 'param'; index: number; key: number });

const day = (n: number | null) => (n === null ? null : new Day(n).toString());
const ALWAYS: InForce = { from: null, to: null };
/** The dates of each version, written once (versions belong to a package, which does not change). */
const inForceOf = new WeakMap<{ from: number | null; to: number | null }, InForce>();
function inForce(version: { from: number | null; to: number | null }): InForce {
  let dates = inForceOf.get(version);
  if (!dates) inForceOf.set(version, (dates = { from: day(version.from), to: day(version.to) }));
  return dates;
}
/** What a rule's node says whatever the household, written once per package (a package does not change). */
interface RuleText {
  name: string;
  legal_id: string;
  entity: string;
  judgment: boolean;
  citation: string[];
  /** By version: the formula, and the dates it is in force. */
  formulas: string[];
  inForce: InForce[];
}

/** What a figure's entry says whatever the household, per version of its parameter. */
interface FigureText {
  name: string;
  legal_id: string;
  indexed: boolean;
  in_force: InForce;
  citation: string[];
}

/** A comparison's test and sides as the formula writes them. */
interface ComparisonText {
  test: string;
  left: string;
  right: string;
}

/** An input's entity and legal id, the same for every entity id that reads it. */
interface InputText {
  entity: string;
  legal_id: string | null;
}

/** Per package: rule texts by rule index, figure texts by parameter index then version, input texts by name (null: see inputText). */
const textsOf = new WeakMap<LoadedPackage, { rules: (RuleText | undefined)[]; figures: (FigureText[] | undefined)[]; inputs: Map<string, InputText | null> }>();
const comparisonTexts = new WeakMap<CmpExpr, ComparisonText>();

/** A value the engine computed, as JSON (the evaluation's `json`: each engine writes its own form). */
export type EngineJson = (value: EngineValue | Outcome, judgment: boolean) => unknown;

/** Words for a comparison, as it came out: `a <= b` that does not hold reads "a exceeds b". */
const RELATION: Record<CmpOp, [holds: string, fails: string]> = {
  '<': ['is below', 'is not below'],
  '<=': ['is at most', 'exceeds'],
  '>': ['exceeds', 'is at most'],
  '>=': ['is at least', 'is below'],
  '==': ['equals', 'differs from'],
  '!=': ['differs from', 'equals'],
};

/** Whether an output's value has `deciding`: false, zero or undetermined. */
const decided = (value: unknown): boolean => value === false || value === 0 || value === null;

export function buildExplanation(loaded: LoadedPackage, record: QueryRecord, prepared: PreparedHousehold, targets: ExplainTarget[], json: EngineJson): Explanation {
  return new ExplanationBuilder(loaded, record, prepared, json).build(targets);
}

class ExplanationBuilder {
  /** Deciding tests made: frame, test, the DecidingTest, frame, test… (a household's outputs have a few; a flat list, no maps). */
  private readonly tests: (Frame | CmpExpr | string | DecidingTest)[] = [];
  readonly exec;
  private readonly texts;

  constructor(
    private readonly loaded: LoadedPackage,
    private readonly record: QueryRecord,
    private readonly prepared: PreparedHousehold,
    private readonly json: EngineJson,
  ) {
    this.exec = loaded.executable;
    let texts = textsOf.get(loaded);
    if (!texts) textsOf.set(loaded, (texts = { rules: [], figures: [], inputs: new Map() }));
    this.texts = texts;
  }

  /** A rule's texts, written at its first explanation. */
  private ruleText(index: number): RuleText {
    let text = this.texts.rules[index];
    if (!text) {
      const rule = this.exec.rules[index];
      this.texts.rules[index] = text = {
        name: rule.name,
        legal_id: rule.id,
        entity: rule.entity,
        judgment: rule.judgment,
        citation: this.citation(index),
        formulas: rule.versions.map((v) => expressionText(v.expr, this.exec)),
        inForce: rule.versions.map((v) => (rule.alwaysApplies ? ALWAYS : inForce(v))),
      };
    }
    return text;
  }

  private figureText(param: number, version: number): FigureText {
    let byVersion = this.texts.figures[param];
    if (!byVersion) {
      const p: ExecParameter = this.exec.parameters[param];
      const citation = this.parameterCitation(param);
      this.texts.figures[param] = byVersion = p.versions.map((v) => ({ name: p.name, legal_id: p.id, indexed: Boolean(p.indexedBy), in_force: inForce(v), citation }));
    }
    return byVersion[version];
  }

  /**
   * An input's entity and legal id when no entity id can change them: its name is an input of one
   * entity of the package (every id reads it as that entity's: PreparedHousehold.entityOf finds it
   * among the id's entities, or falls back to it) or of none (the main entity's); null when several
   * entities have an input of that name, and which one is the id's to say.
   */
  private inputText(slot: string): InputText | null {
    let text = this.texts.inputs.get(slot);
    if (text === undefined) {
      const { pkg } = this.loaded;
      const owners = pkg.entities.filter((e) => e.inputs.some((i) => i.name === slot));
      const entity = owners.length === 0 ? pkg.main_entity : owners.length === 1 ? owners[0].entity : undefined;
      text = entity === undefined ? null : { entity, legal_id: this.loaded.resolveInput(entity, slot)?.legal_id ?? null };
      this.texts.inputs.set(slot, text);
    }
    return text;
  }

  private comparisonText(node: CmpExpr): ComparisonText {
    let text = comparisonTexts.get(node);
    if (!text) comparisonTexts.set(node, (text = { test: expressionText(node, this.exec), left: expressionText(node.a, this.exec), right: expressionText(node.b, this.exec) }));
    return text;
  }

  build(targets: ExplainTarget[]): Explanation {
    const outputs: ExplainedOutput[] = [];
    for (const target of targets) {
      if (target.kind === 'param') {
        const node = this.parameterNode(target.index, target.key);
        const output: ExplainedOutput = { output: target.output, entity: this.loaded.pkg.main_entity, entity_id: this.prepared.mainId, value: node.value, node };
        if (decided(node.value)) output.deciding = [];
        outputs.push(output);
        continue;
      }
      for (const id of target.ids) {
        const node = this.ruleNode(this.frame(target.index, id));
        const output: ExplainedOutput = { output: target.output, entity: node.entity, entity_id: id, value: node.value, node };
        if (decided(node.value)) output.deciding = new Deciding(this, this.record).forRule(target.index, id);
        outputs.push(output);
      }
    }
    return { explanation_version: EXPLANATION_VERSION, period: this.prepared.periodLabel, outputs };
  }

  frame(rule: number, entity: string): Frame {
    const frame = this.record.frame(rule, entity);
    if (!frame) throw new Error(`no record of rule ${this.exec.rules[rule].name} for ${entity}`);
    return frame;
  }

  citation(rule: number): string[] {
    return this.loaded.pkg.rule_info[rule]?.sources ?? [];
  }

  /** A rule's node, built once per (rule, entity id): an output that several rules read appears under each, the same. */
  ruleNode(frame: Frame): RuleNode {
    if (frame.node) return frame.node as RuleNode;
    const text = this.ruleText(frame.rule);
    const citation = text.citation;
    const node: RuleNode = {
      kind: 'rule',
      name: text.name,
      legal_id: text.legal_id,
      entity: text.entity,
      entity_id: frame.entity,
      value: this.json(frame.result!, text.judgment),
      formula: text.formulas[frame.version],
      in_force: text.inForce[frame.version],
      citation,
      // map() sizes each array once; an empty one needs no closure
      figures: frame.figures.length ? frame.figures.map((f) => this.figure(f)) : [],
      branches: this.branches(frame),
      comparisons: frame.comparisons.length ? frame.comparisons.map((c, i) => this.comparison(frame, c, i)) : [],
      children: frame.reads.map((read) => (read.kind === 'rule' ? this.ruleNode(read) : this.inputNode(read.slot, read.entity, citation))),
    };
    frame.node = node;
    return node;
  }

  private branches(frame: Frame): BranchTaken[] {
    const taken: BranchTaken[] = [];
    const b = frame.branches;
    for (let i = 0; i < b.length; i += 2) {
      const node = b[i] as IfExpr;
      const branch = b[i + 1] as number;
      taken.push({ condition: branch < node.branches.length ? expressionText(node.branches[branch].cond, this.exec) : 'else', branch });
    }
    return taken;
  }

  /** An input's node under a rule that reads it, with that rule's citation (a household's (input, entity id) pairs are nearly all read by one rule each, so nothing is kept between nodes). */
  inputNode(slot: string, entity: string, citation: string[]): InputNode {
    const { prepared } = this;
    const origin = prepared.origin(slot, entity);
    const known = this.inputText(slot);
    const label = known ? known.entity : prepared.entityOf(slot, entity);
    const legal_id = known ? known.legal_id : (this.loaded.resolveInput(label, slot)?.legal_id ?? null);
    // a given input's value is in its origin; a default is the dataset's
    const raw = origin.given ? origin.value : prepared.dataset.inputRaw(slot, entity, prepared.period);
    // a number the household gave is its own JSON (toJson of its Decimal gives it back; not -0)
    const value = raw === undefined ? null : typeof raw === 'number' ? raw + 0 : toJson(raw);
    if (origin.given) return { kind: 'input', name: slot, legal_id, entity: label, entity_id: entity, value, status: 'given', field: origin.field, citation };
    const { reason, field } = origin;
    return field === undefined ? { kind: 'input', name: slot, legal_id, entity: label, entity_id: entity, value, status: 'assumed', reason, citation } : { kind: 'input', name: slot, legal_id, entity: label, entity_id: entity, value, status: 'assumed', reason, field, citation };
  }

  private parameterCitation(param: number): string[] {
    return this.loaded.pkg.parameter_info?.[param]?.sources ?? [];
  }

  figure({ param, version, key, value }: FigureRead): Figure {
    const text = this.figureText(param, version);
    return { name: text.name, legal_id: text.legal_id, key: text.indexed ? key : null, value: this.json(value, false), in_force: text.in_force, citation: text.citation };
  }

  private parameterNode(index: number, key: number): ParameterNode {
    const read = this.record.topFigures.find((f) => f.param === index && f.key === key)!;
    const { name, legal_id, value, in_force, citation } = this.figure(read);
    const p = this.exec.parameters[index];
    const children = p.indexedBy ? [this.inputNode(p.indexedBy, this.prepared.mainId, citation)] : [];
    return { kind: 'parameter', name, legal_id, key: p.indexedBy ? key : null, value, in_force, citation, children };
  }

  /** A deciding test, made once per rule frame and test: several outputs are often decided by the same tests. */
  decidingTest(frame: Frame, test: CmpExpr | string, make: () => DecidingTest): DecidingTest {
    const tests = this.tests;
    for (let i = 0; i < tests.length; i += 3) if (tests[i] === frame && tests[i + 1] === test) return tests[i + 2] as DecidingTest;
    const made = make();
    tests.push(frame, test, made);
    return made;
  }

  /** Comparison `i` of `frame` (`node`). */
  comparison(frame: Frame, node: CmpExpr, i: number): Comparison {
    const a = frame.sides[2 * i];
    const b = frame.sides[2 * i + 1];
    const outcome = frame.outcome(node);
    const text = this.comparisonText(node);
    return {
      test: text.test,
      left: { expression: text.left, value: this.json(a, false) },
      op: node.op,
      right: { expression: text.right, value: this.json(b, false) },
      holds: outcome === undefined ? null : outcomeJson(outcome),
    };
  }
}

/**
 * Why a judgment came out as it did, or a value came out zero: from the output down through the
 * conditions that decided it to the comparisons and condition inputs at the bottom. A false
 * conjunction is decided by its false operands, a false disjunction by all of them, a `not` by
 * its operand the other way round; a value of zero by the conditions of the `if` arm it took.
 */
class Deciding {
  private readonly tests: DecidingTest[] = [];
  /** Frames walked for why they held, and for why they failed (a few each: lists, not sets). */
  private readonly held: Frame[] = [];
  private readonly failed: Frame[] = [];

  constructor(
    private readonly builder: ExplanationBuilder,
    private readonly record: QueryRecord,
  ) {}

  forRule(index: number, entity: string): DecidingTest[] {
    this.rule(index, entity, false);
    return this.tests;
  }

  /** Why rule `index` for `entity` holds (`wanted` true) or fails / is zero (false). */
  private rule(index: number, entity: string, wanted: boolean): void {
    const frame = this.record.frame(index, entity);
    const visited = wanted ? this.held : this.failed;
    if (!frame || visited.includes(frame)) return;
    visited.push(frame);
    const expr = this.builder.exec.rules[index].versions[frame.version].expr;
    if (this.builder.exec.rules[index].judgment) this.judgment(frame, expr as JudgmentExpr, wanted);
    else if (!wanted) this.zero(frame, expr as ScalarExpr);
  }

  /** A scalar that came out zero: the conditions of the `if` arm it took, and rules it passed through. */
  private zero(frame: Frame, e: ScalarExpr): void {
    if (e.k === 'rule') this.rule(e.rule, frame.entity, false);
    else if (e.k === 'if') {
      const taken = frame.taken(e);
      if (taken === undefined) return;
      if (taken < e.branches.length) this.judgment(frame, e.branches[taken].cond, true);
      else for (const b of e.branches) this.judgment(frame, b.cond, false);
      this.zero(frame, taken < e.branches.length ? e.branches[taken].then : e.otherwise);
    }
  }

  /** Why a judgment node of `frame` came out `wanted` (true: held; false: did not hold). */
  private judgment(frame: Frame, e: JudgmentExpr, wanted: boolean): void {
    const outcome = frame.outcome(e);
    if (outcome === undefined) return; // never evaluated (short-circuited)
    switch (e.k) {
      case 'cmp':
        if (matches(outcome, wanted)) this.comparisonTest(frame, e);
        return;
      case 'jrule':
        this.rule(e.rule, frame.entity, wanted); // a rule's own judgments are read on its entity (onCurrent only differs in relation predicates)
        return;
      case 'jinput':
        if (matches(outcome, wanted)) this.inputTest(frame, e.slot);
        return;
      case 'not':
        this.judgment(frame, e.a, !wanted);
        return;
      case 'and':
      case 'or': {
        // a conjunction fails by each operand that failed, holds by both; a disjunction the other way round
        const decidedByEach = (e.k === 'and') !== wanted;
        this.operand(frame, e.a, wanted, decidedByEach);
        this.operand(frame, e.b, wanted, decidedByEach);
        return;
      }
      default:
        return;
    }
  }

  /** An operand of a connective: walked if it alone decided (`decidedByEach`) and came out `wanted`, or if both did and it was evaluated. */
  private operand(frame: Frame, operand: JudgmentExpr, wanted: boolean, decidedByEach: boolean): void {
    const o = frame.outcome(operand);
    if (decidedByEach ? matches(o, wanted) : o !== undefined) this.judgment(frame, operand, wanted);
  }

  /** A deciding test of `frame`'s rule (an object literal, not a spread: explanations make many). */
  private test(frame: Frame, test: string, holds: boolean | null, text: (name: string, cited: string) => string, detail: Pick<DecidingTest, 'comparison' | 'input'>): DecidingTest {
    const rule = this.builder.exec.rules[frame.rule];
    const citation = this.builder.citation(frame.rule);
    const t = text(rule.name, citation.length ? ` (${citation[0]})` : '');
    return detail.comparison ? { rule: rule.id, name: rule.name, entity_id: frame.entity, test, holds, comparison: detail.comparison, citation, text: t } : { rule: rule.id, name: rule.name, entity_id: frame.entity, test, holds, input: detail.input, citation, text: t };
  }

  private comparisonTest(frame: Frame, e: CmpExpr): void {
    this.tests.push(this.builder.decidingTest(frame, e, () => this.comparisonTestOf(frame, e)));
  }

  private inputTest(frame: Frame, slot: string): void {
    this.tests.push(this.builder.decidingTest(frame, slot, () => this.inputTestOf(frame, slot)));
  }

  private comparisonTestOf(frame: Frame, e: CmpExpr): DecidingTest {
    // the rule's node (built already) holds this comparison
    const comparison = this.builder.ruleNode(frame).comparisons[frame.comparisons.indexOf(e)];
    const words = RELATION[e.op][comparison.holds ? 0 : 1];
    const text = (name: string, cited: string) => `${sideText(comparison.left)} ${words} ${sideText(comparison.right)}: \`${comparison.test}\` ${comparison.holds ? 'holds' : 'does not hold'} in ${name}${cited}`;
    return this.test(frame, comparison.test, comparison.holds, text, { comparison });
  }

  private inputTestOf(frame: Frame, slot: string): DecidingTest {
    const children = this.builder.ruleNode(frame).children;
    let input: InputNode | undefined;
    for (const c of children) {
      if (c.kind === 'input' && c.name === slot && c.entity_id === frame.entity) {
        input = c;
        break;
      }
    }
    input ??= this.builder.inputNode(slot, frame.entity, this.builder.citation(frame.rule));
    const { value, status } = input;
    return this.test(frame, slot, value === true, (name, cited) => `${slot} is ${formatted(value)} (${status}) in ${name}${cited}`, { input: { name: slot, value, status } });
  }
}

/** Whether an outcome is the one wanted (true: held; false: did not hold, undetermined included). */
const matches = (o: Outcome | undefined, wanted: boolean): boolean => (wanted ? o === HOLDS : o !== undefined && o !== HOLDS);

const formatted = (v: unknown): string => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** `snap_gross_income (5200)`; a literal side is its value alone. */
const sideText = ({ expression, value }: Side): string => {
  const text = formatted(value); // once: writing a number is not free, and a deciding test writes both sides
  // a number or boolean is its String() already
  return expression === text || (typeof value !== 'number' && typeof value !== 'boolean' && expression === String(value)) ? expression : `${expression} (${text})`;
};
