import type { ExecParameter, ExecRule, Relation } from '../3-lower/ir.js';
import type { PackageInput } from '../4-package/package-types.js';
import { Day } from '../values.js';
import { expressionText, literalText } from '../engine/expression-text.js';
import type { ProgramSide } from './program-side.js';

// What changed in the rules between two sides of a diff, within the program's closure (a package
// holds only the rules its outputs reach): rules and parameters added, removed, or whose formula,
// dated values, dates, definition or citations changed, by legal id with the text of both sides;
// inputs added, removed or redefined; outputs added or removed.

export type RuleAspect = 'formula' | 'values' | 'dates' | 'definition' | 'citation';

/** One dated version: its first and last day (null: open) and its formula or value as text. */
export interface VersionText {
  from: string | null;
  to: string | null;
  text: string;
}

export interface RuleText {
  entity: string | null;
  dtype: string | null;
  /** The newest version's formula as its encoding writes it (when the side's graph is known). */
  formula: string | null;
  versions: VersionText[];
  sources: string[];
}

export interface RuleChange {
  legal_id: string;
  name: string;
  kind: 'derived' | 'parameter' | 'relation';
  change: 'added' | 'removed' | 'changed';
  /** What of a changed rule differs. */
  aspects: RuleAspect[];
  baseline: RuleText | null;
  reform: RuleText | null;
}

export interface InputChange {
  legal_id: string;
  name: string;
  entity: string;
  change: 'added' | 'removed' | 'changed';
  /** What of a changed input differs (dtype, default, values, required, unit). */
  aspects: string[];
  baseline: PackageInput | null;
  reform: PackageInput | null;
}

export interface RulesChange {
  /** True when nothing below changed. */
  unchanged: boolean;
  rules: RuleChange[];
  inputs: InputChange[];
  outputs: { added: string[]; removed: string[] };
  counts: { added: number; removed: number; changed: number; inputs_added: number; inputs_removed: number; inputs_changed: number };
}

const dayText = (n: number | null) => (n === null ? null : new Day(n).toString());

function derivedText(side: ProgramSide, rule: ExecRule): RuleText {
  return {
    entity: rule.entity,
    dtype: rule.dtype,
    formula: side.writtenFormula(rule.id),
    versions: rule.versions.map((v) => ({ from: dayText(v.from), to: dayText(v.to), text: expressionText(v.expr, side.exec) })),
    sources: side.citations(rule.id),
  };
}

/** A parameter's cells as text: a scalar's value, or a table `{key: value, …}`. */
export function cellsText(param: Pick<ExecParameter, 'indexedBy'>, cells: ExecParameter['versions'][number]['cells']): string {
  const entries = [...cells].sort(([a], [b]) => a - b);
  if (!param.indexedBy && entries.length === 1 && entries[0][0] === 0) return literalText(entries[0][1]);
  return `{${entries.map(([k, v]) => `${k}: ${literalText(v)}`).join(', ')}}`;
}

function parameterText(side: ProgramSide, param: ExecParameter): RuleText {
  return {
    entity: null,
    dtype: param.dtype,
    formula: null,
    versions: param.versions.map((v) => ({ from: dayText(v.from), to: dayText(v.to), text: cellsText(param, v.cells) })),
    sources: side.citations(param.id),
  };
}

