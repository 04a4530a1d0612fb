import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RoundingMode } from '../../../../compiler/3-lower/ir.js';
import * as num from '../../../../compiler/engine/compiled/numbers.js';
import { Decimal, toJson } from '../../../../compiler/values.js';
import { random } from '../../../../bench/households.mjs';

// The compiled engine's numbers against decimal.js: every operation on every pair, fast or not,
// must give the Decimal the interpreter computes, digit for digit.

const rand = random(7);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];

/** Decimals across the fast form's edges: cents, six and seven places, near 2^53 / 10^6, huge, tiny. */
function sample(): Decimal {
  const sign = rand() < 0.3 ? '-' : '';
  const shapes = [
    () => String(Math.floor(rand() * 1000)),
    () => (rand() * 10000).toFixed(2),
    () => (rand() * 10).toFixed(6),
    () => (rand() * 10).toFixed(7),
    () => String(9007199254 + Math.floor(rand() * 3)) + '.' + String(Math.floor(rand() * 1e6)).padStart(6, '0'),
    () => '1e' + Math.floor(rand() * 30),
    () => '0.' + '0'.repeat(Math.floor(rand() * 8)) + String(1 + Math.floor(rand() * 9)),
    () => '12345678.5',
    () => '0',
    () => '0.333333333333333333333333333',
  ];
  return new Decimal(sign + pick(shapes)());
}

const same = (fast: num.Num, reference: Decimal) => expect(num.toDecimal(fast).toString()).toBe(reference.toString());

describe('compiled engine numbers', () => {
  it('convert to and from Decimal exactly, keeping only what fits in the fast form', () => {
    for (let i = 0; i < 2000; i++) {
      const d = sample();
      const n = num.fromDecimal(d);
      same(n, d);
      if (typeof n === 'number') {
        expect(Number.isSafeInteger(n)).toBe(true);
        expect(num.numJson(n)).toBe(toJson(d));
      } else expect(d.decimalPlaces() > 6 || d.abs().gte(9e9)).toBe(true);
    }
    expect(num.fromDecimal(new Decimal('1.5'))).toBe(1_500_000);
    expect(num.fromDecimal(new Decimal('0.001'))).toBe(1000);
    expect(num.fromDecimal(new Decimal('0.0000001'))).toBeInstanceOf(Decimal);
  });

  it('read a JSON number as the Decimal of its shortest form, in the fast form whenever that fits', () => {
    const cents = fc.integer({ min: -1e12, max: 1e12 }).map((c) => c / 100);
    const micros = fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((m) => m / 1e6);
    const nearEdge = fc.integer({ min: -3e6, max: 3e6 }).map((k) => 2 ** 33 + k / 1e6);
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), cents, micros, nearEdge, fc.constantFrom(0, -0, 0.1, 1.005, 2432.47, 8589934591.999999)), (x) => {
        const expected = num.fromDecimal(new Decimal(x === 0 ? 0 : x));
        const got = num.fromNumber(x);
        expect(num.toDecimal(got).toString()).toBe(num.toDecimal(expected).toString());
        if (typeof expected === 'number') expect(got).toBe(expected); // what the Decimal path makes fast stays fast
        if (typeof got === 'number') expect(Number.isSafeInteger(got) && !Object.is(got, -0)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    expect(num.fromNumber(2432.47)).toBe(2_432_470_000);
  });

  it('add, subtract, multiply, divide, compare and round as decimal.js does', () => {
    const modes: [RoundingMode, Parameters<Decimal['toDecimalPlaces']>[1]][] = [
      ['half_up', Decimal.ROUND_HALF_UP],
      ['half_even', Decimal.ROUND_HALF_EVEN],
      ['floor', Decimal.ROUND_FLOOR],
      ['ceil', Decimal.ROUND_CEIL],
    ];
    let fastResults = 0;
    for (let i = 0; i < 5000; i++) {
      const a = sample();
      const b = sample();
      const x = num.fromDecimal(a);
      const y = num.fromDecimal(b);
      same(num.plus(x, y), a.plus(b));
      same(num.minus(x, y), a.minus(b));
      const product = num.times(x, y);
      same(product, a.times(b));
      if (typeof product === 'number') fastResults++;
      if (!b.isZero()) same(num.div(x, y), a.div(b));
      expect(num.cmp(x, y)).toBe(a.cmp(b));
      same(num.negate(x), new Decimal(0).minus(a));
      same(num.floor(x), a.floor());
      same(num.ceil(x), a.ceil());
      const places = Math.floor(rand() * 8);
      for (const [mode, rounding] of modes) same(num.round(x, places, mode), a.toDecimalPlaces(places, rounding));
      expect(num.isInteger(x)).toBe(a.isInteger());
    }
    expect(fastResults).toBeGreaterThan(1000);
  });

  it('rounds ties by each mode on both signs', () => {
    const ties = ['2.5', '-2.5', '3.5', '-3.5', '0.125', '-0.125'];
    for (const t of ties) {
      const d = new Decimal(t);
      const places = t.includes('.125') ? 2 : 0;
      expect(num.toDecimal(num.round(num.fromDecimal(d), places, 'half_up')).toString()).toBe(d.toDecimalPlaces(places, Decimal.ROUND_HALF_UP).toString());
      expect(num.toDecimal(num.round(num.fromDecimal(d), places, 'half_even')).toString()).toBe(d.toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN).toString());
    }
  });
});
