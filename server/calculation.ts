import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import type { EngineName } from '../compiler/engine/engine.js';
import { EvaluationError } from '../compiler/engine/evaluate.js';
import { type Assumption, AssumptionsRefused, calculate, OutputError } from '../compiler/runtime/calculate.js';
import type { Explanation } from '../compiler/runtime/explain/explanation.js';
import { HouseholdError } from '../compiler/runtime/household.js';
import type { LoadedPackage } from '../compiler/runtime/loaded-package.js';
import { ApiError } from './errors.js';
import type { Catalog, RuntimeMode } from './catalog/catalog.js';
import type { BatchResult } from './store/store.js';

/** The time limit of one calculation unless RULES_CALCULATE_TIMEOUT_MS says otherwise (here, not
 *  in config.ts, so that the CLI and the library calculate without loading the daemon's settings). */
export const DEFAULT_CALCULATE_TIMEOUT_MS = 10_000;

// One calculation as the API runs it (single, batch entry or job entry): find the package,
// run the household through it within the time limit, and shape the CalculateResponse.

export const FIXTURE_WARNING = 'The fixture runtime is experimental: this result is not an authoritative eligibility determination.';

export interface CalculateResponse {
  engine: 'rules';
  runtime: { id: string; mode: 'compiled' | 'fixture' };
  program_id: string;
  jurisdiction: string;
  period: string;
  outputs: Record<string, unknown>;
  trace: unknown[];
  warnings: string[];
  assumptions: Assumption[];
  explanation?: Explanation;
}

export function runCalculation(catalog: Catalog, request: CalculateRequest, timeoutMs: number): CalculateResponse {
  const loaded = catalog.package(request.jurisdiction, request.program_id);
  if (!loaded) {
    throw new ApiError('unsupported_program', `no runtime package for program \`${request.program_id}\` in \`${request.jurisdiction}\` (GET /v1/runtime/packages lists them)`);
  }
  return calculateResponse(loaded, catalog.mode, request, { timeoutMs });
}

export interface ResponseOptions {
  timeoutMs: number;
  /** Record the trace (the API always does; population runs may not need it). */
  trace?: boolean;
  engine?: EngineName;
}

/** A household through a loaded package, as the API answers it (CalculateResponse or ApiError). */
export function calculateResponse(loaded: LoadedPackage, mode: RuntimeMode, request: Pick<CalculateRequest, 'household' | 'variables' | 'assumptions' | 'explain'>, options: ResponseOptions): CalculateResponse {
  const { timeoutMs } = options;
  try {
    const result = calculate(loaded, request, { deadline: Date.now() + timeoutMs, trace: options.trace, engine: options.engine, assumptions: request.assumptions, explain: request.explain });
    const warnings = [...result.warnings];
    if (mode === 'fixture') warnings.unshift(FIXTURE_WARNING);
    const incomplete = loaded.pkg.acknowledged_incomplete.filter((o) => o in result.outputs);
    if (incomplete.length) warnings.push(`outputs acknowledged incomplete by their encoders: ${incomplete.join(', ')}`);
    for (const note of loaded.pkg.notes) if (note.startsWith('stale:')) warnings.push(`package ${note}`);
    return {
      engine: 'rules',
      runtime: { id: loaded.pkg.runtime_id, mode },
      program_id: loaded.pkg.program_id,
      jurisdiction: loaded.pkg.jurisdiction,
      period: result.period,
      outputs: result.outputs,
      trace: result.trace,
      warnings,
      assumptions: result.assumptions,
      ...(result.explanation ? { explanation: result.explanation } : {}),
    };
  } catch (err) {
    if (err instanceof AssumptionsRefused) throw new ApiError('invalid_household', err.message, undefined, undefined, { assumptions: err.assumptions });
    if (err instanceof HouseholdError) throw new ApiError('invalid_household', err.message);
    if (err instanceof OutputError) throw new ApiError('invalid_request', err.message);
    if (err instanceof EvaluationError) {
      throw new ApiError('runtime_error', err.detail.timedOut ? `the calculation exceeded its time limit of ${timeoutMs} ms` : `the calculation engine failed: ${err.message}`);
    }
    throw err;
  }
}

/** A batch or job entry: failures become positional error results instead of failing the whole. */
export function runEntry(catalog: Catalog, request: CalculateRequest, timeoutMs: number): BatchResult {
  try {
    return { status: 'ok', result: runCalculation(catalog, request, timeoutMs) };
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'unsupported_program' || err.code === 'invalid_household' || err.code === 'runtime_error' || err.code === 'invalid_request')) {
      // an unknown output is the household request's own problem here
      const code = err.code === 'invalid_request' ? 'invalid_household' : err.code;
      return { status: 'error', error: { code, message: err.message, ...err.details } };
    }
    return { status: 'error', error: { code: 'runtime_error', message: 'the calculation failed unexpectedly' } };
  }
}
