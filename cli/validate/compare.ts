import type { MappingTable, OutputMapping } from '../../server/migration/mapping.js';
import type { IgnoredInput } from '../../server/migration/run.js';
import type { Departure, Values } from './departures.js';
import type { ReferenceCase, ReferenceSet } from '../../server/migration/reference.js';
import { prove, type Difference, type Proof } from './prove.js';
import type { CaseOutcome, Runner } from './runner.js';

export type { Difference } from './prove.js';

// Our values against the reference engine's, per variable and per household, in the
// validation-run format: one row per variable (`parity_match` when every household agrees
// within the tolerance, `parity_diff` otherwise, `uncovered` when we cannot compute it), and a
// `drift_diff` row for a variable whose values moved since the previous run. Every household
// that differs is put to its counterfactual proof (prove.ts): `explained` when the departures
// of the reference engine it may come from, applied, land on the reference values; otherwise
// `unexplained`, with the rule of ours where the two part.

export interface FirstDifference {
  /** The deepest variable that differs (with every attributed departure applied, when any was). */
  variable: string;
  rule: string | null;
  source: string | null;
}

export interface CaseReport {
  id: string;
  set: string | null;
  state: string | null;
  /** `uncovered`: no package serves the household's state, so nothing was compared. */
  status: 'match' | 'differ' | 'error' | 'uncovered';
  latency_ms: number;
  differences: Difference[];
  proof?: Proof;
  first_difference?: FirstDifference;
  /** The reference engine's values, beside ours (`values`), for a household no departure explains. */
  reference?: Record<string, unknown>;
  uncovered: { variable: string; reason: string }[];
  ignored_inputs: IgnoredInput[];
  error?: string;
  /** Our value of every compared variable (kept for drift detection on the next run). */
  values: Record<string, unknown>;
}

export interface VariableRow {
  variable: string;
  status: 'parity_match' | 'parity_diff' | 'uncovered' | 'drift_diff';
  cases: number;
  matching: number;
  different: number;
  /** Of the households that differ here: those whose difference a departure's counterfactual proves, and the others. */
  explained?: number;
  unexplained?: number;
  uncovered: number;
  match_rate: number | null;
  ours?: string;
  tolerance?: number;
  worst?: (Difference & { case: string; class: Proof['class']; departures: string[] })[];
  changed?: { case: string; previous: unknown; current: unknown }[];
  note?: string;
}

export interface DepartureCount {
  id: string;
  /** Households it is part of the proof of. */
  explained: number;
  /** Households it was applied to that stay unexplained. */
  unexplained: number;
}

export interface Validation {
  main: string;
  rows: VariableRow[];
  cases: CaseReport[];
  by_set: { set: string; cases: number; matching: number }[];
  departures: Departure[];
  by_departure: DepartureCount[];
}

const WORST = 5;
const CENT = 0.01;

function agrees(output: OutputMapping | undefined, ours: unknown, reference: unknown, tolerance: number): boolean {
  if (typeof reference === 'number') return typeof ours === 'number' && Math.abs(ours - reference) <= (output?.kind === 'amount' ? tolerance : 0) + 1e-9;
  return ours === reference;
}

/** The variables compared: every recorded variable of the reference set, in the tables' order first. */
export function comparedVariables(references: ReferenceSet, tables: MappingTable[]): string[] {
  const recorded = new Set(references.cases.flatMap((c) => Object.keys(c.expected)));
  const ordered = [...new Set(tables.flatMap((t) => t.outputs.map((o) => o.variable)))].filter((v) => recorded.has(v));
  return [...ordered, ...[...recorded].filter((v) => !ordered.includes(v)).sort()];
}

