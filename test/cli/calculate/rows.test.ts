import { describe, expect, test } from 'vitest';
import { writeResult } from '../../../cli/calculate/rows.js';
import { JsonBytes } from '../../../server/json-bytes.js';
import { calculateResponse } from '../../../server/calculation.js';
import { loaded } from '../../compiler/bundled.js';

// The JSON Lines result of `rules calculate --input`: the text JSON.stringify writes for
// `{line, …CalculateResponse, trace last}`, though each assumption is serialised once and reused.

const pkg = loaded('us-co/co-snap');
const households = [
  { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 }, b: { age: 4, snap_time_limit_exhausted: null } } },
  { facts: { earned_income: 900, snap_shelter_costs: 700 }, people: { a: { age: 70 } } },
  pkg.pkg.sample_request.household,
];

/** One output line as `rules calculate --input` writes it, read back as text. */
function formatResult(...args: Parameters<typeof writeResult> extends [JsonBytes, ...infer Rest] ? Rest : never): string {
  const out = new JsonBytes(512);
  writeResult(out, ...args);
  const line = out.copy().toString();
  expect(line.endsWith('\n')).toBe(true);
  return line.slice(0, -1);
}

describe('writeResult, JSON Lines', () => {
  for (const [k, household] of households.entries()) {
    for (const trace of [false, true]) {
      for (const explain of [false, true]) {
        test(`household ${k + 1}, trace ${trace}, explanation ${explain}: the same text as JSON.stringify`, () => {
          const response = calculateResponse(pkg, 'compiled', { household, explain }, { timeoutMs: 10_000, trace });
          const { trace: steps, ...rest } = response;
          const expected = JSON.stringify(trace ? { line: 7, ...rest, trace: steps } : { line: 7, ...rest });
          // twice: the second line is written from the assumptions' cached text
          expect(formatResult('jsonl', 7, [], trace, response, 'household')).toBe(expected);
          expect(formatResult('jsonl', 7, [], trace, calculateResponse(pkg, 'compiled', { household, explain }, { timeoutMs: 10_000, trace }), 'household')).toBe(expected);
          if (k < 2) expect(response.assumptions.length).toBeGreaterThan(0);
        });
      }
    }
  }
});
