import { describe, expect, test } from 'vitest';
import { generateHouseholds } from '../../bench/households.mjs';
import { calculateResponse } from '../../server/calculation.js';
import { JsonBytes } from '../../server/json-bytes.js';
import { writeAnswer } from '../../server/response-json.js';
import { loaded, PACKAGE_IDS } from '../compiler/bundled.js';

// Answers written from cached fragments must be the very bytes of the text JSON.stringify writes,
// for every answer the runtime makes (trace, assumptions, explanation) and for anything else
// handed to it.

/** An answer as writeAnswer writes it, read back as text (a small first chunk: answers span several). */
function answerJson(answer: object): string {
  const out = new JsonBytes(256);
  writeAnswer(out, answer);
  const bytes = out.copy();
  expect(bytes.equals(Buffer.from(bytes.toString()))).toBe(true); // well-formed UTF-8
  return bytes.toString();
}

describe('writeAnswer', () => {
  for (const id of PACKAGE_IDS) {
    test(`${id}: generated households, with and without assumptions and explanations, written twice (the second from the cache)`, () => {
      const pkg = loaded(id);
      const households = generateHouseholds(pkg.pkg, 40, 3);
      // sparse ones too: the main entity's facts dropped, so the answer rests on assumptions
      const sparse = households.slice(0, 10).map((h) => ({ period: h.period, entities: Object.fromEntries(Object.entries(h.entities as Record<string, unknown>).filter(([e]) => e !== pkg.pkg.main_entity)) }));
      let assumed = 0;
      for (const [k, household] of [...households, ...sparse].entries()) {
        let response;
        try {
          response = calculateResponse(pkg, 'compiled', { household, explain: k % 7 === 0 }, { timeoutMs: 10_000 });
        } catch {
          continue; // a generated household the package refuses: nothing to write
        }
        assumed += response.assumptions.length;
        expect(answerJson(response)).toBe(JSON.stringify(response));
        expect(answerJson(response)).toBe(JSON.stringify(response));
      }
      expect(assumed).toBeGreaterThan(0);
    });
  }

  test('whatever else it is given, as JSON.stringify writes it', () => {
    const entry = { rule_id: 'r', variable: 'v', value: 1.5, sources: ['7 USC 2014'], entity: 'household' };
    const cases: object[] = [
      { a: undefined, b: () => 1, c: 'x', trace: [entry, { ...entry, value: undefined }, { ...entry, extra: true }, { variable: 'v', rule_id: 'r', value: 2, sources: [], entity: 'e' }], assumptions: [{ input: 'x', value: null }] },
      { trace: 'not a list', assumptions: { not: 'a list' } },
      { trace: [], assumptions: [], warnings: ['é€😀', '\ud800 a lone surrogate, escaped by JSON.stringify'] },
      { trace: [{ ...entry, variable: 'other name, same rule id' }, entry, { ...entry, entity: 'p "1"' }] },
      {},
      // numbers and booleans are written without JSON.stringify: its edge cases
      { trace: [-0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 5e-7, -1.5, true, false, null, '1', [1]].map((value) => ({ ...entry, value })) },
      // an inherited enumerable key is not the runtime's shape (JSON.stringify writes own keys only)
      { trace: [Object.assign(Object.create({ inherited: 1 }), entry)] },
    ];
    for (const c of cases) expect(answerJson(c)).toBe(JSON.stringify(c));
  });
});
