import type { Expr } from '../1-parse/formula/ast.js';
import type { Formula, ParsedModule } from '../1-parse/module.js';
import { RuleSpecError } from '../diagnostics.js';
import { Decimal } from '../values.js';
import { FUNCTIONS, arityText } from './functions.js';
import type { CmpOp, IfExpr, InputUse, JudgmentExpr, ScalarExpr } from './ir.js';

// Lowering of one formula in scalar or judgment position. Identifier resolution follows the
// flat namespace of the closure:
//   scalar:   period_start/period_end → parameter (cell 0) → derived rule → input slot
//   judgment: derived rule → (derived-relation predicates: relation membership) → input == true
// Undeclared names are inputs; they are never compile errors.

/** What the lowerer can ask of the program being built. */
export interface Symbols {
  derived(name: string): number | undefined;
  /** Rules written `kind: derived` (the only rules a derived-relation predicate sees). */
  writtenDerived(name: string): number | undefined;
  parameter(name: string): number | undefined;
  ruleEntity(rule: number): string;
  ruleOrigin(rule: number): ParsedModule;
  hasRelationNamed(name: string): boolean;
  /** Resolve a relation name used by a formula of `module`. */
  relation(name: string, module: ParsedModule, ruleEntity: string, refersToForeignRule: boolean): number;
  /** Entity label of a relation's related (member) slot. */
  memberEntity(relation: number): string;
  /** Record how a formula of `module` reads an input (for the package's input catalogue). */
  noteInput(slot: string, use: InputUse, entity: string, module: ParsedModule, literal?: string): void;
  /** Record the expression a conditional or a connective came from (only when the program's origins are asked for). */
  noteOrigin?(node: IfExpr | JudgmentExpr, from: Expr): void;
}

export interface Dependencies {
  rules: Set<number>;
  params: Set<number>;
  inputs: Set<string>;
  relations: Set<number>;
}

export interface PredicateContext {
  /** Entity label of the derived relation's current slot: rules of that entity read the current entity. */
  currentEntity?: string;
}

export class FormulaLowerer {
  constructor(
    private readonly symbols: Symbols,
    private readonly ruleName: string,
    private readonly formula: Formula,
    private readonly module: ParsedModule,
    private readonly ruleEntity: string,
    private readonly deps: Dependencies,
    private readonly predicate?: PredicateContext,
  ) {}

  private error(code: RuleSpecError['code'], message: string, at: Expr): never {
    throw new RuleSpecError(code, `rule \`${this.ruleName}\`: ${message}`, {
      location: { file: this.module.file, path: this.formula.path, offset: at.pos, scalar: this.formula.text },
    });
  }

  private source(e: Expr): string {
    switch (e.t) {
      case 'name':
        return e.name;
      case 'num':
        return e.value;
      case 'str':
        return JSON.stringify(e.value);
      case 'bool':
        return String(e.value);
      case 'call':
        return `${e.callee}(…)`;
      case 'binary':
        return `\`${e.op}\``;
      case 'unary':
        return `\`${e.op}\``;
      default:
        return `\`${e.t}\``;
    }
  }

  private input(slot: string, use: InputUse, entity = this.ruleEntity): string {
    this.deps.inputs.add(slot);
    this.symbols.noteInput(slot, use, entity, this.module);
    return slot;
  }

  // ---- scalar position -------------------------------------------------------------------

