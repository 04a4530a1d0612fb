import type { MappingTable, OutputMapping } from '../../server/migration/mapping.js';
import type { IgnoredInput } from '../../server/migration/run.js';
import type { Departure } from './departures.js';
import type { ReferenceCase, ReferenceSet } from '../../server/migration/reference.js';
import type { CaseOutcome, Runner } from './runner.js';

// Our values against the reference engine's, per variable and per household, in the
// validation-run format: one row per variable (`parity_match` when every household agrees
// within the tolerance, `parity_diff` otherwise, `uncovered` when we cannot compute it), and a
// `drift_diff` row for a variable whose values moved since the previous run. Every difference
// is explained: by a known departure of the reference engine from the law, or by the rule
// (and its legal source) that produced our value.

export interface Difference {
  variable: string;
  ours: unknown;
  reference: unknown;
  delta?: number;
}

export interface Explanation {
  /** Known departures of the reference engine that account for the difference. */
  departures: string[];
  /** The first intermediate that differs, with the rule that produced our value. */
  variable: string;
  rule: string | null;
  source: string | null;
}

export interface CaseReport {
  id: string;
  set: string | null;
  state: string | null;
  status: 'match' | 'differ' | 'error';
  latency_ms: number;
  differences: Difference[];
  explanation?: Explanation;
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
  uncovered: number;
  match_rate: number | null;
  ours?: string;
  tolerance?: number;
  worst?: (Difference & { case: string; departures: string[] })[];
  changed?: { case: string; previous: unknown; current: unknown }[];
  note?: string;
}

export interface Validation {
  main: string;
  rows: VariableRow[];
  cases: CaseReport[];
  by_set: { set: string; cases: number; matching: number }[];
  departures: Departure[];
}

const WORST = 5;

function agrees(output: OutputMapping | undefined, ours: unknown, reference: unknown, tolerance: number): boolean {
  if (typeof reference === 'number') return typeof ours === 'number' && Math.abs(ours - reference) <= (output?.kind === 'amount' ? tolerance : 0);
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
  options: { tables: MappingTable[]; tolerance: number; departures: Departure[]; runner: Runner; period: string; previous?: Map<string, Record<string, unknown>> },
): Promise<Validation> {
  const variables = comparedVariables(references, options.tables);
  const outputs = new Map(options.tables.flatMap((t) => t.outputs.map((o) => [o.variable, o] as const)));
  const tableOf = (c: ReferenceCase) => options.tables.find((t) => t.state === c.state) ?? options.tables[0];
  const main = variables.includes('snap') ? 'snap' : variables[0];
  const cases: CaseReport[] = [];
  for (const [i, c] of references.cases.entries()) {
    const outcome = outcomes[i];
    const differences: Difference[] = [];
    const uncovered: CaseReport['uncovered'] = [];
    for (const v of variables) {
      if (!(v in c.expected)) continue;
      if (!(v in outcome.values)) {
        const why = outcome.unsupported.find((u) => u.variable === v)?.reason ?? outcome.error ?? 'not computed';
        uncovered.push({ variable: v, reason: why });
        continue;
      }
      const ours = outcome.values[v];
      const reference = c.expected[v];
      if (!agrees(outputs.get(v), ours, reference, options.tolerance)) {
        differences.push({ variable: v, ours, reference, ...(typeof ours === 'number' && typeof reference === 'number' ? { delta: Math.round((ours - reference) * 100) / 100 } : {}) });
      }
    }
    const report: CaseReport = {
      id: c.id,
      set: c.set ?? null,
      state: c.state ?? null,
      status: outcome.error ? 'error' : differences.length ? 'differ' : 'match',
      latency_ms: outcome.latency_ms,
      differences,
      uncovered,
      ignored_inputs: outcome.ignored_inputs,
      values: outcome.values,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    if (differences.length) report.explanation = await explain(c, outcome, differences, tableOf(c), options);
    cases.push(report);
  }

  const rows: VariableRow[] = variables.map((variable) => {
    const relevant = cases.filter((c) => variable in (references.cases.find((r) => r.id === c.id)?.expected ?? {}));
    const uncoveredCount = relevant.filter((c) => c.uncovered.some((u) => u.variable === variable)).length;
    const diffs = relevant.flatMap((c) => c.differences.filter((d) => d.variable === variable).map((d) => ({ ...d, case: c.id, departures: c.explanation?.departures ?? [] })));
    const compared = relevant.length - uncoveredCount;
    const output = outputs.get(variable);
    const status: VariableRow['status'] = compared === 0 ? 'uncovered' : diffs.length ? 'parity_diff' : 'parity_match';
    return {
      variable,
      status,
      cases: relevant.length,
      matching: compared - diffs.length,
      different: diffs.length,
      uncovered: uncoveredCount,
      match_rate: compared ? Math.round(((compared - diffs.length) / compared) * 10000) / 10000 : null,
      ...(output ? { ours: `${output.from === 'input' ? 'input ' : ''}${output.name}` } : { note: 'no mapping table answers this variable' }),
      ...(output?.kind === 'amount' ? { tolerance: options.tolerance } : {}),
      ...(diffs.length ? { worst: diffs.sort((a, b) => Math.abs(b.delta ?? Infinity) - Math.abs(a.delta ?? Infinity)).slice(0, WORST) } : {}),
      ...(output?.note ? { note: output.note } : {}),
    };
  });
  if (options.previous) rows.push(...driftRows(variables, cases, options.previous));

  const sets = [...new Set(cases.map((c) => c.set ?? 'all'))];
  const by_set = sets.map((set) => {
    const inSet = cases.filter((c) => (c.set ?? 'all') === set && !c.uncovered.some((u) => u.variable === main));
    return { set, cases: inSet.length, matching: inSet.filter((c) => !c.differences.some((d) => d.variable === main) && c.status !== 'error').length };
  });
  return { main, rows, cases, by_set, departures: options.departures };
}

/** Which departures account for a household's differences, else the rule behind the first one. */
async function explain(c: ReferenceCase, outcome: CaseOutcome, differences: Difference[], table: MappingTable, options: { departures: Departure[]; runner: Runner; period: string }): Promise<Explanation> {
  const departures = options.departures.filter((d) => d.variables.some((v) => differences.some((x) => x.variable === v)) && d.applies(c, outcome.values, options.period));
  // the table lists outputs from the benefit down to its inputs: the deepest differing one is the cause
  const order = table.outputs.map((o) => o.variable);
  const first = [...differences].sort((a, b) => order.indexOf(b.variable) - order.indexOf(a.variable))[0];
  const output = table.outputs.find((o) => o.variable === first.variable);
  const rule = output && output.from !== 'input' ? await options.runner.ruleOf(table.jurisdiction, table.program_id, output.name) : undefined;
  return {
    departures: departures.map((d) => d.id),
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
