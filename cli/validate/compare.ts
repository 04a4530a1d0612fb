import type { OutputMapping } from '../../server/migration/mapping.js';
import { SNAP_OUTPUTS } from '../../server/migration/policyengine-us.js';
import type { IgnoredInput } from '../../server/migration/run.js';
import type { Departure, Values } from './departures.js';
import type { ReferenceCase, ReferenceSet } from '../../server/migration/reference.js';
import { locate } from './findings.js';
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
  /** Recorded variables the household's package has no rule for (not compared; the ledger lists them per package). */
  unanswered: string[];
  /** The package that answered. */
  package?: { jurisdiction: string; program_id: string };
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
  /** Of the households that differ here: those whose difference a departure's counterfactual proves, those it locates in a rule of the corpus, and the others. */
  explained?: number;
  findings?: number;
  unexplained?: number;
  uncovered: number;
  /** Households whose package has no rule for the variable. */
  unanswered?: number;
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
  /** Households it was applied to that it does not explain (a corpus finding or unexplained). */
  unexplained: number;
}

/** One state's households: how many, how many agree on the main variable, and how the others are accounted for. */
export interface StateCount {
  state: string;
  households: number;
  matching: number;
  explained: number;
  findings: number;
  unexplained: number;
  errored: number;
  uncovered: number;
  /** The packages that answered (jurisdiction/program id). */
  packages: string[];
}

export interface Validation {
  main: string;
  rows: VariableRow[];
  cases: CaseReport[];
  by_set: { set: string; cases: number; matching: number }[];
  by_state: StateCount[];
  departures: Departure[];
  by_departure: DepartureCount[];
}

const WORST = 5;
const rank = (cls: Proof['class']) => (cls === 'unexplained' ? 2 : cls === 'finding' ? 1 : 0);
const CENT = 0.01;

function agrees(output: Pick<OutputMapping, 'kind'> | undefined, ours: unknown, reference: unknown, tolerance: number): boolean {
  if (typeof reference === 'number') return typeof ours === 'number' && Math.abs(ours - reference) <= (output?.kind === 'amount' ? tolerance : 0) + 1e-9;
  return ours === reference;
}

/** The variables compared: every recorded variable of the reference set, the tables' outputs first, from the benefit down. */
export function comparedVariables(references: ReferenceSet): string[] {
  const recorded = new Set(references.cases.flatMap((c) => Object.keys(c.expected)));
  const ordered = SNAP_OUTPUTS.map((o) => o.variable).filter((v) => recorded.has(v));
  return [...ordered, ...[...recorded].filter((v) => !ordered.includes(v)).sort()];
}

