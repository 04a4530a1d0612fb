import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Day, Decimal, toJson } from '../../compiler/values.js';

describe('toJson', () => {
  it('gives a JSON number when the double is exact, else a decimal string', () => {
    expect(toJson(new Decimal('1234.5'))).toBe(1234.5);
    expect(toJson(new Decimal('0.1'))).toBe(0.1);
    expect(toJson(new Decimal('12345678901234567.89'))).toBe('12345678901234567.89');
    expect(toJson(true)).toBe(true);
    expect(toJson(new Day(0))).toBe('1970-01-01');
  });

  it('writes a decimal string in plain notation, however small', () => {
    // found by fuzzing (test/e2e/fuzz/households.test.ts): incomes of 5e-324 and
    // 2.467528976325081e-308 dollars answered snap_gross_income "2.4675289763250815e-308"
    const tiny = new Decimal('2.467528976325081e-308').plus('5e-324');
    const json = toJson(tiny);
    expect(json).toMatch(/^0\.0{300,}24675289763250815$/);
    expect(new Decimal(json as string).equals(tiny)).toBe(true);
  });

  it('reads a short decimal from its digits as the double its text parses to (the fast way agrees with the slow one)', () => {
    // the definition: 15 significant digits or fewer, the double of its text; else that double when it holds the decimal exactly
    const slow = (d: Decimal) => (d.precision() <= 15 ? d.toNumber() : new Decimal(d.toNumber()).equals(d) ? d.toNumber() : d.toFixed());
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,20}$/), fc.integer({ min: -1, max: 22 }), fc.integer({ min: -30, max: 30 }))
      .map(([negative, digits, point, exponent]) => new Decimal(`${negative ? '-' : ''}${point > 0 && point < digits.length ? `${digits.slice(0, point)}.${digits.slice(point)}` : digits}e${exponent}`));
    fc.assert(
      fc.property(decimal, (d) => Object.is(toJson(d), slow(d)) || (toJson(d) === 0 && slow(d) === 0)),
      { seed: 2026, numRuns: 20_000 },
    );
  });
});
