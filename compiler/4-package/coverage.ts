import type { Program } from '../3-lower/ir.js';
import { Day } from '../values.js';

// The periods a package's figures cover. Calculations before `from` are refused (nothing is in
// effect); calculations after `through` still run on the newest figures but are flagged, since
// amounts such as allotments and income standards change every year and nothing says the
// newest ones still apply.
//   from     the first day on which every rule and parameter has a version in effect
//   through  the program spec's `valid_through` month when it gives one; otherwise the later of
//            the end of the spec's period and twelve months after the newest parameter version
//            took effect (annual figures), less a day

export interface Coverage {
  from: string | null;
  through: string;
  basis: string;
}

const endOfMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export function packageCoverage(program: Program, period: string, validThrough?: string): Coverage {
  const starts = [...program.rules, ...program.parameters].map((r) => r.versions[0]?.from).filter((d): d is number => d !== null && d !== undefined);
  const from = starts.length ? new Day(Math.max(...starts)).toString() : null;
  if (validThrough) return { from, through: endOfMonth(validThrough), basis: `the program spec's valid_through (${validThrough})` };
  const newest = Math.max(...program.parameters.flatMap((p) => p.versions.map((v) => v.from ?? -Infinity)));
  const periodEnd = endOfMonth(period);
  if (!Number.isFinite(newest)) return { from, through: periodEnd, basis: `the program's period (${period}); it has no dated figures` };
  const start = new Date(newest * 86_400_000);
  const yearLater = new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate() - 1)).toISOString().slice(0, 10);
  return yearLater >= periodEnd
    ? { from, through: yearLater, basis: `twelve months from its newest figures (in effect from ${new Day(newest)})` }
    : { from, through: periodEnd, basis: `the program's period (${period})` };
}
