import { Day } from '../values.js';

// A query period: first and last day, inclusive. Versions are selected by the start;
// inputs must cover the whole period.

export interface Period {
  kind: string;
  start: number; // day number
  end: number;
}

const months = new Map<string, Period | undefined>();

/** The period of a `YYYY-MM` month (memoised: requests name the same few months). */
export function monthPeriod(month: string): Period | undefined {
  if (months.has(month)) return months.get(month);
  const period = computeMonth(month);
  if (months.size < 10_000) months.set(month, period);
  return period;
}

function computeMonth(month: string): Period | undefined {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return undefined;
  const year = Number(m[1]);
  const mon = Number(m[2]);
  if (mon < 1 || mon > 12) return undefined;
  const start = Day.parse(`${m[1]}-${m[2]}-01`)!;
  const lastDay = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { kind: 'month', start: start.n, end: start.n + lastDay - 1 };
}

export function periodLabel(p: Period): string {
  const start = new Day(p.start).toString();
  const end = new Day(p.end).toString();
  return start === end ? start : `${start}..${end}`;
}
