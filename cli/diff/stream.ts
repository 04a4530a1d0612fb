import path from 'node:path';
import type { DiffPlan } from '../../compiler/diff/plan.js';
import type { DiffSummary } from '../../compiler/diff/summary.js';
import { newSummary } from '../../lib/diff.js';
import { checkHeader, openInput, progressBar } from '../calculate/stream.js';
import { formatOf } from '../calculate/rows.js';
import { UsageError } from '../exit-codes.js';
import { LineSink, runLinePool } from '../line-pool.js';
import { requireFolder } from '../os-errors.js';
import { ProgressLine } from '../output.js';
import { diffCsvHeader } from './lines.js';
import type { DiffBatchResult, DiffWorkerSetup } from './worker.js';

// `rules diff --input`: households read as `rules calculate --input` reads them (its line reader
// and CSV header), compared through the same pool of worker threads in batches (../line-pool.ts),
// each batch's summary added to the run's and its lines written in input order, in constant memory.

export interface DiffStreamOptions {
  input: string;
  output?: string;
  workers: number;
}

export interface DiffRunStats {
  duration_ms: number;
  households_per_s: number;
  workers: number;
  peak_rss_mb: number;
}

/** CSV input: `period`, the weight and --by columns, and inputs of either side's main entity. */
function checkDiffColumns(plan: DiffPlan, columns: string[], input: string): void {
  const tags = new Set(['period', ...(plan.weight ? [plan.weight] : []), ...plan.by]);
  const sides = [plan.base.loaded, plan.reform.loaded];
  const isInput = (c: string) => sides.some((l) => l.resolveInput(l.pkg.main_entity, c));
  const names = [...new Set(sides.flatMap((l) => l.entity(l.pkg.main_entity)?.inputs.map((i) => i.name) ?? []))];
  checkHeader(columns, input, (c) => tags.has(c) || isInput(c), `not an input of the ${plan.base.loaded.pkg.main_entity} on either side, nor --weight or --by (period, ${names.join(', ')})`);
  if (plan.weight && !columns.includes(plan.weight)) throw new UsageError(`${input}: no column \`${plan.weight}\` for --weight`);
  for (const by of plan.by) if (!columns.includes(by) && !(by in plan.byInputs)) throw new UsageError(`${input}: no column \`${by}\` for --by, and it is not an input of the ${plan.base.loaded.pkg.main_entity}`);
}

export async function streamDiff(plan: DiffPlan, setup: Omit<DiffWorkerSetup, 'input' | 'columns' | 'output'>, options: DiffStreamOptions): Promise<{ summary: DiffSummary; stats: DiffRunStats }> {
  const outputFormat = options.output ? formatOf(options.output) : null;
  if (options.output) requireFolder(path.dirname(path.resolve(options.output)), `--output ${options.output}: its folder`);
  const { format, chunks, share, columns, linesBefore } = await openInput(options.input);
  if (format === 'csv') checkDiffColumns(plan, columns, options.input);

  const sink = outputFormat ? new LineSink(options.output, process.stdout) : undefined;
  const workerSetup: DiffWorkerSetup = { ...setup, input: format, columns, output: outputFormat };
  const summary = newSummary(plan);
  const progress = new ProgressLine();
  const started = performance.now();
  let done = 0;
  let changed = 0;
  const show = () => {
    const rate = Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
    progress.update(`${progressBar(share())}${done.toLocaleString('en-US')} households compared, ${changed.toLocaleString('en-US')} changed, ${rate.toLocaleString('en-US')}/s`);
  };
  try {
    if (outputFormat === 'csv') await sink!.write(diffCsvHeader(plan) + '\n');
    await runLinePool<DiffBatchResult>({
      chunks,
      linesBefore,
      worker: new URL('./worker.js', import.meta.url),
      workerData: workerSetup,
      workers: options.workers,
      onResult: async (result) => {
        summary.addBlankLines(result.blankLines);
        summary.merge(result.state);
        done += result.lines;
        changed += result.state.all.changed;
        await sink?.write(result.pieces);
        show();
      },
    });
    await sink?.close();
  } finally {
    progress.clear();
  }
  const duration = Math.round(performance.now() - started);
  const result = summary.summary();
  const households = result.households + result.bad_lines.count;
  return {
    summary: result,
    stats: { duration_ms: duration, households_per_s: Math.round(households / Math.max(0.001, duration / 1000)), workers: options.workers, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) },
  };
}
