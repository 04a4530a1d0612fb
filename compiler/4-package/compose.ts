import { readModuleDocument, type ParsedModule } from '../1-parse/module.js';
import { RuleSpecError } from '../diagnostics.js';
import { coreName, type OutputGate } from './auto-gate.js';
import type { ProgramSpec, Transformation } from './program-spec.js';

// A program spec becomes one in-memory composition module: it imports every module in scope
// and declares one rule per transformation. Compiled like any module, its closure is the
// program's flat namespace, so a transformation can bind an imported module's input.

const DEFAULTS = { entity: 'Household', dtype: 'Money', period: 'Month' };

/** The module target of a spec's composition, e.g. `us-co:programs/snap/2026-01`. */
export function compositionTarget(spec: ProgramSpec): string {
  return `${spec.jurisdiction}:programs/${spec.programPath}/${spec.period}`;
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

function formulaOf(t: Transformation, fail: (m: string) => never): { formula: string; dtype?: string } {
  switch (t.pattern) {
    case 'derived_formula':
      if (typeof t.formula !== 'string' && typeof t.formula !== 'number') fail('derived_formula needs a `formula`');
      return { formula: String(t.formula) };
    case 'sum_terms': {
      const terms = list(t.terms);
      return { formula: terms.length ? terms.join(' + ') : '0' };
    }
    case 'all_of': {
      const c = list(t.conditions);
      return { formula: c.length ? c.join(' and ') : 'true', dtype: 'Judgment' };
    }
    case 'any_of': {
      const c = list(t.conditions);
      return { formula: c.length ? c.join(' or ') : 'false', dtype: 'Judgment' };
    }
    case 'conditional_value':
      if (!t.condition) fail('conditional_value needs a `condition`');
      return { formula: `if ${t.condition}: ${t.when_true ?? 0} else: ${t.when_false ?? 0}` };
    case 'any_related':
      if (!t.relation || !t.condition) fail('any_related needs `relation` and `condition`');
      return { formula: `count_where(${t.relation}, ${t.condition}) > 0`, dtype: 'Judgment' };
    case 'table_lookup_with_extension': {
      const { table, index, min, max, increment } = t as Record<string, unknown>;
      if (!table || !index || max === undefined || !increment) fail('table_lookup_with_extension needs `table`, `index`, `max` and `increment`');
      const lo = min ?? 1;
      return { formula: `if ${index} <= 0: 0 else: ${table}[max(min(${index}, ${max}), ${lo})] + max(${index} - ${max}, 0) * ${increment}` };
    }
    default:
      return fail(`unknown transformation pattern \`${t.pattern}\` (expected derived_formula, sum_terms, all_of, any_of, conditional_value, any_related, table_lookup_with_extension, data_relation or derived_relation)`);
  }
}

/** `gates`: the spec's `auto_gate_outputs` with the gates each is AND-ed with (auto-gate.ts). */
export function composeProgram(spec: ProgramSpec, gates: OutputGate[] = []): ParsedModule {
  const effectiveFrom = (t: Transformation) => String(t.effective_from ?? `${spec.period}-01`);
  const synthesized = spec.transformations.map(({ spec: t, path }) => {
    const fail = (message: string): never => {
      throw new RuleSpecError('invalid_rule', `transformation ${t.name ? `\`${t.name}\`` : `#${Number(path[1]) + 1}`}: ${message}`, { location: { file: spec.file, path } });
    };
    if (typeof t.name !== 'string' || !/^[a-z_][a-z0-9_]*$/.test(t.name)) fail('`name` must be a lower-case identifier');
    if (t.pattern === 'data_relation') {
      return { name: t.name, kind: 'data_relation', source: t.source, data_relation: { arity: t.arity ?? 2, arguments: t.arguments } };
    }
    const effective_from = effectiveFrom(t);
    if (t.pattern === 'derived_relation') {
      return {
        name: t.name,
        kind: 'derived_relation',
        source: t.source,
        derived_relation: { arity: 2, source_relation: t.source_relation, current_slot: t.current_slot, related_slot: t.related_slot, entity: t.entity, member_relation: t.member_relation },
        versions: [{ effective_from, formula: t.condition ?? t.formula ?? true }],
      };
    }
    const { formula, dtype } = formulaOf(t, fail);
    return {
      name: t.name,
      kind: 'derived',
      entity: t.entity ?? DEFAULTS.entity,
      dtype: dtype ?? t.dtype ?? DEFAULTS.dtype,
      period: t.period ?? DEFAULTS.period,
      unit: t.unit,
      source: t.source ?? `program ${spec.program}`,
      source_url: t.source_url,
      versions: [{ effective_from, formula }],
    };
  });
  // each rule with the transformation it comes from: a gated output's own rule becomes
  // `<name>_core`, and `<name>` the conjunction of it and its gates
  const rules: Record<string, unknown>[] = [];
  const origins: number[] = [];
  synthesized.forEach((rule, i) => {
    const gate = rule.kind === 'derived' ? gates.find((g) => g.output === rule.name && g.gates.length > 0) : undefined;
    rules.push(gate ? { ...rule, name: coreName(gate.output) } : rule);
    origins.push(i);
    if (!gate) return;
    const formula = [coreName(gate.output), ...gate.gates].join(' and ');
    rules.push({ ...rule, dtype: 'Judgment', unit: undefined, versions: [{ effective_from: effectiveFrom(spec.transformations[i].spec), formula }] });
    origins.push(i);
  });
  const doc = { format: 'rulespec/v1', module: { kind: 'composition', summary: spec.description }, imports: spec.scope.map((s) => s.target), rules };
  const mod = readModuleDocument(doc, spec.file, compositionTarget(spec));
  // point diagnostics at the spec's own entries rather than the synthesized document
  mod.imports.forEach((imp, i) => (imp.path = spec.scope[i].path));
  for (const rule of mod.rules) {
    const i = origins[Number(rule.path[1])];
    const tpath = spec.transformations[i].path;
    rule.path = tpath;
    for (const v of rule.versions) {
      v.path = tpath;
      if (v.formula) v.formula.path = spec.transformations[i].spec.pattern === 'derived_formula' ? [...tpath, 'formula'] : tpath;
    }
  }
  for (const err of mod.errors) {
    if (err.location && err.location.path[0] === 'rules') err.location.path = spec.transformations[origins[Number(err.location.path[1])]]?.path ?? [];
  }
  return mod;
}
