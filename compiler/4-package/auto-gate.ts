import { referencedNames } from '../1-parse/formula/ast.js';
import { valueKind } from '../dtypes.js';
import type { ParsedModule, RuleDecl } from '../1-parse/module.js';
import type { SourceTree } from '../2-resolve/source-tree.js';
import type { ProgramSpec } from './program-spec.js';

// `auto_gate_outputs` (docs/rulespec.md §9.2): a Judgment output the spec's own transformations
// define is AND-gated with the household-level eligibility gates in scope that it does not
// already reach, as axiom-compose composes it. A gate is a Judgment rule (or one without a
// dtype) whose name belongs to the program (`snap` for `us-al/snap`: `snap_…`, `…_snap_…`) and
// ends in `_income_eligible`, `_resource_eligible` or `_residency_eligible`; gates another gate
// reaches are left to it, so the OR the encoding writes inside a rolled-up gate stands. The
// output's own rule becomes `<name>_core`, and `<name>` is `<name>_core and <gate> and …`. An
// output no transformation of the spec defines is served as its module defines it (the composer
// gates only the spec's own rules), and so is an output that is no Judgment (an amount cannot be
// AND-ed); the package's notes say which.

/** The eligibility tests that gate a whole household (categorical eligibility is an alternative to the income test, not a gate). */
const HOUSEHOLD_GATE_SUFFIXES = ['_income_eligible', '_resource_eligible', '_residency_eligible'];

export interface OutputGate {
  output: string;
  /** The gates it is AND-ed with; empty when none is found in scope. */
  gates: string[];
  /** Why the output is served ungated although listed: no transformation of the spec defines it, or it is no Judgment. */
  skipped?: 'not_own_rule' | 'not_judgment';
}

/** The rule name the gated output's own rule takes. */
export const coreName = (output: string): string => `${output}_core`;

/** A Judgment as lowering reads the dtype, or a rule without one (the composer takes it for a gate). */
const isJudgment = (rule: Pick<RuleDecl, 'dtype'>): boolean => rule.dtype === undefined || valueKind(rule.dtype) === 'judgment';

/** The names a rule's formulas refer to (a name that is no rule is passed over where it is looked up). */
const namesRead = (rule: Pick<RuleDecl, 'versions'>): string[] => {
  const names = new Set<string>();
  for (const v of rule.versions) if (v.formula) referencedNames(v.formula.expr, names);
  return [...names];
};

/** Rules by name over the scope's modules, depth first with each module before its imports (the first definition of a name wins), then the spec's own. */
function rulesByName(spec: ProgramSpec, composed: ParsedModule, tree: SourceTree): Map<string, RuleDecl> {
  const byName = new Map<string, RuleDecl>();
  const seen = new Set<string>();
  const visit = (target: string) => {
    if (seen.has(target)) return;
    seen.add(target);
    const mod = tree.module(target);
    if (!mod) return;
    for (const rule of mod.rules) if (!byName.has(rule.name)) byName.set(rule.name, rule);
    for (const imp of mod.imports) visit(imp.target);
  };
  for (const { target } of spec.scope) visit(target);
  for (const rule of composed.rules) byName.set(rule.name, rule);
  return byName;
}

function reachable(start: string, byName: Map<string, RuleDecl>): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  for (let name = stack.pop(); name !== undefined; name = stack.pop()) {
    const rule = byName.get(name);
    if (seen.has(name) || !rule) continue;
    seen.add(name);
    stack.push(...namesRead(rule));
  }
  return seen;
}

/** The token a program's rules carry (`snap` for `us-al/snap`). */
const programToken = (spec: ProgramSpec): string => spec.programPath.split('/').pop()!.toLowerCase();

/** The gates of each of the spec's `auto_gate_outputs`, found in `composed` (the spec composed ungated) and the modules in its scope. */
export function findOutputGates(spec: ProgramSpec, composed: ParsedModule, tree: SourceTree): OutputGate[] {
  if (spec.autoGateOutputs.length === 0) return [];
  const byName = rulesByName(spec, composed, tree);
  const token = programToken(spec);
  const belongs = (name: string) => name === token || name.startsWith(`${token}_`) || name.includes(`_${token}_`);
  const gateNames = [...byName.values()].filter((r) => isJudgment(r) && belongs(r.name) && HOUSEHOLD_GATE_SUFFIXES.some((s) => r.name.endsWith(s))).map((r) => r.name);
  return spec.autoGateOutputs.map((output): OutputGate => {
    const rule = composed.rules.find((r) => r.name === output);
    if (!rule) return { output, gates: [], skipped: 'not_own_rule' };
    if (!isJudgment(rule)) return { output, gates: [], skipped: 'not_judgment' };
    const reached = reachable(output, byName);
    const candidates = gateNames.filter((name) => name !== output && !reached.has(name)).sort();
    const dominated = new Set(candidates.flatMap((c) => [...reachable(c, byName)].filter((d) => d !== c)));
    return { output, gates: candidates.filter((c) => !dominated.has(c)) };
  });
}

/** What the package's notes say about each gated output. */
export function gateNote(g: OutputGate): string {
  if (g.skipped === 'not_own_rule') return `auto_gate_outputs: ${g.output} is not defined by a transformation of the spec, so it is served as its module defines it, ungated`;
  if (g.skipped === 'not_judgment') return `auto_gate_outputs: ${g.output} is no Judgment, so it is served ungated (an amount cannot be AND-ed with eligibility gates)`;
  if (g.gates.length === 0) return `auto_gate_outputs: no household eligibility gate in scope that ${g.output} does not already reach; served as the spec defines it`;
  return `auto_gate_outputs: ${g.output} = ${[coreName(g.output), ...g.gates].join(' and ')} (the household eligibility gates in scope it did not reach)`;
}
