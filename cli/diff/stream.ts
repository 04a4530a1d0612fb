import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Piscina } from 'piscina';
import type { DiffPlan } from '../../compiler/diff/plan.js';
import type { DiffSummary } from '../../compiler/diff/summary.js';
import { newSummary } from '../../lib/diff.js';
import { checkHeader, openInput, progressBar, readCsvHeader } from '../calculate/stream.js';
import { formatOf } from '../calculate/rows.js';
import { UsageError } from '../exit-codes.js';
import { isOsError, osReason, requireFolder } from '../os-errors.js';
import { ProgressLine } from '../output.js';
import { diffCsvHeader } from './lines.js';
import type { DiffBatch, DiffBatchResult, DiffWorkerSetup } from './worker.js';

// `rules diff --input`: households read as `rules calculate --input` reads them (its line reader
// and CSV header), compared through a pool of worker threads in batches, each batch's summary
// added to the run's and its lines written in input order. A few batches per worker are in
// flight at most, so memory stays flat however long the input is.

const BATCH_LINES = 256;

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
}

export async function streamDiff(plan: DiffPlan, setup: Omit<DiffWorkerSetup, 'input' | 'columns' | 'output'>, options: DiffStreamOptions): Promise<{ summary: DiffSummary; stats: DiffRunStats }> {
  const outputFormat = options.output ? formatOf(options.output) : null;
  if (options.output) requireFolder(path.dirname(path.resolve(options.output)), `--output ${options.output}: its folder`);
  const { format, lines, share } = openInput(options.input);
  let columns: string[] = [];
  let lineNumber = 0;
  if (format === 'csv') {
    columns = await readCsvHeader(lines, options.input);
    lineNumber++;
    checkDiffColumns(plan, columns, options.input);
  }

  const out: Writable | undefined = options.output ? createWriteStream(options.output) : undefined;
  const failed = (err: unknown) => new UsageError(`--output ${options.output}: ${isOsError(err) ? osReason(err) : String(err)}`);
  let outFailure: Error | undefined;
  out?.on('error', (err) => (outFailure ??= failed(err)));
  const write = async (text: string) => {
    if (!out || !text) return;
    try {
      if (!out.write(text)) await once(out, 'drain');
    } catch (err) {
      throw failed(err);
    }
  };

  const workerSetup: DiffWorkerSetup = { ...setup, input: format, columns, output: outputFormat };
  const pool = new Piscina({ filename: new URL('./worker.js', import.meta.url).href, workerData: workerSetup, minThreads: options.workers, maxThreads: options.workers, idleTimeout: 1000 });
  const summary = newSummary(plan);
  const progress = new ProgressLine();
  const started = performance.now();
  let done = 0;
  let changed = 0;
  const show = () => {
    const rate = Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
    progress.update(`${progressBar(share())}${done.toLocaleString('en-US')} households compared, ${changed.toLocaleString('en-US')} changed, ${rate.toLocaleString('en-US')}/s`);
  };

  const inFlight: { size: number; result: Promise<DiffBatchResult> }[] = [];
  const drainOne = async () => {
    const { size, result } = inFlight.shift()!;
    const batch = await result;
    if (outFailure) throw outFailure;
    summary.merge(batch.state);
    done += size;
    changed += batch.state.all.changed;
    await write(batch.text);
    show();
  };
  try {
    if (outputFormat === 'csv') await write(diffCsvHeader(plan) + '\n');
    let batch: DiffBatch = { numbers: [], lines: [] };
    const submit = async () => {
      inFlight.push({ size: batch.lines.length, result: pool.run(batch) as Promise<DiffBatchResult> });
      batch = { numbers: [], lines: [] };
      if (inFlight.length >= options.workers * 4) await drainOne();
    };
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') {
        summary.addBlankLine();
        continue;
      }
      batch.numbers.push(lineNumber);
      batch.lines.push(line);
      if (batch.lines.length === BATCH_LINES) await submit();
    }
    if (batch.lines.length) await submit();
    while (inFlight.length) await drainOne();
    if (out) {
      out.end();
      await once(out, 'finish').catch((err) => {
        throw failed(err);
      });
    }
  } finally {
    progress.clear();
    await pool.destroy();
  }
  const duration = Math.round(performance.now() - started);
  const result = summary.summary();
  const households = result.households + result.bad_lines.count;
  return {
    summary: result,
    stats: { duration_ms: duration, households_per_s: Math.round(households / Math.max(0.001, duration / 1000)), workers: options.workers, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) },
  };
}