  /** Lower in scalar position; `use` says what the surrounding expression needs, to type inputs. */
  scalar(e: Expr, use: InputUse = 'value'): ScalarExpr {
    switch (e.t) {
      case 'num':
        return { k: 'lit', v: new Decimal(e.value) };
      case 'str':
        return { k: 'lit', v: e.value };
      case 'bool':
        return { k: 'lit', v: e.value };
      case 'name':
        return this.scalarName(e.name, use);
      case 'unary':
        if (e.op === 'not') this.needValue(e, '`not`');
        return { k: 'neg', a: this.scalar(e.arg, 'number') };
      case 'binary':
        if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '/') {
          return { k: 'arith', op: e.op, a: this.scalar(e.left, 'number'), b: this.scalar(e.right, 'number') };
        }
        return this.needValue(e, e.op === 'and' || e.op === 'or' ? `\`${e.op}\`` : `the comparison \`${e.op}\``);
      case 'if':
        return this.noted(
          {
            k: 'if',
            branches: e.branches.map((b) => ({ cond: this.judgment(b.cond), then: this.scalar(b.then, use) })),
            otherwise: this.scalar(e.otherwise, use),
          },
          e,
        );
      case 'match':
        return this.match(e, use);
      case 'index': {
        if (e.target.t !== 'name') this.error('invalid_reference', 'only a parameter can be indexed (`table[key]`)', e);
        const param = this.predicate ? undefined : this.symbols.parameter(e.target.name);
        if (param === undefined) {
          this.error('invalid_reference', `\`${e.target.name}[…]\`: only a parameter can be indexed, and \`${e.target.name}\` is not a parameter in this import closure`, e.target);
        }
        this.deps.params.add(param);
        return { k: 'param', param, key: this.scalar(e.index, 'integer') };
      }
      case 'field':
        return this.error('position_mismatch', `\`.${e.field}\` is only allowed inside len(relation.field) or sum(relation.field)`, e);
      case 'call':
        return this.scalarCall(e);
    }
  }

  private needValue(e: Expr, what: string): never {
    this.error('position_mismatch', `${what} yields a judgment, but a value is needed here; give the rule \`dtype: Judgment\`, or choose a value with \`if … : … else: …\``, e);
  }

  private scalarName(name: string, use: InputUse): ScalarExpr {
    if (name === 'period_start') return { k: 'period_start' };
    if (name === 'period_end') return { k: 'period_end' };
    if (!this.predicate) {
      const param = this.symbols.parameter(name);
      if (param !== undefined) {
        this.deps.params.add(param);
        return { k: 'param', param, key: null };
      }
    }
    const rule = this.predicate ? this.symbols.writtenDerived(name) : this.symbols.derived(name);
    if (rule !== undefined) {
      this.deps.rules.add(rule);
      return { k: 'rule', rule };
    }
    return { k: 'input', slot: this.input(name, use) };
  }

  private match(e: Extract<Expr, { t: 'match' }>, use: InputUse): ScalarExpr {
    // `match s: p1 => r1 … pn => rn` ≡ if s == p1: r1 … else: <`_` arm, or else the last arm's result>
    const patterns = e.arms.map((arm) => arm.pattern).filter((p): p is Expr => p !== null);
    const subject = this.scalar(e.subject, patterns.length ? this.operandUse(patterns[0]) : 'value');
    for (const p of patterns) this.noteLiteral(e.subject, p);
    const last = e.arms[e.arms.length - 1];
    const conditional = last.pattern === null ? e.arms.slice(0, -1) : e.arms;
    if (conditional.length === 0) return this.scalar(last.result, use);
    return this.noted(
      {
        k: 'if',
        branches: conditional.map((arm) => ({
          cond: { k: 'cmp', op: '==', a: subject, b: this.scalar(arm.pattern!) } as JudgmentExpr,
          then: this.scalar(arm.result, use),
        })),
        otherwise: this.scalar(last.result, use),
      },
      e,
    );
  }

  private noted<N extends IfExpr | JudgmentExpr>(node: N, from: Expr): N {
    this.symbols.noteOrigin?.(node, from);
    return node;
  }

  private checkCall(e: Extract<Expr, { t: 'call' }>, position: 'scalar' | 'judgment') {
    const spec = FUNCTIONS[e.callee];
    if (!spec) {
      const known = Object.keys(FUNCTIONS).filter((f) => FUNCTIONS[f].position === position);
      this.error('unknown_function', `unknown function \`${e.callee}\` (functions allowed here: ${known.join(', ')})`, e);
    }
    if (spec.position !== position) {
      if (position === 'judgment') this.error('position_mismatch', `${spec.usage} yields a value, but a judgment is needed here; compare it (e.g. \`${e.callee}(…) > 0\`)`, e);
      this.needValue(e, spec.usage);
    }
    if (e.args.length < spec.min || e.args.length > spec.max) {
      this.error('wrong_arity', `${e.callee} takes ${arityText(spec)}, got ${e.args.length} (${spec.usage})`, e);
    }
  }

  private scalarCall(e: Extract<Expr, { t: 'call' }>): ScalarExpr {
    this.checkCall(e, 'scalar');
    const args = e.args;
    switch (e.callee) {
      case 'max':
      case 'min':
        return { k: 'minmax', op: e.callee, args: args.map((a) => this.scalar(a, 'number')) };
      case 'floor':
      case 'ceil':
        return { k: e.callee, a: this.scalar(args[0], 'number') };
      case 'days_between':
        return { k: e.callee, a: this.scalar(args[0], 'date'), b: this.scalar(args[1], 'date') };
      case 'date_add_days':
        return { k: e.callee, a: this.scalar(args[0], 'date'), b: this.scalar(args[1], 'integer') };
      case 'len': {
        const relName = args[0].t === 'field' ? this.bareName(args[0].target, 'len') : this.bareName(args[0], 'len');
        return { k: 'count', rel: this.relation(relName, []), pred: null };
      }
      case 'count_where': {
        const predName = this.bareName(args[1], 'count_where');
        const rel = this.relation(this.bareName(args[0], 'count_where'), [predName]);
        return { k: 'count', rel, pred: this.memberJudgment(predName, rel) };
      }
      case 'sum': {
        if (args[0].t !== 'field') this.error('invalid_reference', 'sum takes `relation.field` (e.g. `sum(members.income)`)', args[0]);
        const rel = this.relation(this.bareName(args[0].target, 'sum'), [args[0].field]);
        return { k: 'sum', rel, value: this.memberValue(args[0].field, rel), pred: null };
      }
      case 'sum_where': {
        const field = this.bareName(args[1], 'sum_where');
        const pred = this.bareName(args[2], 'sum_where');
        const rel = this.relation(this.bareName(args[0], 'sum_where'), [field, pred]);
        return { k: 'sum', rel, value: this.memberValue(field, rel), pred: this.memberJudgment(pred, rel) };
      }
      default:
        args.forEach((a) => this.scalar(a, 'number'));
        return { k: 'over_periods', fn: e.callee };
    }
  }

  private bareName(e: Expr, fn: string): string {
    if (e.t !== 'name') this.error('invalid_reference', `the arguments of ${fn} must be bare names (${FUNCTIONS[fn].usage})`, e);
    return e.name;
  }

  private relation(name: string, memberNames: string[]): number {
    const foreign = memberNames.some((n) => {
      const r = this.symbols.derived(n);
      return r !== undefined && this.symbols.ruleOrigin(r) !== this.module;
    });
    const rel = this.symbols.relation(name, this.module, this.ruleEntity, foreign);
    this.deps.relations.add(rel);
    return rel;
  }

  /** A relation aggregate's field: a derived rule, else an input, read on the member. */
  private memberValue(name: string, rel: number): ScalarExpr {
    const rule = this.symbols.derived(name);
    if (rule !== undefined) {
      this.deps.rules.add(rule);
      return { k: 'rule', rule };
    }
    return { k: 'input', slot: this.input(name, 'number', this.symbols.memberEntity(rel)) };
  }

  private memberJudgment(name: string, rel: number): JudgmentExpr {
    const rule = this.symbols.derived(name);
    if (rule !== undefined) {
      this.deps.rules.add(rule);
      return { k: 'jrule', rule };
    }
    return { k: 'jinput', slot: this.input(name, 'condition', this.symbols.memberEntity(rel)) };
  }

  /** `region == "nyc"`: remember "nyc" as a value of the input `region`. */
  private noteLiteral(side: Expr, other: Expr): void {
    if (side.t !== 'name' || other.t !== 'str' || this.symbols.derived(side.name) !== undefined || this.symbols.parameter(side.name) !== undefined) return;
    this.symbols.noteInput(side.name, 'text', this.ruleEntity, this.module, other.value);
  }

  /** What a comparison operand says about the other side: `x == "a"` makes x text. */
  private operandUse(e: Expr): InputUse {
    if (e.t === 'str') return 'text';
    if (e.t === 'bool') return 'condition';
    if (e.t === 'num') return 'number';
    if (e.t === 'name' && (e.name === 'period_start' || e.name === 'period_end')) return 'date';
    return 'value';
  }

  // ---- judgment position -----------------------------------------------------------------

  judgment(e: Expr): JudgmentExpr {
    switch (e.t) {
      case 'bool':
        return { k: 'const', holds: e.value };
      case 'name':
        return this.judgmentName(e.name);
      case 'unary':
        if (e.op === '-') return this.needJudgment(e, 'unary `-`');
        return { k: 'not', a: this.judgment(e.arg) };
      case 'binary':
        if (e.op === 'and' || e.op === 'or') return this.noted({ k: e.op, a: this.judgment(e.left), b: this.judgment(e.right) }, e);
        if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '/') return this.needJudgment(e, `arithmetic \`${e.op}\``);
        this.noteLiteral(e.left, e.right);
        this.noteLiteral(e.right, e.left);
        return { k: 'cmp', op: e.op as CmpOp, a: this.scalar(e.left, this.operandUse(e.right)), b: this.scalar(e.right, this.operandUse(e.left)) };
      case 'call':
        if (e.callee === 'exactly_one') {
          this.checkCall(e, 'judgment');
          return { k: 'exactly_one', args: e.args.map((a) => this.judgment(a)) };
        }
        this.checkCall(e, 'judgment');
        return this.needJudgment(e, e.callee);
      case 'num':
      case 'str':
        return this.needJudgment(e, `the literal ${this.source(e)}`);
      case 'if':
        return this.needJudgment(e, '`if`');
      case 'match':
        return this.needJudgment(e, '`match`');
      case 'index':
        return this.needJudgment(e, 'a table lookup');
      case 'field':
        return this.needJudgment(e, `\`.${e.field}\``);
    }
  }

  private needJudgment(e: Expr, what: string): never {
    this.error('position_mismatch', `${what} yields a value, but a judgment is needed here; compare it (e.g. \`x > 0\`, \`flag == true\`)`, e);
  }

  private judgmentName(name: string): JudgmentExpr {
    if (this.predicate) {
      const rule = this.symbols.writtenDerived(name);
      if (rule !== undefined) {
        this.deps.rules.add(rule);
        const onCurrent = this.predicate.currentEntity !== undefined && this.symbols.ruleEntity(rule) === this.predicate.currentEntity;
        return { k: 'jrule', rule, onCurrent };
      }
      if (this.symbols.hasRelationNamed(name)) return { k: 'member', rel: this.relation(name, []) };
      return { k: 'jinput', slot: this.input(name, 'condition') };
    }
    const rule = this.symbols.derived(name);
    if (rule !== undefined) {
      this.deps.rules.add(rule);
      return { k: 'jrule', rule };
    }
    return { k: 'jinput', slot: this.input(name, 'condition') };
  }
}
