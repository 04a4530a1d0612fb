import { Decimal, toJson, ZERO } from '../values.js';
import type { HouseholdDiff, RootCause } from './household.js';

// The summary a reviewer reads, accumulated household by household in constant memory except
// for one (change, weight) pair per household whose amount changed (for the median and the
// histogram: 16 bytes each). Accumulators merge, so worker threads each summarise their batches
// and the main thread adds them up; their state is plain data that crosses threads.

export interface SummaryOptions {
  /** The numeric output whose change is counted, totalled and charted (gaining/losing). */
  amount: string | null;
  /** The condition output whose flips are newly eligible / newly ineligible. */
  eligibility: string | null;
  /** Column names of the --by breakdowns. */
  by: string[];
  /** Example households kept per root cause. */
  examples?: number;
  /** Distinct errors (and bad lines) kept for the report (default 100); each is on its line of the output. */
  errorsKept?: number;
  /** Households carry weights (--weight); otherwise each counts 1. */
  weighted?: boolean;
}

export interface CauseExample {
  line: number;
  entity: string;
  baseline: unknown;
  reform: unknown;
  /** The household's change in the amount output. */
  change: number | null;
}

interface CauseState {
  legal_id: string;
  name: string;
  kind: RootCause['kind'];
  households: number;
  weight: number;
  because: string[];
  baseline_sources: string[];
  reform_sources: string[];
  parameters: RootCause['parameters'];
  examples: CauseExample[];
}

export interface ErrorGroup {
  side: 'baseline' | 'reform' | 'both';
  code: string;
  message: string;
  households: number;
  /** The first lines that failed so (at most ten). */
  lines: number[];
}

const LINES_PER_ERROR = 10;

/** Households read (lines that are households), compared (calculated on both sides), changed, … */
interface Counts {
  households: number;
  compared: number;
  changed: number;
  unchanged: number;
  gaining: number;
  losing: number;
  newly_eligible: number;
  newly_ineligible: number;
}

interface GroupState extends Counts {
  weight: number;
  w: { compared: number; changed: number; gaining: number; losing: number; newly_eligible: number; newly_ineligible: number };
  /** Σ weight × change, exact. */
  total: string;
  /** Changes of the households whose amount changed, and their weights. */
  changes: Float64Array;
  weights: Float64Array;
  n: number;
}

export interface AccumulatorState {
  all: GroupState;
  by: Record<string, Record<string, GroupState>>;
  outputs: Record<string, number>;
  causes: Record<string, CauseState>;
  unexplained: number;
  failed: { both: number; baseline_only: number; reform_only: number };
  /** Failures grouped by side, code and message, with the households each failed and their first lines. */
  errors: Record<string, ErrorGroup>;
  bad: { count: number; lines: { line: number; message: string }[] };
  past_coverage: number;
  blank_lines: number;
}

const newGroup = (): GroupState => ({
  households: 0,
  weight: 0,
  compared: 0,
  changed: 0,
  unchanged: 0,
  gaining: 0,
  losing: 0,
  newly_eligible: 0,
  newly_ineligible: 0,
  w: { compared: 0, changed: 0, gaining: 0, losing: 0, newly_eligible: 0, newly_ineligible: 0 },
  total: '0',
  changes: new Float64Array(16),
  weights: new Float64Array(16),
  n: 0,
});

function push(g: GroupState, change: number, weight: number): void {
  if (g.n === g.changes.length) {
    const grow = (a: Float64Array) => {
      const b = new Float64Array(a.length * 2);
      b.set(a);
      return b;
    };
    g.changes = grow(g.changes);
    g.weights = grow(g.weights);
  }
  g.changes[g.n] = change;
  g.weights[g.n++] = weight;
}

/** Distinct values of a --by column beyond this are counted under `(other)`. */
export const MAX_GROUPS = 1000;
const OTHER = '(other)';

export class DiffAccumulator {
  private s: AccumulatorState;
  private readonly totals = new Map<GroupState, Decimal>();

  constructor(private readonly options: SummaryOptions) {
    this.s = { all: newGroup(), by: Object.fromEntries(options.by.map((c) => [c, {}])), outputs: {}, causes: {}, unexplained: 0, failed: { both: 0, baseline_only: 0, reform_only: 0 }, errors: {}, bad: { count: 0, lines: [] }, past_coverage: 0, blank_lines: 0 };
  }

  private total(g: GroupState): Decimal {
    let t = this.totals.get(g);
    if (!t) this.totals.set(g, (t = new Decimal(g.total)));
    return t;
  }

