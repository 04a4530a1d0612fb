import { locate } from './1-parse/locate.js';
import { formatPosition, RuleSpecError } from './diagnostics.js';
import { EvaluationError } from './engine/evaluate.js';

// One readable message for anything that stops a case or a build (shared by the companion-test runner and
// the orchestrator): a located diagnostic with an excerpt and caret, an evaluation error with the
// chain of rules that led to it, or a plain message.

export function describeError(err: unknown): string {
  if (err instanceof RuleSpecError) {
    return [err, ...err.others].map((e) => formatPosition(e.message, e.position ?? (e.location ? locate(e.location) : undefined), e.location?.file)).join('\n');
  }
  if (err instanceof EvaluationError) {
    // innermost rule first: where it failed, then what needed it
    return err.chain.length ? `${err.message}\n  in ${[...err.chain].reverse().join('\n  ← ')}` : err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
