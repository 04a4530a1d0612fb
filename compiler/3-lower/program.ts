import { builtinUnits, type ParsedModule, type VersionDecl } from '../1-parse/module.js';
import { type ClosureRule, type Namespace, SCALAR_ENTITY } from '../2-resolve/namespace.js';
import { RuleSpecError } from '../diagnostics.js';
import { Day, Decimal, type Value, valueFromYaml } from '../values.js';
import type { Expr } from '../1-parse/formula/ast.js';
import { FormulaLowerer, type Dependencies, type Symbols } from './lower-expr.js';
import type { DerivedRule, IfExpr, InputUse, JudgmentExpr, Parameter, ParameterVersion, Program, Relation, RoundingMode } from './ir.js';
import { checkCycles } from './cycles.js';
import { valueKind } from '../dtypes.js';

// Phase 3: the merged namespace → a Program the engine can run. Every derived rule of the
// closure is lowered (an error anywhere fails the closure, as in the reference engine).

const ROUNDING_MODES: RoundingMode[] = ['half_up', 'half_even', 'floor', 'ceil'];

/** What a rule's dtype says about an input that is its whole value. */
function useOfDtype(dtype: string | null): InputUse {
  switch (valueKind(dtype ?? undefined)) {
    case 'boolean':
      return 'condition';
    case 'whole':
      return 'integer';
    case 'text':
      return 'text';
    case 'date':
      return 'date';
    default:
      return 'number';
  }
}

function dayOf(text: string | null, mod: ParsedModule, v: VersionDecl): number | null {
  if (text === null) return null;
  const day = Day.parse(text.trim());
  if (!day) {
    throw new RuleSpecError('invalid_rule', `\`${text}\` is not a date (YYYY-MM-DD)`, { location: { file: mod.file, path: v.path } });
  }
  return day.n;
}

function literalValue(e: Expr): Value {
  if (e.t === 'num') return new Decimal(e.value);
  if (e.t === 'str') return e.value;
  if (e.t === 'bool') return e.value;
  throw new Error('not a literal');
}

function byFrom<T extends { from: number | null }>(a: T, b: T): number {
  return (a.from ?? -Infinity) - (b.from ?? -Infinity);
}

/**
 * Where lowered nodes came from, for tools that point back at the source (coverage), kept beside
 * the program so nothing of it reaches a runtime package: each `if` (from an `if` or a `match`)
 * and each `and`/`or` → its expression.
 */
export type LoweringOrigins = Map<IfExpr | JudgmentExpr, Expr>;

export function lowerProgram(ns: Namespace, origins?: LoweringOrigins): Program {
  const program: Program = {
    root: ns.root,
    modules: ns.modules,
    rules: [],
    parameters: [],
    relations: [],
    ruleByName: new Map(),
    ruleById: new Map(),
    paramByName: new Map(),
    paramById: new Map(),
    relationById: new Map(),
    inputSlots: new Set(),
    inputs: new Map(),
  };
  const units = builtinUnits();
  for (const mod of ns.modules) for (const [k, v] of mod.units) units.set(k, v);
  lowerParameters(program, ns, units);
  const closureRules = declareRules(program, ns, units);
  const relationsByName = declareRelations(program, ns);
  const symbols = programSymbols(program, ns, closureRules, relationsByName);
  if (origins) symbols.noteOrigin = (node, from) => origins.set(node, from);
  lowerRules(program, closureRules, symbols, units);
  checkCycles(program, lowerDerivedRelations(program, ns, symbols));
  return program;
}

type Units = Map<string, number | null>;

/** Parameters: their versions' cells (a table's values, else the formula's literal), by name and by every id. */
function lowerParameters(program: Program, ns: Namespace, units: Units): void {
  for (const [name, cr] of ns.parameters) {
    roundingOf(cr, units); // validated even though a parameter's cells are never rounded
    const index = program.parameters.length;
    const unsorted: ParameterVersion[] = cr.versions.map((v) => {
      const cells = new Map<number, Value>();
      if (v.values) {
        for (const [key, raw] of v.values) {
          const value = valueFromYaml(raw);
          if (value === undefined) {
            throw new RuleSpecError('invalid_rule', `parameter \`${name}\`: table value for key ${key} must be a scalar`, { location: { file: cr.origin.file, path: [...v.path, 'values', String(key)] } });
          }
          cells.set(key, value);
        }
      } else {
        cells.set(0, literalValue(v.formula!.expr));
      }
      return { from: dayOf(v.from, cr.origin, v), to: dayOf(v.to, cr.origin, v), cells };
    });
    const order = unsorted.map((_, i) => i).sort((a, b) => byFrom(unsorted[a], unsorted[b]));
    const versions = order.map((i) => unsorted[i]);
    const param: Parameter = { index, id: cr.id, name, indexedBy: cr.decl.indexedBy ?? null, dtype: cr.decl.dtype ?? null, versions, origin: cr.origin, decl: cr.decl, versionDecls: order.map((i) => cr.versions[i]) };
    program.parameters.push(param);
    program.paramByName.set(name, index);
    if (param.indexedBy) program.inputSlots.add(param.indexedBy);
  }
  // every parameter declaration's id, including ones a later declaration of the name replaced
  for (const [id, cr] of ns.byId) {
    if (ns.derived.get(cr.decl.name) !== cr) program.paramById.set(id, program.paramByName.get(cr.decl.name)!);
  }

}

