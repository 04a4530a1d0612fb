import { Decimal as DecimalBase } from 'decimal.js';

// Runtime values. Numbers are exact decimals (28 significant digits, like the reference engine's
// 96-bit decimal); money never goes through binary floating point.
//   boolean → bool · string → text · Decimal → integer or decimal · Day → calendar date

export const Decimal = DecimalBase.clone({
  precision: 28,
  rounding: DecimalBase.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Decimal = InstanceType<typeof Decimal>;

const MS_PER_DAY = 86_400_000;

/** A calendar day, counted in days since 1970-01-01. */
export class Day {
  constructor(readonly n: number) {}
  static parse(iso: string): Day | undefined {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    if (!m) return undefined;
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    const d = new Date(ms);
    if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return undefined;
    return new Day(Math.round(ms / MS_PER_DAY));
  }
  static fromDate(date: Date): Day {
    return new Day(Math.floor(date.getTime() / MS_PER_DAY));
  }
  toString(): string {
    return new Date(this.n * MS_PER_DAY).toISOString().slice(0, 10);
  }
}

export type Value = boolean | string | Decimal | Day;

export type ValueKind = 'bool' | 'text' | 'number' | 'date';

export function kindOf(v: Value): ValueKind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'text';
  return v instanceof Day ? 'date' : 'number';
}

export const isNumber = (v: Value): v is Decimal => v instanceof Decimal;

export const ZERO = new Decimal(0);

const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?(\d+\.\d*|\d*\.\d+)$/;

/** Coerce a YAML scalar the way the reference tooling coerces data values: strings that look
 *  like dates, integers or decimals become those; other strings stay text. */
export function valueFromYaml(raw: unknown): Value | undefined {
  switch (typeof raw) {
    case 'boolean':
      return raw;
    case 'number':
      return Number.isFinite(raw) ? new Decimal(String(raw)) : undefined;
    case 'bigint':
      return new Decimal(raw.toString());
    case 'string': {
      const day = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Day.parse(raw) : undefined;
      if (day) return day;
      if (INTEGER_TEXT.test(raw) || DECIMAL_TEXT.test(raw)) return new Decimal(raw);
      return raw;
    }
    case 'object':
      return raw instanceof Date ? Day.fromDate(raw) : undefined;
    default:
      return undefined;
  }
}

/** JSON-friendly form: numbers as JS numbers when exact (15 significant digits or fewer always
 *  survive the round trip through a double), else as decimal strings in plain notation, however
 *  small (never an exponent). */
export function toJson(v: Value): boolean | string | number {
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof Day) return v.toString();
  const fast = shortNumber(v);
  if (fast !== undefined) return fast;
  if (v.precision() <= 15) return v.toNumber();
  const n = v.toNumber();
  return new Decimal(n).equals(v) ? n : v.toFixed();
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i); // exact doubles up to 10^22

/**
 * A decimal of at most 15 significant digits as the double its text parses to, from decimal.js's
 * digits (base-10^7 limbs) instead of through its text: value = m × 10^s with m an exact integer,
 * and one multiplication or division by an exact power of ten rounds correctly, as parsing does.
 * Undefined when the number is longer or its exponent out of that range (the caller takes the
 * general way).
 */
function shortNumber(d: Decimal): number | undefined {
  const limbs = d.d as number[] | null;
  if (!limbs || limbs.length > 3) return undefined;
  let m = limbs[0];
  for (let i = 1; i < limbs.length; i++) m = m * 1e7 + limbs[i];
  if (m > Number.MAX_SAFE_INTEGER) return undefined; // not exact as a double
  let s = d.e - ((((d.e % 7) + 7) % 7) + 1 + 7 * (limbs.length - 1)) + 1;
  if (m === 0) return d.s < 0 ? -0 : 0; // as toNumber() reads a negative zero
  while (m % 10 === 0) {
    m /= 10;
    s++;
  }
  if (m >= 1e15 || s > 22 || s < -22) return undefined;
  const n = s >= 0 ? m * POW10[s] : m / POW10[-s];
  return d.s < 0 ? -n : n;
}

export function formatValue(v: Value): string {
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}
