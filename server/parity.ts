import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { ApiError } from './errors.js';
import type { CalculateResponse } from './calculation.js';
import type { Catalog } from './runtime/catalog.js';
import { walkFiles } from '../compiler/2-resolve/source-tree.js';
import { FIXTURES_DIR } from '../compiler/project.js';

// Canonical parity cases: households whose expected outputs were derived by hand from the law
// (fixtures/parity/*.yaml, each with its arithmetic in `notes`), run against the active runtime.
// The API routes and `rules parity` share this code.

export const PARITY_DIR = path.join(FIXTURES_DIR, 'parity');

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
  trace_variables?: string[];
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
    trace_variables: c.trace_variables ?? c.variables,
    notes: c.notes ?? [],
    external_comparisons: [],
    tolerance: { amount: c.tolerance?.amount ?? 0.005 },
  };
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
    try {
      const response = calculate(view.axiom_request);
      const comparison = compare(c.expected, response.outputs, view.tolerance.amount);
      const traced = new Set(view.trace_variables);
      results.push({
        ...base,
        status: comparison.status,
        outputs: response.outputs,
        trace_outputs: Object.fromEntries(Object.entries(response.outputs).filter(([k]) => traced.has(k))),
        calculation_trace: response.trace,
        comparison,
        runtime: response.runtime,
        warnings: response.warnings,
      });
    } catch (err) {
      const error = err instanceof ApiError ? { code: err.code, message: err.message } : { code: 'runtime_error', message: err instanceof Error ? err.message : String(err) };
      results.push({ ...base, status: 'errored', error, runtime: { id: null, mode: catalog.mode } });
    }
  }
  const count = (s: string) => results.filter((r) => r.status === s).length;
  return {
    summary: { total: cases.length, matching: count('matching'), different: count('different'), errored: count('errored'), skipped: skipped.length },
    results,
    skipped_cases: skipped,
  };
}

export type ParityRun = ReturnType<typeof runParity>;

/** The folder of cases a daemon serves: RULES_PARITY_DIR, else the bundled fixtures. */
export function parityDir(): string {
  return process.env.RULES_PARITY_DIR ? path.resolve(process.env.RULES_PARITY_DIR) : PARITY_DIR;
}
