import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { ApiError } from './errors.js';
import type { CalculateResponse } from './calculation.js';
import type { Catalog } from './catalog/catalog.js';
import { walkFiles } from '../compiler/2-resolve/source-tree.js';
import { FIXTURES_DIR } from '../compiler/project.js';

// Canonical parity cases: households whose expected outputs were derived by hand from the law
// (fixtures/parity/*.yaml, each with its arithmetic in `notes`), run against the active runtime.
// A case may also carry external comparisons: what another engine (PolicyEngine-US) answered
// for the same household, recorded with its version and source; a run reports whether that
// recorded value agrees too. Where it does not, the law (the expected outputs) wins and the
// comparison's notes say why. The API routes and `rules parity` share this code.

export const PARITY_DIR = path.join(FIXTURES_DIR, 'parity');

/** How an external value becomes comparable with ours. */
const TRANSFORMS: Record<string, (value: number) => number> = {
  none: (v) => v,
  annual_to_monthly: (v) => v / 12,
  monthly_to_annual: (v) => v * 12,
};

export interface ExternalComparison {
  id: string;
  engine: string;
  /** The household in the external engine's own format, to re-run it there. */
  request?: unknown;
  /** Our variable, and where the same quantity sits in the external engine's response. */
  mappings: { axiom_variable: string; external_path: string; transform: string }[];
  trace_mappings: { axiom_variable: string; external_path: string; transform: string }[];
  notes: string[];
  tolerance: { amount: number };
  /** What the external engine answered, and where that answer comes from; absent when nobody recorded one. */
  recorded?: { engine_version: string; source: string; response: unknown };
}

export interface ParityCaseDef {
  id: string;
  program_id: string;
  jurisdiction: string;
  description?: string;
  household: Record<string, unknown>;
  variables: string[];
  expected: Record<string, unknown>;
  tolerance?: { amount?: number };
  notes?: string[];
  /** Variables whose values the run reports in `trace_outputs`: a name, or `{label: variable}`
   *  to report it under a short label (`{gross_income: snap_gross_income}`). */
  trace_variables?: (string | Record<string, string>)[];
  external_comparisons?: ExternalComparison[];
}

/** The trace variables of a case as (label, variable) pairs. */
function traceTargets(c: ParityCaseDef): [string, string][] {
  return (c.trace_variables ?? c.variables).flatMap((t) => (typeof t === 'string' ? [[t, t] as [string, string]] : Object.entries(t)));
}

function checkComparison(caseId: string, x: ExternalComparison, i: number): void {
  const where = `parity case ${caseId}: external_comparisons[${i}]`;
  if (!x || typeof x.id !== 'string' || typeof x.engine !== 'string' || !Array.isArray(x.mappings) || !x.mappings.length) throw new Error(`${where} needs id, engine and a non-empty mappings list`);
  for (const m of [...x.mappings, ...(x.trace_mappings ?? [])]) {
    if (typeof m.axiom_variable !== 'string' || typeof m.external_path !== 'string') throw new Error(`${where}: each mapping needs axiom_variable and external_path`);
    if (!(m.transform in TRANSFORMS)) throw new Error(`${where}: unknown transform \`${m.transform}\` (${Object.keys(TRANSFORMS).join(', ')})`);
  }
  if (typeof x.tolerance?.amount !== 'number') throw new Error(`${where} needs tolerance.amount`);
  if (x.recorded !== undefined && (typeof x.recorded.engine_version !== 'string' || typeof x.recorded.source !== 'string' || x.recorded.response === undefined)) {
    throw new Error(`${where}: recorded needs engine_version, source and response`);
  }
}