export async function compare(
  references: ReferenceSet,
  outcomes: CaseOutcome[],
  options: { tolerance: number; departures: Departure[]; runner: Runner; period: string; previous?: Map<string, Record<string, unknown>>; onProof?: (done: number, total: number) => void },
): Promise<Validation> {
  const variables = comparedVariables(references);
  const outputs = new Map(SNAP_OUTPUTS.map((o) => [o.variable, o] as const));
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
    const missing = variables.filter((v) => v in c.expected && !(v in outcome.values));
    const notInPackage = new Set(outcome.unsupported.filter((u) => u.code === 'not_in_package').map((u) => u.variable));
    const uncovered = missing
      .filter((v) => !notInPackage.has(v))
      .map((v) => ({ variable: v, reason: outcome.unsupported.find((u) => u.variable === v)?.reason ?? outcome.uncovered ?? outcome.error ?? 'not computed' }));
    const differences = differencesOf(outcome.values, c.expected);
    // an answer without the main variable compares nothing that matters: the household failed
    const mainMissing = !outcome.error && !outcome.uncovered && uncovered.find((u) => u.variable === main);
    const error = outcome.error ?? (mainMissing ? `${main} not computed: ${mainMissing.reason}` : undefined);
    return {
      id: c.id,
      set: c.set ?? null,
      state: c.state ?? null,
      status: error ? 'error' : outcome.uncovered ? 'uncovered' : differences.length ? 'differ' : 'match',
      latency_ms: outcome.latency_ms,
      differences,
      uncovered,
      unanswered: missing.filter((v) => notInPackage.has(v)),
      ...(outcome.package ? { package: outcome.package } : {}),
      ignored_inputs: outcome.ignored_inputs,
      values: outcome.values,
      ...(error ? { error } : {}),
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
    const outcome = outcomes[references.cases.indexOf(c)];
    report.proof = await prove(c, report.values, report.differences, context);
    if (report.proof.class === 'unexplained') {
      // where the two engines part: in the least that is left, as recorded or with departures applied
      // (the fewest variables left, then the nearest: departures that bring the values closer explain that much)
      const gap = (a: { differences: Difference[] }) => a.differences.reduce((sum, d) => sum + (d.delta === undefined ? 1 : Math.abs(d.delta)), 0);
      const closest = [{ departures: [] as string[], differences: report.differences }, ...report.proof.attempts.filter((a) => !a.error)].reduce((best, a) =>
        a.differences.length < best.differences.length || (a.differences.length === best.differences.length && gap(a) < gap(best)) ? a : best,
      );
      report.first_difference = await firstDifference(closest.differences, outcome, options.runner);
      const located = locate(closest.differences, closest.departures, outcome, outcome.package ? await options.runner.graph(outcome.package.jurisdiction, outcome.package.program_id) : undefined);
      if ('finding' in located) report.proof = { ...report.proof, class: 'finding', finding: located.finding };
      else report.proof = { ...report.proof, diagnosis: located.diagnosis };
      report.reference = c.expected;
    } else report.first_difference = await firstDifference(report.differences, outcome, options.runner);
    options.onProof?.(done + 1, differing.length);
  }

  /** What answers a variable across the packages that answered it: rule names, or `input <name>`. */
  const answeredBy = (variable: string) =>
    [...new Set(outcomes.map((o) => o.answered_by[variable]).filter(Boolean).map((a) => (a.rule ? a.rule.slice(a.rule.indexOf('#') + 1) : a.input ? `input ${a.input}` : '')))].filter(Boolean).join(', ');
  const rows: VariableRow[] = variables.map((variable) => {
    const relevant = cases.filter((c) => variable in (references.cases.find((r) => r.id === c.id)?.expected ?? {}));
    const uncoveredCount = relevant.filter((c) => c.uncovered.some((u) => u.variable === variable)).length;
    const unansweredCount = relevant.filter((c) => c.unanswered.includes(variable)).length;
    const diffs = relevant.flatMap((c) =>
      c.differences.filter((d) => d.variable === variable).map((d) => ({ ...d, case: c.id, class: c.proof!.class, departures: c.proof!.proved_by })),
    );
    const compared = relevant.length - uncoveredCount - unansweredCount;
    const output = outputs.get(variable);
    const status: VariableRow['status'] = compared === 0 ? 'uncovered' : diffs.length ? 'parity_diff' : 'parity_match';
    const count = (cls: Proof['class']) => diffs.filter((d) => d.class === cls).length;
    return {
      variable,
      status,
      cases: relevant.length,
      matching: compared - diffs.length,
      different: diffs.length,
      explained: count('explained'),
      findings: count('finding'),
      unexplained: count('unexplained'),
      uncovered: uncoveredCount,
      ...(unansweredCount ? { unanswered: unansweredCount } : {}),
      match_rate: compared ? Math.round(((compared - diffs.length) / compared) * 10000) / 10000 : null,
      ...(answeredBy(variable) ? { ours: answeredBy(variable) } : { note: 'no mapping table answers this variable' }),
      ...(output?.kind === 'amount' ? { tolerance: options.tolerance } : {}),
      // unexplained differences first, then findings, then the largest
      ...(diffs.length ? { worst: diffs.sort((a, b) => rank(b.class) - rank(a.class) || Math.abs(b.delta ?? Infinity) - Math.abs(a.delta ?? Infinity)).slice(0, WORST) } : {}),
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
    unexplained: differing.filter((c) => c.proof!.class !== 'explained' && c.proof!.attributed.includes(d.id)).length,
  }));
  const states = [...new Set(cases.map((c) => c.state ?? 'no state'))];
  const by_state = states.map((state): StateCount => {
    const mine = cases.filter((c) => (c.state ?? 'no state') === state);
    const cls = (k: Proof['class']) => mine.filter((c) => c.proof?.class === k).length;
    return {
      state,
      households: mine.length,
      matching: mine.filter((c) => (c.status === 'match' || c.status === 'differ') && !c.differences.some((d) => d.variable === main)).length,
      explained: cls('explained'),
      findings: cls('finding'),
      unexplained: cls('unexplained'),
      errored: mine.filter((c) => c.status === 'error').length,
      uncovered: mine.filter((c) => c.status === 'uncovered').length,
      packages: [...new Set(mine.flatMap((c) => (c.package ? [`${c.package.jurisdiction}/${c.package.program_id}`] : [])))],
    };
  });
  return { main, rows, cases, by_set, by_state, departures: options.departures, by_departure };
}

/** The deepest differing variable (outputs run from the benefit down to its inputs) and the rule behind our value. */
async function firstDifference(differences: Difference[], outcome: CaseOutcome, runner: Runner): Promise<FirstDifference> {
  const order = SNAP_OUTPUTS.map((o) => o.variable);
  const first = [...differences].sort((a, b) => order.indexOf(b.variable) - order.indexOf(a.variable))[0];
  const by = outcome.answered_by[first.variable] ?? {};
  const rule = by.rule && outcome.package ? await runner.ruleOf(outcome.package.jurisdiction, outcome.package.program_id, by.rule) : undefined;
  return {
    variable: first.variable,
    rule: rule?.rule ?? (by.input ? `input ${by.input}` : null),
    source: rule?.source ?? (by.input ? `mapped from the household by the ${outcome.package?.jurisdiction ?? ''} tables` : null),
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
