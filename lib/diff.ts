import type { DiffSide } from '../compiler/diff/program-side.js';
import type { RulesChange } from '../compiler/diff/rule-changes.js';
import type { LoadedPackage } from '../compiler/runtime/loaded-package.js';
import { calculateResponse, DEFAULT_CALCULATE_TIMEOUT_MS } from '../server/calculation.js';
import { type ErrorOf, HouseholdComparer, type HouseholdDiff } from '../compiler/diff/household.js';
import { byValues, type DiffPlan, type PlanOptions, planDiff, weightOf } from '../compiler/diff/plan.js';
import { DiffAccumulator, type DiffSummary } from '../compiler/diff/summary.js';
import { ApiError } from '../server/errors.js';

// The library's diff(): what a change to the rules does, household by household, in-process.
//
//   const run = diff(loadPackage(before), loadPackage(after), households, { set: ['…#x=250'] });
//   run.rules;                        // what changed in the rules, available at once
//   for await (const h of run) …;     // each household's outputs on both sides and root causes
//   run.summary();                    // counts, gaining/losing, totals, histogram, root causes

export interface DiffOptions extends PlanOptions {
  /** Time limit per household and side, in ms (default 10,000). */
  timeoutMs?: number;
}

/** A household: the API's household conventions (`period`, `facts`, `people`, …); with `weight`/`by`, those keys too. */
export type Household = Record<string, unknown>;

/** A household's diff, with its weight and --by values. */
export interface DiffResult extends HouseholdDiff {
  weight: number;
  by: Record<string, string>;
  /** Set when the item is not a household (it is counted as a bad line, not compared). */
  bad?: string;
}

export interface DiffRun extends AsyncIterable<DiffResult> {
  /** What changed in the rules (known before any household is compared). */
  readonly rules: RulesChange;
  /** The outputs compared, and which are the amount and the eligibility. */
  readonly variables: string[];
  readonly amount: string | null;
  readonly eligibility: string | null;
  /** Notes on the comparison (outputs one side lacks, …). */
  readonly notes: string[];
  /** The summary of the households yielded so far (complete once the iteration ends). */
  summary(): DiffSummary;
}

/** The conventions of a household object; any other top-level key named by `weight` or `by` is a tag, not household data. */
const CONVENTIONS = new Set(['people', 'spm_units', 'facts', 'period', 'entities', 'relations']);

/** A household object's tags (its weight and --by keys) taken out of it. */
export function splitTags(plan: DiffPlan, item: Household): { household: Household; tags: Record<string, unknown> } {
  const keys = [...(plan.weight ? [plan.weight] : []), ...plan.by].filter((k) => !CONVENTIONS.has(k) && k in item);
  if (!keys.length) return { household: item, tags: {} };
  const household = { ...item };
  const tags: Record<string, unknown> = {};
  for (const k of keys) {
    tags[k] = household[k];
    delete household[k];
  }
  return { household, tags };
}

/** An item that is not a household (or lacks its weight): counted as a bad line, not compared. */
export const badResult = (line: number, message: string): DiffResult => ({ line, period: null, changed: false, outputs: {}, root_causes: [], warnings: [], errors: {}, inputs: {}, past_coverage: false, weight: 0, by: {}, bad: message });

/** One household through a comparer, with its weight and --by values. */
export function compareOne(plan: DiffPlan, comparer: HouseholdComparer, household: Household, tags: Record<string, unknown>, line: number): DiffResult {
  const weight = plan.weight ? weightOf(tags[plan.weight], plan.weight) : 1;
  if (typeof weight === 'string') return badResult(line, weight);
  const h = comparer.compare(household, line) as DiffResult;
  h.weight = weight;
  h.by = byValues(plan, tags, h.inputs);
  return h;
}

/** Add one result to a summary (a bad item as a bad line). */
export function summarise(summary: DiffAccumulator, result: DiffResult): void {
  if (result.bad) return summary.addBadLine(result.line, result.bad);
  summary.add(result, result.weight, result.by);
  if (result.past_coverage) summary.addPastCoverage();
}

/** The API's error for a household a package cannot calculate, exactly as `rules calculate` reports it. */
function apiErrorOf(timeoutMs: number): ErrorOf {
  return (loaded, household, variables) => {
    try {
      calculateResponse(loaded, 'compiled', { household, variables }, { timeoutMs, trace: false });
    } catch (err) {
      if (err instanceof ApiError) return { code: err.code, message: err.message };
      throw err;
    }
    return { code: 'runtime_error', message: 'the household failed in the diff but calculates alone (a bug: please report it)' };
  };
}

export function newComparer(plan: DiffPlan, timeoutMs = DEFAULT_CALCULATE_TIMEOUT_MS): HouseholdComparer {
  return new HouseholdComparer(plan.base, plan.reform, plan.variables, timeoutMs, apiErrorOf(timeoutMs), Object.values(plan.byInputs));
}

export function newSummary(plan: DiffPlan): DiffAccumulator {
  return new DiffAccumulator({ amount: plan.amount, eligibility: plan.eligibility, by: plan.by, weighted: plan.weight !== null });
}

/**
 * Compare households through two versions of a program's rules. `baseline` and `reform` are
 * loaded packages of one program (or `{ package, graph }`, the graph giving formulas as written
 * and parameters' citations). Throws DiffError when the comparison cannot run as asked (an
 * output one side lacks, a --set that names no parameter). Households stream: each result is
 * yielded as soon as it is computed.
 */
export function diff(baseline: LoadedPackage | DiffSide, reform: LoadedPackage | DiffSide, households: Iterable<Household> | AsyncIterable<Household>, options: DiffOptions = {}): DiffRun {
  const plan = planDiff(baseline, reform, options);
  const comparer = newComparer(plan, options.timeoutMs);
  const summary = newSummary(plan);
  return {
    rules: plan.rules,
    variables: plan.variables,
    amount: plan.amount,
    eligibility: plan.eligibility,
    notes: plan.notes,
    summary: () => summary.summary(),
    async *[Symbol.asyncIterator]() {
      let line = 0;
      for await (const item of households) {
        line++;
        let result: DiffResult;
        if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
          const { household, tags } = splitTags(plan, item);
          result = compareOne(plan, comparer, household, tags, line);
        } else result = badResult(line, 'not a household (an object)');
        summarise(summary, result);
        yield result;
      }
    },
  };
}

export { DiffError } from '../compiler/diff/plan.js';
export type { DiffSide } from '../compiler/diff/program-side.js';
export type { RulesChange, RuleChange, InputChange } from '../compiler/diff/rule-changes.js';
export type { HouseholdDiff, RootCause, OutputDiff } from '../compiler/diff/household.js';
export type { DiffSummary } from '../compiler/diff/summary.js';