/** A relation: a derived one's membership condition. */
function relationText(side: ProgramSide, rel: Relation): RuleText {
  const d = rel.derived;
  return { entity: d?.entity ?? null, dtype: null, formula: null, versions: d ? [{ from: null, to: null, text: expressionText(d.predicate, side.exec) }] : [], sources: [] };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function derivedAspects(base: ProgramSide, reform: ProgramSide, b: ExecRule, r: ExecRule): RuleAspect[] {
  const aspects: RuleAspect[] = [];
  const dates = (rule: ExecRule) => rule.versions.map((v) => [v.from, v.to]);
  if (base.canonical(b.versions.map((v) => v.expr)) !== reform.canonical(r.versions.map((v) => v.expr))) aspects.push('formula');
  if (!same(dates(b), dates(r)) || b.alwaysApplies !== r.alwaysApplies) aspects.push('dates');
  if (!same([b.entity, b.dtype, b.judgment, b.rounding, b.unitError], [r.entity, r.dtype, r.judgment, r.rounding, r.unitError])) aspects.push('definition');
  if (!same(base.citations(b.id), reform.citations(r.id))) aspects.push('citation');
  return aspects;
}

function parameterAspects(base: ProgramSide, reform: ProgramSide, b: ExecParameter, r: ExecParameter): RuleAspect[] {
  const aspects: RuleAspect[] = [];
  const dates = (p: ExecParameter) => p.versions.map((v) => [v.from, v.to]);
  if (base.canonical(b.versions.map((v) => v.cells)) !== reform.canonical(r.versions.map((v) => v.cells))) aspects.push('values');
  if (!same(dates(b), dates(r))) aspects.push('dates');
  if (!same([b.indexedBy, b.dtype], [r.indexedBy, r.dtype])) aspects.push('definition');
  if (!same(base.citations(b.id), reform.citations(r.id))) aspects.push('citation');
  return aspects;
}

const INPUT_ASPECTS = ['dtype', 'default', 'values', 'required', 'unit'] as const;

function inputChanges(base: ProgramSide, reform: ProgramSide): InputChange[] {
  const byKey = (side: ProgramSide) => new Map(side.loaded.pkg.entities.flatMap((e) => e.inputs.map((i) => [`${e.entity}.${i.name}`, { entity: e.entity, input: i }] as const)));
  const before = byKey(base);
  const after = byKey(reform);
  const changes: InputChange[] = [];
  for (const [key, { entity, input }] of before) {
    const now = after.get(key);
    if (!now) {
      changes.push({ legal_id: input.legal_id, name: input.name, entity, change: 'removed', aspects: [], baseline: input, reform: null });
      continue;
    }
    const aspects = INPUT_ASPECTS.filter((k) => !same(input[k], now.input[k]));
    if (aspects.length) changes.push({ legal_id: now.input.legal_id, name: input.name, entity, change: 'changed', aspects, baseline: input, reform: now.input });
  }
  for (const [key, { entity, input }] of after) if (!before.has(key)) changes.push({ legal_id: input.legal_id, name: input.name, entity, change: 'added', aspects: [], baseline: null, reform: input });
  return changes.sort((a, b) => (a.legal_id < b.legal_id ? -1 : a.legal_id > b.legal_id ? 1 : 0));
}

/** Everything that differs between the rules of two sides, by legal id. */
export function rulesChange(base: ProgramSide, reform: ProgramSide): RulesChange {
  const rules: RuleChange[] = [];
  const b = base.exec;
  const r = reform.exec;
  for (const rule of b.rules) {
    const index = r.ruleById.get(rule.id);
    if (index === undefined) {
      rules.push({ legal_id: rule.id, name: rule.name, kind: 'derived', change: 'removed', aspects: [], baseline: derivedText(base, rule), reform: null });
      continue;
    }
    const other = r.rules[index];
    const aspects = derivedAspects(base, reform, rule, other);
    if (aspects.length) rules.push({ legal_id: rule.id, name: rule.name, kind: 'derived', change: 'changed', aspects, baseline: derivedText(base, rule), reform: derivedText(reform, other) });
  }
  for (const rule of r.rules) if (!b.ruleById.has(rule.id)) rules.push({ legal_id: rule.id, name: rule.name, kind: 'derived', change: 'added', aspects: [], baseline: null, reform: derivedText(reform, rule) });

  const baseParams = new Set(b.parameters.map((p) => p.id));
  const reformParams = new Map(r.parameters.map((p) => [p.id, p]));
  for (const param of b.parameters) {
    const other = reformParams.get(param.id);
    if (!other) {
      rules.push({ legal_id: param.id, name: param.name, kind: 'parameter', change: 'removed', aspects: [], baseline: parameterText(base, param), reform: null });
      continue;
    }
    const aspects = parameterAspects(base, reform, param, other);
    if (aspects.length) rules.push({ legal_id: param.id, name: param.name, kind: 'parameter', change: 'changed', aspects, baseline: parameterText(base, param), reform: parameterText(reform, other) });
  }
  for (const param of r.parameters) if (!baseParams.has(param.id)) rules.push({ legal_id: param.id, name: param.name, kind: 'parameter', change: 'added', aspects: [], baseline: null, reform: parameterText(reform, param) });

  for (const rel of b.relations) {
    const index = r.relationById.get(rel.id);
    if (index === undefined) rules.push({ legal_id: rel.id, name: rel.name, kind: 'relation', change: 'removed', aspects: [], baseline: relationText(base, rel), reform: null });
    else if (base.relationForm(rel.index) !== reform.relationForm(index)) rules.push({ legal_id: rel.id, name: rel.name, kind: 'relation', change: 'changed', aspects: ['definition'], baseline: relationText(base, rel), reform: relationText(reform, r.relations[index]) });
  }
  for (const rel of r.relations) if (!b.relationById.has(rel.id)) rules.push({ legal_id: rel.id, name: rel.name, kind: 'relation', change: 'added', aspects: [], baseline: null, reform: relationText(reform, rel) });
  rules.sort((x, y) => (x.legal_id < y.legal_id ? -1 : x.legal_id > y.legal_id ? 1 : 0));

  const inputs = inputChanges(base, reform);
  const names = (side: ProgramSide) => new Set(side.loaded.pkg.outputs.map((o) => o.name));
  const [before, after] = [names(base), names(reform)];
  const outputs = { added: [...after].filter((o) => !before.has(o)), removed: [...before].filter((o) => !after.has(o)) };
  const count = (change: string) => rules.filter((x) => x.change === change).length;
  const countInputs = (change: string) => inputs.filter((x) => x.change === change).length;
  return {
    unchanged: !rules.length && !inputs.length && !outputs.added.length && !outputs.removed.length,
    rules,
    inputs,
    outputs,
    counts: { added: count('added'), removed: count('removed'), changed: count('changed'), inputs_added: countInputs('added'), inputs_removed: countInputs('removed'), inputs_changed: countInputs('changed') },
  };
}