/** Derived rule shells, in namespace order, lowered once every name is known; the closure rules they come from. */
function declareRules(program: Program, ns: Namespace, units: Units): ClosureRule[] {
  const closureRules: ClosureRule[] = [];
  for (const [name, cr] of ns.derived) {
    const index = program.rules.length;
    const rule: DerivedRule = {
      index,
      id: cr.id,
      name,
      entity: cr.decl.entity ?? SCALAR_ENTITY,
      dtype: cr.decl.dtype ?? null,
      judgment: valueKind(cr.decl.dtype) === 'judgment',
      alwaysApplies: false,
      versions: [],
      rounding: null,
      unitError: cr.decl.unit && !units.has(cr.decl.unit) ? `rule \`${name}\` names unit \`${cr.decl.unit}\`, which no module declares` : null,
      origin: cr.origin,
      decl: cr.decl,
      ruleDeps: new Set(),
      paramDeps: new Set(),
      inputDeps: new Set(),
      relationDeps: new Set(),
    };
    program.rules.push(rule);
    program.ruleByName.set(name, index);
    program.ruleById.set(cr.id, index);
    closureRules.push(cr);
  }

  return closureRules;
}

/** Declared (data and derived) relations, by id and by name. */
function declareRelations(program: Program, ns: Namespace): Map<string, Relation[]> {
  const relationsByName = new Map<string, Relation[]>();
  for (const cr of ns.relations) {
    const decl = cr.decl.dataRelation ?? cr.decl.derivedRelation!;
    const rel: Relation = {
      index: program.relations.length,
      id: `${cr.origin.target}#relation.${cr.decl.name}`,
      name: cr.decl.name,
      kind: cr.decl.kind === 'data_relation' ? 'data' : 'derived',
      arity: decl.arity,
      origin: cr.origin.target,
      arguments: cr.decl.derivedRelation?.slotEntities.length ? cr.decl.derivedRelation.slotEntities : decl.arguments,
    };
    program.relations.push(rel);
    program.relationById.set(rel.id, rel.index);
    relationsByName.set(rel.name, [...(relationsByName.get(rel.name) ?? []), rel]);
  }
  return relationsByName;
}

/** How formulas resolve names: rules, parameters and relations (an undeclared relation is implicit). */
function programSymbols(program: Program, ns: Namespace, closureRules: ClosureRule[], relationsByName: Map<string, Relation[]>): Symbols {
  const implicit = (name: string): number => {
    let idx = program.relationById.get(name);
    if (idx === undefined) {
      idx = program.relations.length;
      program.relations.push({ index: idx, id: name, name, kind: 'implicit', arity: 2, origin: null, arguments: [] });
      program.relationById.set(name, idx);
    }
    return idx;
  };
  return {
    derived: (name) => program.ruleByName.get(name),
    writtenDerived: (name) => {
      const idx = program.ruleByName.get(name);
      return idx !== undefined && closureRules[idx].decl.kind === 'derived' ? idx : undefined;
    },
    parameter: (name) => program.paramByName.get(name),
    ruleEntity: (idx) => program.rules[idx].entity,
    ruleOrigin: (idx) => program.rules[idx].origin,
    hasRelationNamed: (name) => relationsByName.has(name),
    relation(name, module, ruleEntity, foreign) {
      // a derived relation's member_relation alias, for rules of its filtered entity
      for (const cr of ns.relations) {
        const d = cr.decl.derivedRelation;
        if (d?.memberRelation === name && d.entity === ruleEntity) return program.relationById.get(`${cr.origin.target}#relation.${cr.decl.name}`)!;
      }
      const own = program.relationById.get(`${module.target}#relation.${name}`);
      if (own !== undefined) return own;
      const declared = relationsByName.get(name);
      if (foreign && declared?.length === 1) return declared[0].index;
      return implicit(name);
    },
    memberEntity: (rel) => program.relations[rel].arguments[0] || 'Member',
    noteInput(slot, use, entity, module, literal) {
      let info = program.inputs.get(slot);
      if (!info) program.inputs.set(slot, (info = { entities: new Set(), uses: new Set(), readers: new Set(), literals: new Set() }));
      info.entities.add(entity);
      info.uses.add(use);
      info.readers.add(module);
      if (literal !== undefined) info.literals.add(literal);
    },
  };
}

