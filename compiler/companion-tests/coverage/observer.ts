import type { ParsedModule } from '../../1-parse/module.js';
import type { IfExpr, JudgmentExpr, Program } from '../../3-lower/ir.js';
import type { LoweringOrigins } from '../../3-lower/program.js';
import { HOLDS, type Outcome } from '../../engine/logic.js';
import type { EngineValue, EvaluationObserver } from '../../engine/observer.js';
import { Day, Decimal } from '../../values.js';
import { type ArmCount, type BranchCount, chainOperands, type ModuleIndex, type RuleCount, type VersionCount } from './provisions.js';

// Counts what the reference interpreter does while it runs the cases of one program: each rule
// computed (and whether its value was more than zero or false), each version used, each figure
// read, each `if` arm taken, and each `and`/`or` operand at which evaluation stopped. The
// program's nodes are matched to the counts of their modules (provisions.ts) the first time
// each is seen, and a module is enumerated when a rule of it first runs (an `if` or a
// connective only runs inside its rule); what lies outside the modules counted is passed over.

/** Counts of every module being counted, by declaration and expression. */
export type Counts = Omit<ModuleIndex, 'record'>;

/** Where the counts are: `include` makes sure a module's are there. */
export interface CountsSource {
  counts: Counts;
  include(mod: ParsedModule): void;
}

type Chain = { block: BranchCount; operands: Map<JudgmentExpr, number> };

const isConnective = (e: JudgmentExpr): e is Extract<JudgmentExpr, { k: 'and' | 'or' }> => e.k === 'and' || e.k === 'or';

/** Zero, false, not_holds, undetermined and empty text are what a rule nobody really tested shows. */
function nonTrivial(result: EngineValue | Outcome, judgment: boolean): boolean {
  if (judgment) return result === HOLDS;
  if (result instanceof Decimal) return !result.isZero();
  if (typeof result === 'number') return result !== 0; // the compiled engine's scaled form
  return result === true || result instanceof Day || (typeof result === 'string' && result !== '');
}

export class CoverageObserver implements EvaluationObserver {
  private readonly rules: ({ count?: RuleCount; versions: (VersionCount | undefined)[] } | undefined)[] = [];
  private readonly params: ({ count?: RuleCount; versions: (VersionCount | undefined)[]; rows: (Map<number, ArmCount> | undefined)[] } | undefined)[] = [];
  private readonly ifs = new Map<IfExpr, BranchCount | null>();
  private readonly chains = new Map<JudgmentExpr, Chain | null>();
  /** The judgment judged last, and for a connective the operand of its chain it stopped at:
   *  a connective is judged right after the last operand it evaluated. */
  private previous: JudgmentExpr | undefined;
  private previousOperand: JudgmentExpr | undefined;

  private readonly counts: Counts;

  /** `origins`: the program's, from its lowering. */
  constructor(
    private readonly program: Program,
    private readonly source: CountsSource,
    private readonly origins: LoweringOrigins,
  ) {
    this.counts = source.counts;
  }

  private rule(index: number) {
    let found = this.rules[index];
    if (!found) {
      const rule = this.program.rules[index];
      this.source.include(rule.origin);
      for (const v of rule.versions) this.source.include(v.formulaModule);
      found = this.rules[index] = { count: this.counts.rules.get(rule.decl), versions: rule.versions.map((v) => this.counts.versions.get(v.formula)) };
    }
    return found;
  }

  private param(index: number) {
    let found = this.params[index];
    if (!found) {
      const param = this.program.parameters[index];
      // the versions' declarations are the parameter's own, or (under a `sets` binding) those of a
      // rule in another module of the program: every module of it is then counted
      this.source.include(param.origin);
      if (!param.versionDecls.every((d) => param.decl.versions.includes(d))) for (const mod of this.program.modules) this.source.include(mod);
      found = this.params[index] = {
        count: this.counts.rules.get(param.decl),
        versions: param.versionDecls.map((d) => this.counts.versions.get(d)),
        rows: param.versionDecls.map((d) => this.counts.rows.get(d)),
      };
    }
    return found;
  }

  enterRule(rule: number, _entity: string, version: number): void {
    const found = this.rule(rule);
    if (found.count) found.count.hits++;
    const v = found.versions[version];
    if (v) v.hits++;
  }

  leaveRule(rule: number, _entity: string, result: EngineValue | Outcome): void {
    const count = this.rule(rule).count;
    if (count && nonTrivial(result, this.program.rules[rule].judgment)) count.nonTrivial++;
  }

  readParameter(param: number, version: number, key: number): void {
    const found = this.param(param);
    if (found.count) found.count.hits++;
    const v = found.versions[version];
    if (v) v.hits++;
    const row = found.rows[version]?.get(key);
    if (row) row.hits++;
  }

  branch(node: IfExpr, _entity: string, taken: number): void {
    let block = this.ifs.get(node);
    if (block === undefined) {
      const from = this.origins.get(node);
      block = (from && this.counts.blocks.get(from)) ?? null;
      this.ifs.set(node, block);
    }
    if (block) block.arms[taken].hits++;
  }

  judged(node: JudgmentExpr): void {
    if (isConnective(node)) {
      const child = this.previous;
      if (child === node.a || child === node.b) {
        const operand = child.k === node.k ? this.previousOperand! : child;
        this.previousOperand = operand;
        const chain = this.chain(node);
        const at = chain?.operands.get(operand);
        if (at !== undefined) chain!.block.arms[at].hits++;
      }
    }
    this.previous = node;
  }

  /** The counts of a chain's outermost connective (null for an inner one, or one not counted). */
  private chain(node: Extract<JudgmentExpr, { k: 'and' | 'or' }>): Chain | null {
    let chain = this.chains.get(node);
    if (chain === undefined) {
      const from = this.origins.get(node);
      const block = from && this.counts.blocks.get(from);
      const split = (e: JudgmentExpr): [JudgmentExpr, JudgmentExpr] | undefined => (e.k === node.k ? [e.a, e.b] : undefined);
      chain = block ? { block, operands: new Map(chainOperands<JudgmentExpr>(node, split).map((o, i) => [o, i])) } : null;
      this.chains.set(node, chain);
    }
    return chain;
  }

  readRule(): void {}
  readInput(): void {}
  compared(): void {}
}
