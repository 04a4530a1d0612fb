import type { Executable } from '../3-lower/ir.js';
import { CompiledEvaluation } from './compiled/evaluation.js';
import type { Dataset } from './dataset.js';
import { Evaluation, type EvaluationOptions, type Result } from './evaluate.js';
import type { EvaluationObserver } from './observer.js';
import type { Period } from './period.js';
import type { Value } from '../values.js';

// The two engines behind one interface: the compiled one (closures and fast exact numbers)
// runs calculations; the interpreter is the reference it is tested against.

export type EngineName = 'compiled' | 'interpreter';

export const ENGINES: readonly EngineName[] = ['compiled', 'interpreter'];

/** One query: rule results stay in the engine's own form until `value` or `json` converts them. */
export interface EngineEvaluation {
  readonly trace: { rule: number; entity: string; result: unknown }[] | null;
  rule(index: number, entity: string): unknown;
  value(result: unknown): Result;
  json(result: unknown, judgment: boolean): unknown;
  input(slot: string, entity: string): Value;
  parameter(index: number, key: number): Value;
}

/** Either engine reports to an observer what it evaluates (the compiled one through its observed lowering). */
export function startEvaluation(engine: EngineName, exec: Executable, dataset: Dataset, period: Period, options: EvaluationOptions & { observer?: EvaluationObserver } = {}): EngineEvaluation {
  return engine === 'compiled' ? new CompiledEvaluation(exec, dataset, period, options) : new Evaluation(exec, dataset, period, options);
}