export function loadParityCases(dir = PARITY_DIR): ParityCaseDef[] {
  if (!existsSync(dir)) return [];
  const cases = walkFiles(dir, (n) => n.endsWith('.yaml')).flatMap((file) => {
    const doc = load(readFileSync(file, 'utf8'));
    if (!Array.isArray(doc)) throw new Error(`${file}: a parity file is a list of cases`);
    return doc as ParityCaseDef[];
  });
  const ids = new Set<string>();
  for (const c of cases) {
    if (!c.id || !c.program_id || !c.jurisdiction || !c.household || !c.expected) throw new Error(`parity case ${c.id ?? '?'} needs id, program_id, jurisdiction, household and expected`);
    if (ids.has(c.id)) throw new Error(`parity case id ${c.id} is used twice`);
    ids.add(c.id);
    (c.external_comparisons ?? []).forEach((x, i) => checkComparison(c.id, x, i));
  }
  return cases;
}

const requestOf = (c: ParityCaseDef): CalculateRequest => ({ program_id: c.program_id, jurisdiction: c.jurisdiction, household: c.household, variables: c.variables });

/** A case as GET /v1/parity/cases shows it. */
export function parityCaseView(c: ParityCaseDef, catalog: Catalog) {
  return {
    id: c.id,
    program_id: c.program_id,
    jurisdiction: c.jurisdiction,
    runtime_supported: catalog.packages.some((p) => p.program_id === c.program_id && p.jurisdiction === c.jurisdiction),
    axiom_request: requestOf(c),
    expected_axiom_outputs: c.expected,
    description: c.description ?? null,
    variables: c.variables,
    trace_variables: traceTargets(c).map(([label]) => label),
    notes: c.notes ?? [],
    external_comparisons: (c.external_comparisons ?? []).map((x) => ({ ...x, trace_mappings: x.trace_mappings ?? [], notes: x.notes ?? [] })),
    tolerance: { amount: c.tolerance?.amount ?? 0.005 },
  };
}

