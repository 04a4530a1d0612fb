import type { RoundingMode } from '../../3-lower/ir.js';
import { Decimal, toJson } from '../../values.js';
import { ROUNDING } from '../evaluate.js';

// Numbers of the compiled engine: a decimal with at most six decimal places whose scaled value
// (× 10^6) is a safe integer is a plain JS integer ("scaled"); any other number stays a Decimal.
// Every fast operation is exact and checks that its result still fits; when it does not, the
// operation is done in Decimal exactly as the interpreter does it, so both engines agree digit
// for digit. Decimal results that fit again are brought back to the fast form.

export type Num = number | Decimal;

const PLACES = 6;
export const SCALE = 1_000_000;
const MAX = Number.MAX_SAFE_INTEGER;
/** 2^33 × 10^6: the scaled bound below which a double's nearest multiple of 10^-6 is unique. */
const NUMBER_EXACT_BELOW = 2 ** 33 * SCALE;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i); // exact doubles up to 10^22

/** The scaled integer for a Decimal, or the Decimal itself when it has more than six places or is too large. */
export function fromDecimal(d: Decimal): Num {
  const limbs = d.d as number[] | null; // decimal.js: base-10^7 digits, the first aligned to the exponent
  if (!limbs || limbs.length > 3) return d;
  let m = limbs[0];
  for (let i = 1; i < limbs.length; i++) m = m * 1e7 + limbs[i];
  if (m > MAX) return d;
  const digits = ((d.e % 7) + 7) % 7 + 1 + 7 * (limbs.length - 1);
  const shift = d.e - digits + 1 + PLACES; // scaled = m × 10^shift
  let scaled: number;
  if (shift >= 0) {
    if (shift > 15) return d;
    scaled = m * POW10[shift];
    if (scaled > MAX) return d;
  } else {
    if (-shift > 22) return d;
    const p = POW10[-shift];
    if (m % p !== 0) return d;
    scaled = m / p;
  }
  return d.s < 0 ? -scaled : scaled;
}

/**
 * The scaled integer for a JSON number that stands for the decimal of its shortest form (`String(x)`),
 * without making that Decimal when it fits. `r / 10^6 === x` means x is the double nearest
 * r × 10^-6; below 2^33 the doubles are closer together than 10^-6, so no other multiple of
 * 10^-6 rounds to x and the shortest form of x is r × 10^-6 itself.
 */
export function fromNumber(x: number): Num {
  const r = Math.round(x * SCALE);
  if (Math.abs(r) < NUMBER_EXACT_BELOW && r / SCALE === x) return r === 0 ? 0 : r; // not -0
  return fromDecimal(new Decimal(x === 0 ? 0 : x));
}

export function toDecimal(n: Num): Decimal {
  if (typeof n !== 'number') return n;
  // a whole number is decimal.js's quick case; any other is read from its digits with the exponent (three times faster than dividing)
  return n % SCALE === 0 ? new Decimal(n / SCALE) : new Decimal(`${n}e-${PLACES}`);
}

export function plus(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= MAX && r >= -MAX) return r;
  }
  return fromDecimal(toDecimal(a).plus(toDecimal(b)));
}

export function minus(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= MAX && r >= -MAX) return r;
  }
  return fromDecimal(toDecimal(a).minus(toDecimal(b)));
}

export function times(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    let r: number;
    if (a % SCALE === 0) r = (a / SCALE) * b;
    else if (b % SCALE === 0) r = a * (b / SCALE);
    else {
      const p = a * b;
      r = p <= MAX && p >= -MAX && p % SCALE === 0 ? p / SCALE : NaN;
    }
    if (r <= MAX && r >= -MAX) return r;
  }
  return fromDecimal(toDecimal(a).times(toDecimal(b)));
}

/** `b` is known not to be zero. */
export function div(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const p = a * SCALE;
    if (p <= MAX && p >= -MAX && p % b === 0) return p / b;
    if (b % SCALE === 0 && a % (b / SCALE) === 0) return a / (b / SCALE);
  }
  return fromDecimal(toDecimal(a).div(toDecimal(b)));
}

export const isZero = (n: Num): boolean => (typeof n === 'number' ? n === 0 : n.isZero());

export function cmp(a: Num, b: Num): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return toDecimal(a).cmp(toDecimal(b));
}

export function negate(a: Num): Num {
  return typeof a === 'number' ? 0 - a : fromDecimal(new Decimal(0).minus(a));
}

export const isInteger = (n: Num): boolean => (typeof n === 'number' ? n % SCALE === 0 : n.isInteger());

export const toInteger = (n: Num): number => (typeof n === 'number' ? n / SCALE : n.toNumber());

export const fromInteger = (i: number): Num => (Math.abs(i) * SCALE <= MAX ? i * SCALE : fromDecimal(new Decimal(i)));

/** Round to `places` decimal places (decimal.js's modes: half_up rounds ties away from zero). */
export function round(a: Num, places: number, mode: RoundingMode): Num {
  if (typeof a !== 'number') return fromDecimal(a.toDecimalPlaces(places, ROUNDING[mode]));
  if (places >= PLACES) return a;
  const unit = POW10[PLACES - places];
  const rem = ((a % unit) + unit) % unit; // 0 ≤ rem < unit
  const down = a - rem;
  if (rem === 0) return a;
  switch (mode) {
    case 'floor':
      return down;
    case 'ceil':
      return down + unit;
    case 'half_up':
      return 2 * rem > unit || (2 * rem === unit && a > 0) ? down + unit : down;
    case 'half_even':
      return 2 * rem > unit || (2 * rem === unit && (down / unit) % 2 !== 0) ? down + unit : down;
  }
}

export const floor = (a: Num): Num => round(a, 0, 'floor');
export const ceil = (a: Num): Num => round(a, 0, 'ceil');

/** The JSON form the interpreter's `toJson` gives for the same decimal. */
export function numJson(n: Num): number | string {
  if (typeof n === 'number' && n < 1e15 && n > -1e15) return n / SCALE;
  return toJson(toDecimal(n)) as number | string;
}
