import type { Expr } from '../../1-parse/formula/ast.js';
import type { Formula, ParsedModule, RuleDecl, VersionDecl } from '../../1-parse/module.js';
import { formulaLine } from '../../1-parse/module-lines.js';
import { classify } from '../../2-resolve/namespace.js';

// What coverage counts in one module, read from its parsed declarations (so a module no case
// reaches is counted too), each with its source line and a hit count:
//  · rules: every derived rule and parameter (`nonTrivial`: evaluations of a derived rule to
//    something other than zero, false, not_holds or empty text);
//  · versions: every version of a rule or parameter by its `effective_from` (a parameter's are
//    its dated values);
//  · branches: every way out of a conditional: each `if`/`elif`/`else` arm, each `match` arm
//    (and "no arm matches" when there is no `_`), each operand of an `and`/`or` chain at which
//    evaluation stopped (so decided the outcome), each row of each version of a table.
// Plain data, so workers can post it and the counts of several runs can be added up.

export type RuleKind = 'derived' | 'parameter';
export type BranchKind = 'if' | 'match' | 'and' | 'or' | 'table';

export interface RuleCount {
  name: string;
  kind: RuleKind;
  line: number;
  hits: number;
  nonTrivial: number;
}

export interface VersionCount {
  rule: string;
  kind: RuleKind;
  from: string | null;
  line: number;
  hits: number;
}

export interface ArmCount {
  label: string;
  line: number;
  hits: number;
}

export interface BranchCount {
  rule: string;
  kind: BranchKind;
  line: number;
  arms: ArmCount[];
}

export interface ModuleCoverage {
  file: string;
  target: string;
  rules: RuleCount[];
  versions: VersionCount[];
  branches: BranchCount[];
}

/** Where each count of a module is, by the declaration or expression it counts. */
export interface ModuleIndex {
  record: ModuleCoverage;
  rules: Map<RuleDecl, RuleCount>;
  /** A derived rule's version by its formula; a parameter's by its declaration. */
  versions: Map<Formula | VersionDecl, VersionCount>;
  /** An `if`, a `match` or the outermost `and`/`or` of a chain → its branches. */
  blocks: Map<Expr, BranchCount>;
  /** A table version → its rows by key. */
  rows: Map<VersionDecl, Map<number, ArmCount>>;
}

/** The operands of an `and`/`or` chain, left to right (`a and b and c`: three). */
export function chainOperands<E>(e: E, split: (e: E) => [E, E] | undefined): E[] {
  const parts = split(e);
  return parts ? [...chainOperands(parts[0], split), ...chainOperands(parts[1], split)] : [e];
}

const splitAst = (op: string) => (e: Expr): [Expr, Expr] | undefined => (e.t === 'binary' && e.op === op ? [e.left, e.right] : undefined);

/** Where an expression's text starts (a binary node's own position is its operator's). */
function startOf(e: Expr): number {
  if (e.t === 'binary') return startOf(e.left);
  if (e.t === 'field' || e.t === 'index') return startOf(e.target);
  return e.pos;
}

function patternText(p: Expr | null): string {
  if (p === null) return '_';
  if (p.t === 'str') return JSON.stringify(p.value);
  if (p.t === 'num') return p.value;
  if (p.t === 'bool') return String(p.value);
  return p.t === 'name' ? p.name : '?';
}

/** The branches of one formula, outermost first. */
function formulaBranches(rule: string, formula: Formula, fallbackLine: number, index: ModuleIndex): void {
  const lineAt = (offset: number) => (formula.line !== undefined ? formulaLine({ line: formula.line, breaks: formula.breaks }, offset) : fallbackLine);
  const add = (e: Expr, kind: BranchKind, arms: { label: string; at: number }[]) => {
    const block: BranchCount = { rule, kind, line: lineAt(e.pos), arms: arms.map((a) => ({ label: a.label, line: lineAt(a.at), hits: 0 })) };
    index.record.branches.push(block);
    index.blocks.set(e, block);
  };
  const walk = (e: Expr, chainOp?: string): void => {
    switch (e.t) {
      case 'if':
        add(e, 'if', [...e.branches.map((b, i) => ({ label: i === 0 ? 'if' : 'elif', at: b.pos })), { label: 'else', at: e.elsePos }]);
        for (const b of e.branches) {
          walk(b.cond);
          walk(b.then);
        }
        return walk(e.otherwise);
      case 'match': {
        // lowered to an `if` over the arms with a pattern; without `_`, the last arm's result is also what no match gives
        const last = e.arms[e.arms.length - 1];
        const conditional = last.pattern === null ? e.arms.slice(0, -1) : e.arms;
        if (conditional.length) {
          const otherwise = last.pattern === null ? { label: '_', at: last.pos } : { label: 'no arm matches', at: e.pos };
          add(e, 'match', [...conditional.map((a) => ({ label: patternText(a.pattern), at: a.pos })), otherwise]);
        }
        walk(e.subject);
        for (const a of e.arms) walk(a.result);
        return;
      }
      case 'binary':
        if (e.op === 'and' || e.op === 'or') {
          if (chainOp !== e.op) {
            const operands = chainOperands(e, splitAst(e.op));
            add(e, e.op, operands.map((o, i) => ({ label: `operand ${i + 1} of ${operands.length}`, at: startOf(o) })));
          }
          walk(e.left, e.op);
          return walk(e.right, e.op);
        }
        walk(e.left);
        return walk(e.right);
      case 'unary':
        return walk(e.arg);
      case 'call':
        for (const a of e.args) walk(a);
        return;
      case 'field':
        return walk(e.target);
      case 'index':
        walk(e.target);
        return walk(e.index);
    }
  };
  walk(formula.expr);
}

/** Every rule, version and branch of a module, at zero hits; `counts`: where to index them (by
 *  default, maps of this module alone). */
export function moduleProvisions(mod: ParsedModule, counts: Omit<ModuleIndex, 'record'> = { rules: new Map(), versions: new Map(), blocks: new Map(), rows: new Map() }): ModuleIndex {
  const index: ModuleIndex = { record: { file: mod.file, target: mod.target, rules: [], versions: [], branches: [] }, ...counts };
  for (const decl of mod.rules) {
    const shape = classify(decl);
    if (shape === 'relation' || shape === 'source_relation') continue;
    const kind: RuleKind = shape === 'derived' ? 'derived' : 'parameter';
    const line = decl.line ?? 1;
    const rule: RuleCount = { name: decl.name, kind, line, hits: 0, nonTrivial: 0 };
    index.record.rules.push(rule);
    index.rules.set(decl, rule);
    // what the namespace keeps of each shape: a table's versions with values, the others' with a formula
    for (const v of decl.versions.filter((v) => (shape === 'table' ? v.values : v.formula))) {
      const version: VersionCount = { rule: decl.name, kind, from: v.from, line: v.fromLine ?? v.line ?? line, hits: 0 };
      index.record.versions.push(version);
      index.versions.set(kind === 'derived' ? v.formula! : v, version);
      if (kind === 'derived') formulaBranches(decl.name, v.formula!, version.line, index);
      if (v.values) {
        const rows = [...v.values.keys()].map((key, i) => ({ label: `row ${key}`, line: v.rowLines?.[i] ?? version.line, hits: 0 }));
        index.record.branches.push({ rule: decl.name, kind: 'table', line: version.line, arms: rows });
        index.rows.set(v, new Map([...v.values.keys()].map((key, i) => [key, rows[i]])));
      }
    }
  }
  return index;
}