/** The value at a dotted path (`result.spm_units.spm.snap.2026-01`) of a recorded response. */
function valueAt(document: unknown, dotted: string): unknown {
  let node = document;
  for (const key of dotted.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** Whether each recorded external value agrees with what we computed, within the comparison's tolerance. */
function compareExternal(x: ExternalComparison, computed: Record<string, unknown>) {
  if (!x.recorded) return { id: x.id, engine: x.engine, status: 'not_recorded' as const, values: [], notes: x.notes ?? [] };
  const values = x.mappings.map((m) => {
    const raw = valueAt(x.recorded!.response, m.external_path);
    const external = typeof raw === 'number' ? Math.round(TRANSFORMS[m.transform](raw) * 1e6) / 1e6 : null;
    const ours = computed[m.axiom_variable];
    const delta = typeof ours === 'number' && external !== null ? Math.round((ours - external) * 1e6) / 1e6 : null;
    return { axiom_variable: m.axiom_variable, external_path: m.external_path, axiom_value: ours ?? null, external_value: external, delta, agrees: delta !== null && Math.abs(delta) <= x.tolerance.amount };
  });
  return {
    id: x.id,
    engine: x.engine,
    engine_version: x.recorded.engine_version,
    source: x.recorded.source,
    status: values.every((v) => v.agrees) ? ('matching' as const) : ('different' as const),
    values,
    notes: x.notes ?? [],
  };
}

/** One status for all of a case's external comparisons. */
function externalStatus(results: { status: 'matching' | 'different' | 'not_recorded' }[]): 'matching' | 'different' | 'not_recorded' | 'none' {
  if (!results.length) return 'none';
  if (results.some((r) => r.status === 'different')) return 'different';
  return results.some((r) => r.status === 'matching') ? 'matching' : 'not_recorded';
}

interface Difference {
  variable: string;
  expected: unknown;
  actual: unknown;
  delta?: number;
}

function compare(expected: Record<string, unknown>, actual: Record<string, unknown>, tolerance: number) {
  const changed: Difference[] = [];
  const missing: Difference[] = [];
  const extra: Difference[] = [];
  for (const [variable, want] of Object.entries(expected)) {
    if (!(variable in actual)) {
      missing.push({ variable, expected: want, actual: null });
      continue;
    }
    const got = actual[variable];
    if (typeof want === 'number' && typeof got === 'number') {
      const delta = Math.round((got - want) * 1e6) / 1e6;
      if (Math.abs(delta) > tolerance) changed.push({ variable, expected: want, actual: got, delta });
    } else if (JSON.stringify(want) !== JSON.stringify(got)) {
      changed.push({ variable, expected: want, actual: got });
    }
  }
  for (const [variable, got] of Object.entries(actual)) if (!(variable in expected)) extra.push({ variable, expected: null, actual: got });
  const status = changed.length || missing.length ? ('different' as const) : ('matching' as const);
  return { status, changed, missing, extra };
}

export function runParity(cases: ParityCaseDef[], catalog: Catalog, calculate: (request: CalculateRequest) => CalculateResponse) {
  const results: Record<string, unknown>[] = [];
  const skipped: { id: string; description: string | null; program_id: string; jurisdiction: string; reason: string }[] = [];
  for (const c of cases) {
    const view = parityCaseView(c, catalog);
    if (!view.runtime_supported) {
      skipped.push({ id: c.id, description: view.description, program_id: c.program_id, jurisdiction: c.jurisdiction, reason: `no ${catalog.mode} runtime package for ${c.jurisdiction}/${c.program_id}` });
      continue;
    }
    const base = { id: c.id, program_id: c.program_id, jurisdiction: c.jurisdiction, description: view.description, expected_outputs: c.expected, notes: view.notes };
    const traced = traceTargets(c);
    const external = c.external_comparisons ?? [];
    try {
      // trace and external variables are computed in the same run, and reported apart from the outputs
      const extra = [...traced.map(([, v]) => v), ...external.flatMap((x) => x.mappings.map((m) => m.axiom_variable))];
      const asked = c.variables ? [...new Set([...c.variables, ...extra])] : undefined;
      const response = calculate({ ...view.axiom_request, ...(asked ? { variables: asked } : {}) });
      const outputs = c.variables ? Object.fromEntries(c.variables.map((v) => [v, response.outputs[v]])) : response.outputs;
      const comparison = compare(c.expected, outputs, view.tolerance.amount);
      const externalResults = external.map((x) => compareExternal(x, response.outputs));
      results.push({
        ...base,
        status: comparison.status,
        outputs,
        trace_outputs: Object.fromEntries(traced.filter(([, v]) => v in response.outputs).map(([label, v]) => [label, response.outputs[v]])),
        calculation_trace: response.trace,
        comparison,
        external_status: externalStatus(externalResults),
        external_comparisons: externalResults,
        runtime: response.runtime,
        warnings: response.warnings,
        assumptions: response.assumptions,
      });
    } catch (err) {
      const error = err instanceof ApiError ? { code: err.code, message: err.message } : { code: 'runtime_error', message: err instanceof Error ? err.message : String(err) };
      results.push({ ...base, status: 'errored', error, runtime: { id: null, mode: catalog.mode } });
    }
  }
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const externalCount = (s: string) => results.filter((r) => r.external_status === s).length;
  return {
    // total: the cases that ran, so `matching === total` means every case that ran matched
    summary: {
      total: results.length,
      matching: count('matching'),
      different: count('different'),
      errored: count('errored'),
      skipped: skipped.length,
      external: { matching: externalCount('matching'), different: externalCount('different'), not_recorded: externalCount('not_recorded') },
    },
    results,
    skipped_cases: skipped,
  };
}

export type ParityRun = ReturnType<typeof runParity>;

/** The folder of cases a daemon serves: RULES_PARITY_DIR, else the bundled fixtures. */
export function parityDir(): string {
  return process.env.RULES_PARITY_DIR ? path.resolve(process.env.RULES_PARITY_DIR) : PARITY_DIR;
}
