import { isOutcome, type Outcome } from '../engine/logic.js';
import { Day, Decimal, type Value, kindOf, toJson, valueFromYaml } from '../values.js';

// How an expected value in a test matches an actual one:
//  · a judgment matches only `holds` / `not_holds` / `undetermined` (never YAML true/false);
//  · numbers match within 1e-18 (a YAML float is read as its shortest decimal form);
//  · a bool matches true/false or holds/not_holds; text and dates match exactly.

export type Actual = { outcome: Outcome } | Value;

const TOLERANCE = new Decimal('1e-18');
const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

export function matches(expected: unknown, actual: Actual | Actual[]): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matchOne(e, actual[i]));
  }
  return !Array.isArray(actual) && matchOne(expected, actual);
}

function matchOne(expected: unknown, actual: Actual): boolean {
  if (typeof actual === 'object' && actual !== null && 'outcome' in actual) {
    if (typeof expected !== 'string') return false;
    const word = expected.toLowerCase().replace(/-/g, '_');
    return isOutcome(word) && word === actual.outcome;
  }
  let exp: unknown = expected;
  if (typeof actual === 'boolean' && typeof exp === 'string') {
    const word = exp.toLowerCase().replace(/-/g, '_');
    if (word === 'holds') exp = true;
    else if (word === 'not_holds') exp = false;
  }
  if (actual instanceof Decimal) {
    const e = typeof exp === 'string' ? (NUMERIC_TEXT.test(exp) ? new Decimal(exp) : undefined) : typeof exp === 'number' ? valueFromYaml(exp) : undefined;
    return e instanceof Decimal && actual.minus(e).abs().lte(TOLERANCE);
  }
  if (typeof actual === 'boolean') return exp === actual;
  if (actual instanceof Day) return exp instanceof Date && Day.fromDate(exp).n === actual.n;
  return typeof exp === 'string' && kindOf(actual) === 'text' && exp === actual;
}

/** A printable / JSON form of an actual result. */
export function actualToJson(actual: Actual | Actual[]): unknown {
  if (Array.isArray(actual)) return actual.map(actualToJson);
  if (typeof actual === 'object' && actual !== null && 'outcome' in actual) return actual.outcome;
  return toJson(actual);
}

/** A printable / JSON form of an expected YAML value. */
export function expectedToJson(expected: unknown): unknown {
  if (expected instanceof Date) return expected.toISOString().slice(0, 10);
  if (Array.isArray(expected)) return expected.map(expectedToJson);
  return expected;
}
