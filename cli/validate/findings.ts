import type { GraphRule, ProgramGraph } from '../../compiler/4-package/package-types.js';
import { SNAP_OUTPUTS } from '../../server/migration/policyengine-us.js';
import type { CaseOutcome } from './runner.js';

// Where a difference no departure of the reference engine explains starts in the served corpus.
// The compared variables are answered by package rules (or by inputs the mapping tables fed);
// the rule whose value differs first is the one none of whose compared dependencies (the rules
// beneath it in the package's graph that answer other compared variables) differs: the corpus
// computes a different value from values both engines agree on. That is a corpus finding, with
// the rule, its legal source, its formula and both values; the inputs beneath it that nothing in
// the household fed (read at the package's defaults) are listed with it, so a maintainer sees
// what it rests on. When the first difference is a value the tables fed the package, or lies in
// variables the package does not compute, it is no finding: the household stays unexplained,
// with that diagnosis.

/** A compared variable whose value is not the reference engine's. */
export interface Difference {
  variable: string;
  ours: unknown;
  reference: unknown;
  delta?: number;
}

export interface Finding {
  /** The reference engine's variable whose value differs first. */
  variable: string;
  rule: string;
  source: string | null;
  formula: string | null;
  ours: unknown;
  reference: unknown;
  /** Departures applied before the difference was located (their counterfactual explained the rest). */
  departures: string[];
  /** Other rules that differ first on chains of their own. */
  also: { variable: string; rule: string; ours: unknown; reference: unknown }[];
  /** Inputs beneath the rule the answer read at the package's defaults, which nothing in the household feeds. */
  unfed: string[];
}

export type Location = { finding: Finding } | { diagnosis: string };

type Answer = { rule?: string; input?: string };

/** Every rule a rule reads, through the graph (legal ids), and every input read beneath it (names). */
function beneath(graph: ProgramGraph, ruleId: string): { rules: Set<string>; inputs: Set<string> } {
  const byId = new Map(graph.rules.map((r) => [r.legalId, r]));
  const rules = new Set<string>();
  const inputs = new Set<string>();
  const walk = (r: GraphRule | undefined) => {
    if (!r) return;
    for (const i of r.inputDeps) inputs.add(i.slice(i.indexOf('#input.') + '#input.'.length));
    for (const dep of r.ruleDeps) {
      if (rules.has(dep)) continue;
      rules.add(dep);
      walk(byId.get(dep));
    }
  };
  walk(byId.get(ruleId));
  return { rules, inputs };
}

export function locate(residual: Difference[], departures: string[], outcome: CaseOutcome, graph: ProgramGraph | undefined): Location {
  const pkg = outcome.package ? `${outcome.package.jurisdiction}/${outcome.package.program_id}` : 'the package';
  const answer = (d: Difference): Answer => outcome.answered_by[d.variable] ?? {};
  const byRule = residual.filter((d) => answer(d).rule);
  const byInput = residual.filter((d) => answer(d).input);
  if (!byRule.length && !byInput.length) return { diagnosis: `it differs only in ${residual.map((d) => d.variable).join(', ')}, which ${pkg} does not compute` };
  const depth = (v: string) => SNAP_OUTPUTS.findIndex((o) => o.variable === v);
  if (!graph) {
    const deepest = [...residual].sort((a, b) => depth(b.variable) - depth(a.variable))[0];
    return { diagnosis: `no graph of ${pkg} to locate the first difference (deepest: ${deepest.variable})` };
  }
  const under = new Map(byRule.map((d) => [d.variable, beneath(graph, answer(d).rule!)]));
  // a fed value that differs beneath a differing rule: the difference starts in the mapping
  for (const d of byRule) {
    const fed = byInput.find((i) => under.get(d.variable)!.inputs.has(answer(i).input!));
    if (fed) return { diagnosis: fedDiagnosis(fed, answer(fed).input!, pkg) };
  }
  const first = byRule.filter((d) => !byRule.some((o) => o !== d && under.get(d.variable)!.rules.has(answer(o).rule!)));
  if (!first.length) return { diagnosis: fedDiagnosis(byInput[0], answer(byInput[0]).input!, pkg) };
  first.sort((a, b) => depth(b.variable) - depth(a.variable));
  const [lead, ...others] = first;
  const rule = graph.rules.find((r) => r.legalId === answer(lead).rule);
  const assumed = new Set(outcome.assumed.filter((a) => !a.fed_by.length && !a.presumed).map((a) => a.input));
  return {
    finding: {
      variable: lead.variable,
      rule: answer(lead).rule!,
      source: rule?.source ?? null,
      formula: rule?.formula ?? null,
      ours: lead.ours,
      reference: lead.reference,
      departures,
      also: others.map((d) => ({ variable: d.variable, rule: answer(d).rule!, ours: d.ours, reference: d.reference })),
      unfed: [...under.get(lead.variable)!.inputs].filter((i) => assumed.has(i)).sort(),
    },
  };
}

function fedDiagnosis(d: Difference, input: string, pkg: string): string {
  const fed = `${d.variable} is the value the mapping tables fed ${pkg}'s input ${input} (ours ${JSON.stringify(d.ours)}, the reference engine ${JSON.stringify(d.reference)})`;
  // the reference engine's empty unit: the package takes no household of size 0
  if (d.variable === 'snap_unit_size' && d.reference === 0) return `${fed}: the reference engine leaves no member in the unit, and ${pkg} takes a household size of at least 1, so the tables count every member (each ineligible)`;
  return `${fed}: the difference starts in the mapping, not in a rule`;
}