  private addToGroup(g: GroupState, h: HouseholdDiff, weight: number, change: Decimal | null, flip: -1 | 0 | 1): void {
    g.households++;
    g.weight += weight;
    if (h.errors.baseline || h.errors.reform) {
      if (h.changed) {
        g.changed++;
        g.w.changed += weight;
      }
      return;
    }
    g.compared++;
    g.w.compared += weight;
    if (h.changed) {
      g.changed++;
      g.w.changed += weight;
    } else g.unchanged++;
    if (change && !change.isZero()) {
      const sign = change.isPositive() ? 'gaining' : 'losing';
      g[sign]++;
      g.w[sign] += weight;
      this.totals.set(g, this.total(g).plus(change.times(weight)));
      push(g, change.toNumber(), weight);
    }
    if (flip === 1) {
      g.newly_eligible++;
      g.w.newly_eligible += weight;
    } else if (flip === -1) {
      g.newly_ineligible++;
      g.w.newly_ineligible += weight;
    }
  }

  /** One household's diff, with its weight and its values of the --by columns. */
  add(h: HouseholdDiff, weight = 1, by: Record<string, string> = {}): void {
    const s = this.s;
    const { amount, eligibility } = this.options;
    const amountDiff = amount ? h.outputs[amount] : undefined;
    const d = amountDiff?.difference;
    const change = d === 0 ? ZERO : typeof d === 'number' || typeof d === 'string' ? new Decimal(d) : null;
    const e = eligibility ? h.outputs[eligibility] : undefined;
    const flip = !e ? 0 : e.baseline !== true && e.reform === true ? 1 : e.baseline === true && e.reform !== true ? -1 : 0;
    this.addToGroup(s.all, h, weight, change, flip);
    for (const column of this.options.by) {
      const groups = s.by[column];
      let value = by[column] ?? '(none)';
      if (!(value in groups) && Object.keys(groups).length >= MAX_GROUPS) value = OTHER;
      this.addToGroup((groups[value] ??= newGroup()), h, weight, change, flip);
    }
    for (const [name, o] of Object.entries(h.outputs)) if (o.changed) s.outputs[name] = (s.outputs[name] ?? 0) + 1;
    const { baseline, reform } = h.errors;
    if (baseline || reform) {
      const side = baseline && reform ? 'both' : baseline ? 'baseline' : 'reform';
      s.failed[side === 'both' ? 'both' : side === 'baseline' ? 'baseline_only' : 'reform_only']++;
      const error = (baseline ?? reform)!;
      this.addError({ side, code: error.code, message: error.message, households: 1, lines: [h.line] });
    }
    if (h.changed && !h.root_causes.length && !baseline && !reform) s.unexplained++;
    const seen = new Set<string>();
    for (const cause of h.root_causes) {
      const first = !seen.has(cause.legal_id);
      seen.add(cause.legal_id);
      let c = s.causes[cause.legal_id];
      if (!c) {
        c = s.causes[cause.legal_id] = {
          legal_id: cause.legal_id,
          name: cause.name,
          kind: cause.kind,
          households: 0,
          weight: 0,
          because: cause.because,
          baseline_sources: cause.baseline_sources,
          reform_sources: cause.reform_sources,
          parameters: cause.parameters,
          examples: [],
        };
      }
      if (!first) continue; // a per-person rule counts its household once
      c.households++;
      c.weight += weight;
      for (const b of cause.because) if (!c.because.includes(b)) c.because = [...c.because, b];
      if (c.examples.length < (this.options.examples ?? 3)) c.examples.push({ line: h.line, entity: cause.entity, baseline: cause.baseline, reform: cause.reform, change: change ? change.toNumber() : null });
    }
  }

  private addError(e: ErrorGroup): void {
    const errors = this.s.errors;
    const key = `${e.side}\u0000${e.code}\u0000${e.message}`;
    const group = errors[key];
    if (group) {
      group.households += e.households;
      for (const line of e.lines) if (group.lines.length < LINES_PER_ERROR) group.lines.push(line);
    } else if (Object.keys(errors).length < (this.options.errorsKept ?? 100)) errors[key] = { ...e, lines: e.lines.slice(0, LINES_PER_ERROR) };
  }

  /** A line that is not a household (or lacks its weight): counted and kept by number, not compared. */
  addBadLine(line: number, message: string): void {
    this.s.bad.count++;
    if (this.s.bad.lines.length < (this.options.errorsKept ?? 100)) this.s.bad.lines.push({ line, message });
  }

  addBlankLines(count: number): void {
    this.s.blank_lines += count;
  }

  addPastCoverage(): void {
    this.s.past_coverage++;
  }

  /** The state as plain data (for another thread), totals written back as exact decimal text. */
  state(): AccumulatorState {
    const flush = (g: GroupState) => {
      const t = this.totals.get(g);
      if (t) g.total = t.toString();
      g.changes = g.changes.slice(0, g.n);
      g.weights = g.weights.slice(0, g.n);
    };
    flush(this.s.all);
    for (const groups of Object.values(this.s.by)) for (const g of Object.values(groups)) flush(g);
    this.totals.clear();
    return this.s;
  }

