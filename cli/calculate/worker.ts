import { workerData } from 'piscina';
import type { RuntimePackage } from '../../compiler/4-package/package-types.js';
import { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { calculateResponse } from '../../server/calculation.js';
import { ApiError } from '../../server/errors.js';
import { type LineBatch, lineWorker } from '../line-pool.js';
import type { JsonBytes } from '../../server/json-bytes.js';
import { householdFromLine, type LineError, type LineFormat, writeResult } from './rows.js';

// A `rules calculate --input` worker: loads the package once, then turns batches of input lines
// into output lines. Everything per household (parsing, calculating, formatting) happens here,
// so the main thread only moves text.

export interface WorkerSetup {
  pkg: RuntimePackage;
  variables: string[];
  trace: boolean;
  explain: boolean;
  assumptions: 'allow' | 'refuse';
  input: LineFormat;
  output: LineFormat;
  /** CSV input: the header's columns. */
  columns: string[];
  timeoutMs: number;
}

export interface BatchResult {
  ok: number;
  errors: { line: number; message: string }[];
}

const setup = workerData as WorkerSetup;
const loaded = new LoadedPackage(setup.pkg);
const mainId = loaded.entity(setup.pkg.main_entity)?.id_template ?? '';

function run(line: string) {
  let input: Record<string, unknown>;
  try {
    input = householdFromLine(setup.input, setup.columns, line);
  } catch (err) {
    return { code: 'invalid_request', message: `not a household: ${(err as Error).message}` };
  }
  try {
    return calculateResponse(loaded, 'compiled', { household: input, variables: setup.variables, assumptions: setup.assumptions, explain: setup.explain }, { timeoutMs: setup.timeoutMs, trace: setup.trace });
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message, ...err.details };
    return { code: 'runtime_error', message: `the calculation failed unexpectedly: ${(err as Error).message}` };
  }
}

function calculateBatch(batch: LineBatch, out: JsonBytes): BatchResult {
  let ok = 0;
  const errors: BatchResult['errors'] = [];
  batch.lines.forEach((line, k) => {
    const result = run(line);
    const number = batch.numbers[k];
    if ('code' in result) errors.push({ line: number, message: `${result.code}: ${(result as LineError).message}` });
    else ok++;
    writeResult(out, setup.output, number, setup.variables, setup.trace, result, mainId);
  });
  return { ok, errors };
}

export default lineWorker(calculateBatch);
