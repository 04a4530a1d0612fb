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
});
