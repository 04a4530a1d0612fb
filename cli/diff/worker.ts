import { workerData } from 'piscina';
import type { ProgramGraph, RuntimePackage } from '../../compiler/4-package/package-types.js';
import { type PlanOptions, planDiff } from '../../compiler/diff/plan.js';
import type { AccumulatorState } from '../../compiler/diff/summary.js';
import { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { badResult, compareOne, type DiffResult, newComparer, newSummary, splitTags, summarise } from '../../lib/diff.js';
import { householdFromCsv, householdFromLine, type LineFormat, parseCsvLine } from '../calculate/rows.js';
import type { JsonBytes } from '../../server/json-bytes.js';
import { type LineBatch, lineWorker } from '../line-pool.js';
import { formatDiffLine } from './lines.js';

// A `rules diff --input` worker: builds both sides once (the reform with its --set overrides),
// then compares batches of input lines, returning their output lines (when --output asks for
// them) and a summary of the batch that the main thread adds to the run's.

export interface SideData {
  pkg: RuntimePackage;
  graph?: ProgramGraph;
  label: string;
}

export interface DiffWorkerSetup {
  baseline: SideData;
  /** null: the same package as the baseline (the reform differs only by --set). */
  reform: SideData | null;
  options: PlanOptions;
  input: LineFormat;
  /** CSV input: the header's columns. */
  columns: string[];
  /** Where the output lines go, or null when only the summary is wanted. */
  output: LineFormat | null;
  timeoutMs: number;
}

export interface DiffBatchResult {
  state: AccumulatorState;
}

const setup = workerData as DiffWorkerSetup;
const baseline = new LoadedPackage(setup.baseline.pkg);
const reform = setup.reform ? new LoadedPackage(setup.reform.pkg) : baseline;
const plan = planDiff({ package: baseline, graph: setup.baseline.graph, label: setup.baseline.label }, { package: reform, graph: (setup.reform ?? setup.baseline).graph, label: (setup.reform ?? setup.baseline).label }, setup.options);
const comparer = newComparer(plan, setup.timeoutMs);
// CSV: the columns that are not inputs (the weight, --by tags) are read apart from the household
const tagColumns = new Set([...(plan.weight ? [plan.weight] : []), ...plan.by.filter((c) => !(c in plan.byInputs))]);
const tagIndexes = setup.columns.map((c, k) => (tagColumns.has(c) ? k : -1)).filter((k) => k >= 0);
const inputColumns = setup.columns.filter((c) => !tagColumns.has(c));

function compareLine(line: string, number: number): DiffResult {
  let household: Record<string, unknown>;
  let tags: Record<string, unknown>;
  try {
    if (setup.input === 'csv') {
      const cells = parseCsvLine(line);
      if (cells.length !== setup.columns.length) throw new Error(`has ${cells.length} cells; the header has ${setup.columns.length} columns`);
      tags = Object.fromEntries(tagIndexes.map((k) => [setup.columns[k], cells[k].trim()]));
      household = householdFromCsv(inputColumns, cells.filter((_, k) => !tagIndexes.includes(k)));
    } else ({ household, tags } = splitTags(plan, householdFromLine('jsonl', [], line)));
  } catch (err) {
    return badResult(number, `not a household: ${(err as Error).message}`);
  }
  return compareOne(plan, comparer, household, tags, number);
}

function diffBatch(batch: LineBatch, out: JsonBytes): DiffBatchResult {
  const summary = newSummary(plan);
  batch.lines.forEach((line, k) => {
    const result = compareLine(line, batch.numbers[k]);
    summarise(summary, result);
    if (setup.output) out.text(`${formatDiffLine(setup.output, plan, result)}\n`);
  });
  return { state: summary.state() };
}

export default lineWorker(diffBatch);