export async function compare(
  references: ReferenceSet,
  outcomes: CaseOutcome[],
  options: { tables: MappingTable[]; tolerance: number; departures: Departure[]; runner: Runner; period: string; previous?: Map<string, Record<string, unknown>>; onProof?: (done: number, total: number) => void },
): Promise<Validation> {
  const variables = comparedVariables(references, options.tables);
  const outputs = new Map(options.tables.flatMap((t) => t.outputs.map((o) => [o.variable, o] as const)));
  const tableOf = (c: ReferenceCase) => options.tables.find((t) => t.state === c.state) ?? options.tables[0];
  const main = variables.includes('snap') ? 'snap' : variables[0];
  const differencesOf = (values: Values, expected: Record<string, unknown>, tolerance = options.tolerance): Difference[] =>
    variables
      .filter((v) => v in expected && v in values && !agrees(outputs.get(v), values[v], expected[v], tolerance))
      .map((v) => {
        const [ours, reference] = [values[v], expected[v]];
        return { variable: v, ours, reference, ...(typeof ours === 'number' && typeof reference === 'number' ? { delta: Math.round((ours - reference) * 100) / 100 } : {}) };
      });
  const cases: CaseReport[] = references.cases.map((c, i) => {
    const outcome = outcomes[i];
    const uncovered = variables
      .filter((v) => v in c.expected && !(v in outcome.values))
      .map((v) => ({ variable: v, reason: outcome.unsupported.find((u) => u.variable === v)?.reason ?? outcome.uncovered ?? outcome.error ?? 'not computed' }));
    const differences = differencesOf(outcome.values, c.expected);
    return {
      id: c.id,
      set: c.set ?? null,
      state: c.state ?? null,
      status: outcome.error ? 'error' : outcome.uncovered ? 'uncovered' : differences.length ? 'differ' : 'match',
      latency_ms: outcome.latency_ms,
      differences,
      uncovered,
      ignored_inputs: outcome.ignored_inputs,
      values: outcome.values,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  });

  // The reference engine rounds each recorded amount to cents on its own (its earned and
  // unearned income need not add up to its gross income to the cent), so a counterfactual that
  // recomputes a sum from prorated parts lands when it is within the tolerance or a cent.
  const landing = Math.max(options.tolerance, CENT);
  const context = { departures: options.departures, runner: options.runner, variables, period: options.period, differencesOf: (values: Values, expected: Record<string, unknown>) => differencesOf(values, expected, landing) };
  const differing = cases.filter((r) => r.status === 'differ');
  for (const [done, report] of differing.entries()) {
    const c = references.cases.find((r) => r.id === report.id)!;
    report.proof = await prove(c, report.values, report.differences, context);
    if (report.proof.class === 'unexplained') {
      // where the two engines part: in the least that is left, as recorded or with departures applied
      const closest = [report.differences, ...report.proof.attempts.filter((a) => !a.error).map((a) => a.differences)].reduce((best, d) => (d.length < best.length ? d : best));
      report.first_difference = await firstDifference(closest, tableOf(c), options.runner);
      report.reference = c.expected;
    } else report.first_difference = await firstDifference(report.differences, tableOf(c), options.runner);
    options.onProof?.(done + 1, differing.length);
  }

  const rows: VariableRow[] = variables.map((variable) => {
    const relevant = cases.filter((c) => variable in (references.cases.find((r) => r.id === c.id)?.expected ?? {}));
    const uncoveredCount = relevant.filter((c) => c.uncovered.some((u) => u.variable === variable)).length;
    const diffs = relevant.flatMap((c) =>
      c.differences.filter((d) => d.variable === variable).map((d) => ({ ...d, case: c.id, class: c.proof!.class, departures: c.proof!.proved_by })),
    );
    const compared = relevant.length - uncoveredCount;
    const output = outputs.get(variable);
    const status: VariableRow['status'] = compared === 0 ? 'uncovered' : diffs.length ? 'parity_diff' : 'parity_match';
    const unexplained = diffs.filter((d) => d.class === 'unexplained');
    return {
      variable,
      status,
      cases: relevant.length,
      matching: compared - diffs.length,
      different: diffs.length,
      explained: diffs.length - unexplained.length,
      unexplained: unexplained.length,
      uncovered: uncoveredCount,
      match_rate: compared ? Math.round(((compared - diffs.length) / compared) * 10000) / 10000 : null,
      ...(output ? { ours: `${output.from === 'input' ? 'input ' : ''}${output.name}` } : { note: 'no mapping table answers this variable' }),
      ...(output?.kind === 'amount' ? { tolerance: options.tolerance } : {}),
      // unexplained differences first, then the largest
      ...(diffs.length ? { worst: diffs.sort((a, b) => Number(b.class === 'unexplained') - Number(a.class === 'unexplained') || Math.abs(b.delta ?? Infinity) - Math.abs(a.delta ?? Infinity)).slice(0, WORST) } : {}),
      ...(output?.note ? { note: output.note } : {}),
    };
  });
  if (options.previous) rows.push(...driftRows(variables, cases, options.previous));

  const sets = [...new Set(cases.map((c) => c.set ?? 'all'))];
  const by_set = sets.map((set) => {
    const inSet = cases.filter((c) => (c.set ?? 'all') === set && !c.uncovered.some((u) => u.variable === main));
    return { set, cases: inSet.length, matching: inSet.filter((c) => !c.differences.some((d) => d.variable === main) && c.status !== 'error').length };
  });
  const by_departure = options.departures.map((d) => ({
    id: d.id,
    explained: differing.filter((c) => c.proof!.proved_by.includes(d.id)).length,
    unexplained: differing.filter((c) => c.proof!.class === 'unexplained' && c.proof!.attributed.includes(d.id)).length,
  }));
  return { main, rows, cases, by_set, departures: options.departures, by_departure };
}

/** The deepest differing variable (the tables list outputs from the benefit down to its inputs) and the rule behind our value. */
async function firstDifference(differences: Difference[], table: MappingTable, runner: Runner): Promise<FirstDifference> {
  const order = table.outputs.map((o) => o.variable);
  const first = [...differences].sort((a, b) => order.indexOf(b.variable) - order.indexOf(a.variable))[0];
  const output = table.outputs.find((o) => o.variable === first.variable);
  const rule = output && output.from !== 'input' ? await runner.ruleOf(table.jurisdiction, table.program_id, output.name) : undefined;
  return {
    variable: first.variable,
    rule: rule?.rule ?? (output?.from === 'input' ? `input ${output.name}` : null),
    source: rule?.source ?? (output?.from === 'input' ? `mapped from the household by the ${table.jurisdiction} table` : null),
  };
}

function driftRows(variables: string[], cases: CaseReport[], previous: Map<string, Record<string, unknown>>): VariableRow[] {
  const rows: VariableRow[] = [];
  for (const variable of variables) {
    const changed = cases.flatMap((c) => {
      const before = previous.get(c.id);
      if (!before || !(variable in before) || !(variable in c.values)) return [];
      return JSON.stringify(before[variable]) === JSON.stringify(c.values[variable]) ? [] : [{ case: c.id, previous: before[variable], current: c.values[variable] }];
    });
    if (!changed.length) continue;
    const compared = cases.filter((c) => previous.get(c.id) && variable in (previous.get(c.id) ?? {}) && variable in c.values).length;
    rows.push({ variable, status: 'drift_diff', cases: compared, matching: compared - changed.length, different: changed.length, uncovered: 0, match_rate: compared ? Math.round(((compared - changed.length) / compared) * 10000) / 10000 : null, changed: changed.slice(0, WORST), note: 'our value moved since the previous run' });
  }
  return rows;
}