  /** Add another accumulator's state (from a worker) into this one. */
  merge(other: AccumulatorState): void {
    const s = this.s;
    const mergeGroup = (into: GroupState, g: GroupState) => {
      for (const k of ['households', 'weight', 'compared', 'changed', 'unchanged', 'gaining', 'losing', 'newly_eligible', 'newly_ineligible'] as const) into[k] += g[k];
      for (const k of Object.keys(into.w) as (keyof GroupState['w'])[]) into.w[k] += g.w[k];
      this.totals.set(into, this.total(into).plus(g.total));
      for (let i = 0; i < g.n; i++) push(into, g.changes[i], g.weights[i]);
    };
    mergeGroup(s.all, other.all);
    for (const [column, groups] of Object.entries(other.by)) {
      const mine = s.by[column];
      for (const [value, g] of Object.entries(groups)) {
        const target = value in mine || Object.keys(mine).length < MAX_GROUPS ? value : OTHER;
        mergeGroup((mine[target] ??= newGroup()), g);
      }
    }
    for (const [name, n] of Object.entries(other.outputs)) s.outputs[name] = (s.outputs[name] ?? 0) + n;
    for (const [id, c] of Object.entries(other.causes)) {
      const mine = s.causes[id];
      if (!mine) {
        s.causes[id] = { ...c, examples: c.examples.slice(0, this.options.examples ?? 3) };
        continue;
      }
      mine.households += c.households;
      mine.weight += c.weight;
      for (const b of c.because) if (!mine.because.includes(b)) mine.because = [...mine.because, b];
      for (const e of c.examples) if (mine.examples.length < (this.options.examples ?? 3)) mine.examples.push(e);
    }
    s.unexplained += other.unexplained;
    for (const k of ['both', 'baseline_only', 'reform_only'] as const) s.failed[k] += other.failed[k];
    for (const e of Object.values(other.errors)) this.addError(e);
    s.bad.count += other.bad.count;
    for (const l of other.bad.lines) if (s.bad.lines.length < (this.options.errorsKept ?? 100)) s.bad.lines.push(l);
    s.past_coverage += other.past_coverage;
    s.blank_lines += other.blank_lines;
  }

  summary(): DiffSummary {
    const s = this.s;
    const causes = Object.values(s.causes).sort((a, b) => b.weight - a.weight || b.households - a.households || (a.legal_id < b.legal_id ? -1 : 1));
    const byLine = <T extends { line: number }>(list: T[]) => [...list].sort((a, b) => a.line - b.line);
    return {
      ...this.groupSummary(s.all),
      amount: this.options.amount,
      eligibility: this.options.eligibility,
      weighted: Boolean(this.options.weighted),
      histogram: histogram(s.all),
      outputs: s.outputs,
      by: Object.fromEntries(
        Object.entries(s.by).map(([column, groups]) => [
          column,
          Object.entries(groups)
            .map(([value, g]) => ({ value, ...this.groupSummary(g) }))
            .sort((a, b) => compareGroupValues(a.value, b.value)),
        ]),
      ),
      root_causes: causes.map((c) => ({ ...c, examples: byLine(c.examples), share: s.all.changed ? c.households / s.all.changed : 0 })),
      unexplained: s.unexplained,
      failed: { ...s.failed, errors: Object.values(s.errors).sort((a, b) => b.households - a.households || a.lines[0] - b.lines[0]) },
      bad_lines: { count: s.bad.count, lines: byLine(s.bad.lines) },
      past_coverage: s.past_coverage,
      blank_lines: s.blank_lines,
    };
  }

  private groupSummary(g: GroupState): GroupSummary {
    const total = this.total(g);
    return {
      households: g.households,
      compared: g.compared,
      changed: g.changed,
      unchanged: g.unchanged,
      gaining: g.gaining,
      losing: g.losing,
      newly_eligible: g.newly_eligible,
      newly_ineligible: g.newly_ineligible,
      weight: g.weight,
      weighted_counts: { ...g.w },
      total_change: toJson(total) as number | string,
      mean_change: g.w.compared ? total.div(g.w.compared).toDecimalPlaces(2).toNumber() : null,
      mean_change_among_changed: sumOf(g.weights, g.n) ? total.div(sumOf(g.weights, g.n)).toDecimalPlaces(2).toNumber() : null,
      median_change_among_changed: weightedMedian(g),
    };
  }
}

function sumOf(a: Float64Array, n: number): number {
  let t = 0;
  for (let i = 0; i < n; i++) t += a[i];
  return t;
}

