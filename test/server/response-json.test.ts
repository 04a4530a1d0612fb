import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { generateHouseholds } from '../../bench/households.mjs';
import { calculateResponse } from '../../server/calculation.js';
import { answerJson, assumptionsJson, traceJson, utf8Bytes } from '../../server/response-json.js';
import { loaded, PACKAGE_IDS } from '../compiler/bundled.js';

// Answers written from cached fragments must be the very text JSON.stringify writes, for every
// answer the runtime makes (trace, assumptions, explanation) and for anything else handed to it.

describe('answerJson', () => {
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
      { trace: [{ ...entry, variable: 'other name, same rule id' }, entry, { ...entry, entity: 'p "1"' }] },
      {},
      // numbers and booleans are written without JSON.stringify: its edge cases
      { trace: [-0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 5e-7, -1.5, true, false, null, '1', [1]].map((value) => ({ ...entry, value })) },
      // an inherited enumerable key is not the runtime's shape (JSON.stringify writes own keys only)
      { trace: [Object.assign(Object.create({ inherited: 1 }), entry)] },
    ];
    for (const c of cases) expect(answerJson(c)).toBe(JSON.stringify(c));
    expect(traceJson([])).toBe('[]');
    expect(assumptionsJson([])).toBe('[]');
  });
});

describe('utf8Bytes', () => {
  // sized for a byte a character and grown near the end: pieces of any size and any characters
  // (whole code points, as JSON texts are), many-byte ones last where the guess runs out
  test('the bytes of the joined text, for any pieces', () => {
    const text = fc.string({ unit: 'binary', maxLength: 3000 });
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.string({ unit: 'binary-ascii', maxLength: 5000 })), { maxLength: 12 }), (pieces) => {
        expect(utf8Bytes(pieces).equals(Buffer.from(pieces.join('')))).toBe(true);
      }),
      { numRuns: 400 },
    );
    expect(utf8Bytes(['a'.repeat(5000), '€'.repeat(3000)]).equals(Buffer.from('a'.repeat(5000) + '€'.repeat(3000)))).toBe(true);
    expect(utf8Bytes([]).length).toBe(0);
  });
});
