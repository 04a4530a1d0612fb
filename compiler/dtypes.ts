// The dtype vocabulary of RuleSpec inputs, decoded in one place: encodings spell a dtype in
// several ways (`Boolean`, `bool`; `Integer`, `Count`, `int`; `Text`, `String`), and every part
// that reads one (defaults, sample guesses, the household adapter, forms) asks here.

export type ValueKind = 'boolean' | 'whole' | 'number' | 'text' | 'date' | 'judgment';

const KINDS: Record<string, ValueKind> = {
  boolean: 'boolean',
  bool: 'boolean',
  integer: 'whole',
  count: 'whole',
  int: 'whole',
  text: 'text',
  string: 'text',
  date: 'date',
  judgment: 'judgment',
};

/** What values a dtype holds; any other dtype (Money, Decimal, Rate, …) holds numbers. */
export function valueKind(dtype: string | undefined): ValueKind {
  return (dtype && KINDS[dtype.toLowerCase()]) || 'number';
}

/** An amount of money: its dtype says so, or its unit is dollars. */
export function isMoney(dtype: string | undefined, unit: string | undefined): boolean {
  return dtype?.toLowerCase() === 'money' || unit === 'USD';
}

/** A size (household_size, assistance_unit_size, …): a count of people, at least 1, no default. */
export function isSizeInput(name: string): boolean {
  return name.endsWith('_size');
}

/** The default of an input of this dtype that declares none (a text or date has none). */
export function kindDefault(dtype: string | undefined): boolean | number | undefined {
  const kind = valueKind(dtype);
  return kind === 'boolean' ? false : kind === 'whole' || kind === 'number' ? 0 : undefined;
}

/** Units of time: an amount of them (a duration, an age) is never negative. */
const TIME_UNITS = /^(years?|months?|weeks?|days?|hours?)$/i;

/**
 * An input no value below zero makes sense for, whatever its dtype says: a count (dtype `Count`,
 * or a name ending in `_count` or `_size`, or starting with `number_of_`) or an amount of time
 * (an age, a duration). Money is checked on its own (isMoney).
 */
export function isNonNegative(input: { name: string; dtype?: string; unit?: string }): boolean {
  return input.dtype?.toLowerCase() === 'count' || /(_count|_size)$|^number_of_/.test(input.name) || (input.unit !== undefined && TIME_UNITS.test(input.unit));
}

/** The oldest plausible age in years: the oldest verified human lived 122 years. */
export const MAX_AGE_YEARS = 130;

/** A person's age in years: named `age` (or `…_age`, `age_…`), in years or with no unit. */
export function isAgeInput(input: { name: string; unit?: string }): boolean {
  return /(^|_)age($|_)/.test(input.name) && (input.unit === undefined || /^years?$/i.test(input.unit));
}
