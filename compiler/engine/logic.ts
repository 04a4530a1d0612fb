// Three-valued judgments. `and` stops at the first not_holds, `or` at the first holds;
// undetermined stops neither (see the engine's lazy evaluation).

export type Outcome = 'holds' | 'not_holds' | 'undetermined';

export const HOLDS: Outcome = 'holds';
export const NOT_HOLDS: Outcome = 'not_holds';
export const UNDETERMINED: Outcome = 'undetermined';

export function not(a: Outcome): Outcome {
  return a === HOLDS ? NOT_HOLDS : a === NOT_HOLDS ? HOLDS : UNDETERMINED;
}

/** Lazy conjunction: `b` is only computed when `a` is not not_holds. */
export function and(a: Outcome, b: () => Outcome): Outcome {
  if (a === NOT_HOLDS) return NOT_HOLDS;
  const right = b();
  if (right === NOT_HOLDS) return NOT_HOLDS;
  return a === HOLDS && right === HOLDS ? HOLDS : UNDETERMINED;
}

/** Lazy disjunction: `b` is only computed when `a` is not holds. */
export function or(a: Outcome, b: () => Outcome): Outcome {
  if (a === HOLDS) return HOLDS;
  const right = b();
  if (right === HOLDS) return HOLDS;
  return a === NOT_HOLDS && right === NOT_HOLDS ? NOT_HOLDS : UNDETERMINED;
}

export const fromBoolean = (b: boolean): Outcome => (b ? HOLDS : NOT_HOLDS);

export function isOutcome(v: unknown): v is Outcome {
  return v === HOLDS || v === NOT_HOLDS || v === UNDETERMINED;
}

/** A judgment's JSON form, as the API gives it: true, false, or null when undetermined. */
export const outcomeJson = (o: unknown): boolean | null => (o === HOLDS ? true : o === NOT_HOLDS ? false : null);