/** Numbers in numeric order, then text. */
function compareGroupValues(a: string, b: string): number {
  const [x, y] = [Number(a), Number(b)];
  const [nx, ny] = [a !== '' && Number.isFinite(x), b !== '' && Number.isFinite(y)];
  if (nx && ny) return x - y;
  if (nx !== ny) return nx ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The change at or below which half the weight of the changed households lies. */
function weightedMedian(g: GroupState): number | null {
  if (!g.n) return null;
  const order = Array.from({ length: g.n }, (_, i) => i).sort((a, b) => g.changes[a] - g.changes[b]);
  return Math.round(quantile(g, order, 0.5) * 100) / 100;
}

/** A bin width of 1, 2 or 5 times a power of ten giving at most `most` bins over the range. */
function niceWidth(range: number, most: number): number {
  const raw = range / most;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const step of [1, 2, 5, 10]) if (step * power >= raw) return step * power;
  return 10 * power;
}

export interface HistogramBin {
  /** [from, to): the last bin includes its upper bound. */
  from: number;
  to: number;
  households: number;
  weight: number;
}

/** The change below which `share` of the weight lies (order: the changes' indexes, ascending). */
function quantile(g: GroupState, order: number[], share: number): number {
  const target = sumOf(g.weights, g.n) * share;
  let seen = 0;
  for (const i of order) {
    seen += g.weights[i];
    if (seen >= target) return g.changes[i];
  }
  return g.changes[order[order.length - 1]];
}

/**
 * The changes of the households whose amount changed, in bins of a round width: about as many as
 * Sturges' rule gives (log2 n + 1, at most 20), never narrower than a whole unit when every change
 * is whole. When a few outliers would stretch the bins over a mostly empty range, the bins cover
 * the 1st to 99th percentile and the rest fall in an open bin at either end.
 */
function histogram(g: GroupState): HistogramBin[] {
  if (!g.n) return [];
  const order = Array.from({ length: g.n }, (_, i) => i).sort((a, b) => g.changes[a] - g.changes[b]);
  const [min, max] = [g.changes[order[0]], g.changes[order[g.n - 1]]];
  if (min === max) return [{ from: min, to: max, households: g.n, weight: sumOf(g.weights, g.n) }];
  let [low, high] = [quantile(g, order, 0.01), quantile(g, order, 0.99)];
  if (high <= low || max - min <= 4 * (high - low)) [low, high] = [min, max];
  let whole = true;
  for (let i = 0; i < g.n && whole; i++) whole = Number.isInteger(g.changes[i]);
  const width = Math.max(whole ? 1 : 0, niceWidth(high - low, Math.min(20, Math.ceil(Math.log2(g.n)) + 1)));
  const start = Math.floor(low / width) * width;
  const count = Math.max(1, Math.ceil((high - start) / width + 1e-9));
  const end = start + count * width;
  const bins: HistogramBin[] = Array.from({ length: count }, (_, k) => ({ from: +(start + k * width).toFixed(10), to: +(start + (k + 1) * width).toFixed(10), households: 0, weight: 0 }));
  const under: HistogramBin = { from: min, to: start, households: 0, weight: 0 };
  const over: HistogramBin = { from: end, to: max, households: 0, weight: 0 };
  for (let i = 0; i < g.n; i++) {
    const v = g.changes[i];
    const bin = v < start ? under : v > end ? over : bins[Math.min(count - 1, Math.floor((v - start) / width))];
    bin.households++;
    bin.weight += g.weights[i];
  }
  return [...(under.households ? [under] : []), ...bins, ...(over.households ? [over] : [])];
}

export interface GroupSummary extends Counts {
  /** Σ weights of the households, and of each count (equal to the counts without --weight). */
  weight: number;
  weighted_counts: GroupState['w'];
  /** Σ weight × change of the amount output, exact. */
  total_change: number | string;
  /** Per household compared (weighted). */
  mean_change: number | null;
  /** Per household whose amount changed (weighted). */
  mean_change_among_changed: number | null;
  median_change_among_changed: number | null;
}

export interface DiffSummary extends GroupSummary {
  amount: string | null;
  eligibility: string | null;
  /** Whether weights other than 1 were given. */
  weighted: boolean;
  histogram: HistogramBin[];
  /** Households in which each output changed. */
  outputs: Record<string, number>;
  by: Record<string, ({ value: string } & GroupSummary)[]>;
  root_causes: (CauseState & { share: number })[];
  /** Changed households in which no root cause was found. */
  unexplained: number;
  /** Households failing on both sides (not compared) or on one (a change); the failures grouped, the most frequent first. */
  failed: { both: number; baseline_only: number; reform_only: number; errors: ErrorGroup[] };
  bad_lines: { count: number; lines: { line: number; message: string }[] };
  /** Households whose period is after a side's figures' coverage (answered on the newest figures). */
  past_coverage: number;
  blank_lines: number;
}