/** Lower every derived rule's versions, collecting every rule's problems before failing. */
function lowerRules(program: Program, closureRules: ClosureRule[], symbols: Symbols, units: Units): void {
  const problems: RuleSpecError[] = [];
  closureRules.forEach((cr, idx) => {
    try {
      lowerRule(cr, program.rules[idx]);
    } catch (err) {
      if (!(err instanceof RuleSpecError)) throw err;
      problems.push(err);
    }
  });
  if (problems.length) {
    problems[0].others = problems.slice(1);
    throw problems[0];
  }
  function lowerRule(cr: ClosureRule, rule: DerivedRule) {
    const formulaModule = cr.versionsFrom?.origin ?? cr.origin;
    const deps: Dependencies = { rules: rule.ruleDeps, params: rule.paramDeps, inputs: rule.inputDeps, relations: rule.relationDeps };
    for (const v of cr.versions) {
      const formula = v.formula!;
      const lowerer = new FormulaLowerer(symbols, rule.name, formula, formulaModule, rule.entity, deps);
      const expr = rule.judgment ? lowerer.judgment(formula.expr) : lowerer.scalar(formula.expr, useOfDtype(rule.dtype));
      rule.versions.push({ from: dayOf(v.from, formulaModule, v), to: dayOf(v.to, formulaModule, v), expr, formula, formulaModule });
    }
    rule.versions.sort(byFrom);
    rule.alwaysApplies = rule.versions.length === 1 && rule.versions[0].to === null;
    rule.rounding = roundingOf(cr, units);
    for (const slot of rule.inputDeps) program.inputSlots.add(slot);
  }
}

/** Derived relations: their source relation and predicate; the dependencies of each, for the cycle check. */
function lowerDerivedRelations(program: Program, ns: Namespace, symbols: Symbols): Map<number, Dependencies> {
  const relationDeps = new Map<number, Dependencies>();
  for (const cr of ns.relations) {
    const d = cr.decl.derivedRelation;
    if (!d) continue;
    const rel = program.relations[program.relationById.get(`${cr.origin.target}#relation.${cr.decl.name}`)!];
    const at = { location: { file: cr.origin.file, path: cr.decl.path } };
    const withFormula = cr.decl.versions.filter((v) => v.formula);
    if (withFormula.length !== 1) {
      throw new RuleSpecError('invalid_rule', `derived relation \`${cr.decl.name}\` needs exactly one version with a formula (its predicate)`, at);
    }
    const source = d.sourceRelation.includes('#relation.')
      ? program.relationById.get(d.sourceRelation)
      : symbols.relation(d.sourceRelation, cr.origin, d.entity ?? '', false);
    if (source === undefined) {
      throw new RuleSpecError('invalid_reference', `derived relation \`${cr.decl.name}\`: source relation \`${d.sourceRelation}\` is not declared in this import closure`, at);
    }
    const formula = withFormula[0].formula!;
    const deps: Dependencies = { rules: new Set(), params: new Set(), inputs: new Set(), relations: new Set([source]) };
    const currentEntity = d.slotEntities[d.currentSlot] || undefined;
    const predicate = new FormulaLowerer(symbols, cr.decl.name, formula, cr.origin, d.entity ?? '', deps, { currentEntity }).judgment(formula.expr);
    rel.derived = { source, currentSlot: d.currentSlot, relatedSlot: d.relatedSlot, predicate, entity: d.entity, memberRelation: d.memberRelation };
    for (const slot of deps.inputs) program.inputSlots.add(slot);
    relationDeps.set(rel.index, deps);
  }

  return relationDeps;
}

function roundingOf(cr: ClosureRule, units: Units): DerivedRule['rounding'] {
  const mode = cr.decl.rounding;
  if (!mode) return null;
  const at = { location: { file: cr.origin.file, path: [...cr.decl.path, 'rounding'] } };
  if (!ROUNDING_MODES.includes(mode as RoundingMode)) {
    throw new RuleSpecError('invalid_rule', `rule \`${cr.decl.name}\`: unknown rounding \`${mode}\` (expected ${ROUNDING_MODES.join(', ')})`, at);
  }
  if (cr.decl.kind !== 'derived') throw new RuleSpecError('invalid_rule', `rule \`${cr.decl.name}\`: \`rounding:\` is only allowed on derived rules`, at);
  const minor = cr.decl.unit ? units.get(cr.decl.unit) : undefined;
  if (minor === undefined || minor === null) {
    throw new RuleSpecError('invalid_rule', `rule \`${cr.decl.name}\`: \`rounding:\` needs a currency \`unit:\` (found ${cr.decl.unit ? `\`${cr.decl.unit}\`` : 'none'})`, at);
  }
  return { mode: mode as RoundingMode, minorUnits: minor };
}
