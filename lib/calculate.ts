import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import type { EngineName } from '../compiler/engine/engine.js';
import type { LoadedPackage } from '../compiler/runtime/loaded-package.js';
import { calculateResponse, type CalculateResponse, DEFAULT_CALCULATE_TIMEOUT_MS } from '../server/calculation.js';

// The library's calculate(): one household as POST /v1/calculate answers it.

export interface CalculateOptions {
  /** Record the trace (default true, as the API). */
  trace?: boolean;
  /** Time limit in ms (default 10,000). */
  timeoutMs?: number;
  /** The compiled engine (default) or the interpreter it is tested against. */
  engine?: EngineName;
}

/**
 * One household through a package: the API's CalculateResponse (outputs, trace, warnings,
 * assumptions, and with `explain: true` the explanation). `request.household` follows the API's
 * household conventions; `request.variables` defaults to the package's default outputs;
 * `request.assumptions: "refuse"` makes an answer that would rest on inputs not given a
 * CalculationError (`invalid_household`, the list in `details.assumptions`). Throws
 * CalculationError (with the API's error code) for a bad household, an unknown variable or a
 * failing rule.
 */
export function calculate(pkg: LoadedPackage, request: Pick<CalculateRequest, 'household' | 'variables' | 'assumptions' | 'explain'>, options: CalculateOptions = {}): CalculateResponse {
  return calculateResponse(pkg, 'compiled', request, { timeoutMs: options.timeoutMs ?? DEFAULT_CALCULATE_TIMEOUT_MS, trace: options.trace, engine: options.engine });
}
