import { isLiteral } from '../1-parse/formula/ast.js';
import type { ParsedModule, RuleDecl, VersionDecl } from '../1-parse/module.js';
import { RuleSpecError } from '../diagnostics.js';

// The merged closure is ONE flat namespace: every rule is visible by bare name to every formula.
// Rules are classified by shape, not by their written kind:
//   table parameter (`values:`) · derived (has `entity:`) · scalar parameter (no entity, every
//   version a bare literal) · otherwise a derived rule on the synthetic entity `Scalar`.

export const SCALAR_ENTITY = 'Scalar';

export interface ClosureRule {
  decl: RuleDecl;
  origin: ParsedModule;
  id: string; // origin#name
  /** Versions actually used (a `sets` binding may replace them). */
  versions: VersionDecl[];
  /** The rule whose versions these are (itself, or the bound value of a `sets` relation). */
  versionsFrom: ClosureRule | null;
}

export interface Namespace {
  root: ParsedModule;
  modules: ParsedModule[];
  parameters: Map<string, ClosureRule>; // by name; last declaration wins
  derived: Map<string, ClosureRule>; // by name
  relations: ClosureRule[]; // data_relation + derived_relation, in merge order
  /** Rule id → rule, for parameters and derived rules. */
  byId: Map<string, ClosureRule>;
}

export function classify(rule: RuleDecl): 'table' | 'derived' | 'scalar_parameter' | 'relation' | 'source_relation' {
  if (rule.kind === 'data_relation' || rule.kind === 'derived_relation') return 'relation';
  if (rule.kind === 'source_relation') return 'source_relation';
  if (rule.versions.some((v) => v.values)) return 'table';
  if (rule.entity) return 'derived';
  const formulas = rule.versions.filter((v) => v.formula);
  if (formulas.length > 0 && formulas.every((v) => isLiteral(v.formula!.expr))) return 'scalar_parameter';
  return 'derived';
}

export function buildNamespace(modules: ParsedModule[]): Namespace {
  const root = modules[modules.length - 1];
  const ns: Namespace = { root, modules, parameters: new Map(), derived: new Map(), relations: [], byId: new Map() };
  const bindings: { rule: ClosureRule; decl: RuleDecl }[] = [];
  for (const mod of modules) {
    for (const decl of mod.rules) {
      const rule: ClosureRule = { decl, origin: mod, id: `${mod.target}#${decl.name}`, versions: decl.versions, versionsFrom: null };
      const cls = classify(decl);
      const at = { location: { file: mod.file, path: decl.path } };
      if (cls === 'relation') {
        ns.relations.push(rule);
        continue;
      }
      if (cls === 'source_relation') {
        bindings.push({ rule, decl });
        continue;
      }
      if (cls === 'table' && !decl.indexedBy) {
        throw new RuleSpecError('invalid_rule', `parameter \`${decl.name}\` has a \`values:\` table but no \`indexed_by:\``, at);
      }
      if (cls === 'table') rule.versions = decl.versions.filter((v) => v.values);
      if (rule.versions.length === 0) {
        throw new RuleSpecError('invalid_rule', `rule \`${decl.name}\` has no version with a formula or values`, at);
      }
      for (const v of rule.versions) {
        if (!v.from && cls !== 'table') {
          throw new RuleSpecError('invalid_rule', `rule \`${decl.name}\`: every version needs \`effective_from:\``, { location: { file: mod.file, path: v.path } });
        }
        if (!v.formula && !v.values) {
          throw new RuleSpecError('invalid_rule', `rule \`${decl.name}\`: version has neither \`formula:\` nor \`values:\``, { location: { file: mod.file, path: v.path } });
        }
      }
      if (cls === 'derived') {
        const prior = ns.derived.get(decl.name);
        if (prior) {
          throw new RuleSpecError('duplicate_rule', `rule \`${decl.name}\` is declared twice in one import closure (also in ${prior.origin.target}); names are global across imports`, at);
        }
        ns.derived.set(decl.name, rule);
      } else {
        ns.parameters.set(decl.name, rule);
      }
      ns.byId.set(rule.id, rule);
    }
  }
  for (const { rule, decl } of bindings) applySetsBinding(ns, rule, decl);
  return ns;
}

/** `source_relation: {type: sets, target, value}` makes the target rule use the value rule's versions. */
function applySetsBinding(ns: Namespace, rel: ClosureRule, decl: RuleDecl): void {
  const sr = decl.sourceRelation!;
  if (sr.type !== 'sets' || !sr.value || !sr.target) return;
  const target = ns.byId.get(sr.target);
  const value = ns.byId.get(sr.value);
  if (!target && !value) return;
  const at = { location: { file: rel.origin.file, path: decl.path } };
  if (!target || !value) {
    const missing = target ? sr.value : sr.target;
    throw new RuleSpecError('invalid_binding', `source relation \`${decl.name}\` binds \`${sr.target}\` to \`${sr.value}\`, but \`${missing}\` is not in this import closure`, at);
  }
  const kindOf = (r: ClosureRule) => (ns.derived.get(r.decl.name) === r ? 'derived' : 'parameter');
  if (kindOf(target) !== kindOf(value)) {
    throw new RuleSpecError('invalid_binding', `source relation \`${decl.name}\` binds a ${kindOf(target)} to a ${kindOf(value)}`, at);
  }
  if (kindOf(target) === 'parameter' && (target.decl.indexedBy ?? null) !== (value.decl.indexedBy ?? null)) {
    throw new RuleSpecError('invalid_binding', `source relation \`${decl.name}\`: \`indexed_by\` differs between \`${sr.target}\` and \`${sr.value}\``, at);
  }
  target.versions = value.versions;
  target.versionsFrom = value;
}
