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
