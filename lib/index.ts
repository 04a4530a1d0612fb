// The library entry (`import { compile, loadPackage, calculate, diff } from 'rules'`): the
// compiler, the calculation of `POST /v1/calculate` and the diff of two versions of a program's
// rules, in-process, for Node programs that embed them.

export { calculate, type CalculateOptions } from './calculate.js';
export { compile, type CompileOptions, type Compiled } from './compile.js';
export { diff, DiffError, type DiffOptions, type DiffResult, type DiffRun, type DiffSide, type DiffSummary, type Household, type HouseholdDiff, type InputChange, type OutputDiff, type RootCause, type RuleChange, type RulesChange } from './diff.js';
export { listPrograms, loadPackage, PackageLoadError } from './load.js';
export type { CalculateResponse } from '../server/calculation.js';
export type { Assumption } from '../compiler/runtime/calculate.js';
export type { Explanation, ExplanationNode, DecidingTest } from '../compiler/runtime/explain/explanation.js';
export type { RuntimePackage } from '../compiler/4-package/package-types.js';
export type { BuildFailure } from '../compiler/build.js';
export type { EngineName } from '../compiler/engine/engine.js';
export { LoadedPackage } from '../compiler/runtime/loaded-package.js';
/** A failed calculation: `code` is the API's error code (invalid_household, invalid_request, runtime_error). */
export { ApiError as CalculationError } from '../server/errors.js';
