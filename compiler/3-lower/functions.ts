// The functions of the formula language: where each may appear and how many arguments it takes.
// Any other name in call position is a compile error (`round`, `abs`, `any` … are not functions).

export interface FunctionSpec {
  position: 'scalar' | 'judgment';
  min: number;
  max: number; // Infinity for variadic
  usage: string;
}

export const FUNCTIONS: Record<string, FunctionSpec> = {
  max: { position: 'scalar', min: 1, max: Infinity, usage: 'max(a, b, …)' },
  min: { position: 'scalar', min: 1, max: Infinity, usage: 'min(a, b, …)' },
  floor: { position: 'scalar', min: 1, max: 1, usage: 'floor(x)' },
  ceil: { position: 'scalar', min: 1, max: 1, usage: 'ceil(x)' },
  count_where: { position: 'scalar', min: 2, max: 2, usage: 'count_where(relation, predicate)' },
  sum_where: { position: 'scalar', min: 3, max: 3, usage: 'sum_where(relation, field, predicate)' },
  len: { position: 'scalar', min: 1, max: 1, usage: 'len(relation)' },
  sum: { position: 'scalar', min: 1, max: 1, usage: 'sum(relation.field)' },
  days_between: { position: 'scalar', min: 2, max: 2, usage: 'days_between(from_date, to_date)' },
  date_add_days: { position: 'scalar', min: 2, max: 2, usage: 'date_add_days(date, days)' },
  sum_over_periods: { position: 'scalar', min: 1, max: 1, usage: 'sum_over_periods(x)' },
  max_over_periods: { position: 'scalar', min: 1, max: 1, usage: 'max_over_periods(x)' },
  count_over_periods: { position: 'scalar', min: 1, max: 1, usage: 'count_over_periods(x)' },
  sum_top_n_over_periods: { position: 'scalar', min: 2, max: 2, usage: 'sum_top_n_over_periods(x, n)' },
  exactly_one: { position: 'judgment', min: 2, max: Infinity, usage: 'exactly_one(a, b, …)' },
};

export function arityText(spec: FunctionSpec): string {
  if (spec.min === spec.max) return `${spec.min} argument${spec.min === 1 ? '' : 's'}`;
  return spec.max === Infinity ? `at least ${spec.min} argument${spec.min === 1 ? '' : 's'}` : `${spec.min}–${spec.max} arguments`;
}
