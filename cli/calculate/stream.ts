import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import type { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { LineSink, runLinePool } from '../line-pool.js';
import { formatDuration, ProgressLine } from '../output.js';
import { UsageError } from '../exit-codes.js';
import { requireFolder } from '../os-errors.js';
import { csvHeader, formatOf, type LineFormat, parseCsvLine } from './rows.js';
import type { BatchResult, WorkerSetup } from './worker.js';

// `rules calculate --input`: households streamed through a pool of worker threads in batches
// (../line-pool.ts), results written in input order, in constant memory.

/** Errors kept for the summary (every error is also in the output, on its line). */
const ERRORS_KEPT = 100;
/** Errors the readable summary lists. */
const ERRORS_SHOWN = 10;

export interface StreamOptions {
  input: string; // a file, or '-' for stdin
  output?: string; // a file; stdout when absent
  variables: string[];
  trace: boolean;
  explain: boolean;
  assumptions: 'allow' | 'refuse';
  workers: number;
  timeoutMs: number;
}

export interface StreamSummary {
  input: string;
  output: string;
  households: number;
  ok: number;
  failed: number;
  /** Blank lines, skipped. */
  blank_lines: number;
  /** The first failures (all are in the output), by input line number. */
  errors: { line: number; message: string }[];
  duration_ms: number;
  households_per_s: number;
  workers: number;
  /** The process's peak resident memory, worker threads included. */
  peak_rss_mb: number;
}

/** CSV input: the header's columns must be `period` or inputs of the package's main entity. */
function checkColumns(loaded: LoadedPackage, columns: string[], input: string): void {
  const main = loaded.pkg.main_entity;
  checkHeader(columns, input, (c) => c === 'period' || Boolean(loaded.resolveInput(main, c)), `not an input of the ${main} (period, ${loaded.entity(main)?.inputs.map((i) => i.name).join(', ')})`);
}

/** A CSV header: every column known (`isKnown`; `unknown` says what the others are not), none twice. */
export function checkHeader(columns: string[], input: string, isKnown: (column: string) => boolean, unknownReason: string): void {
  const unknown = columns.filter((c) => !isKnown(c));
  if (unknown.length) throw new UsageError(`${input}: column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `\`${c}\``).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} ${unknownReason}`);
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) throw new UsageError(`${input}: column \`${c}\` appears twice in the header`);
    seen.add(c);
  }
}

/** The first line of a byte stream (a CSV header) and the stream's bytes after it; null for an empty stream. */
async function splitFirstLine(chunks: AsyncIterator<Uint8Array>): Promise<{ first: string; rest: AsyncIterable<Uint8Array> } | null> {
  const parts: Uint8Array[] = [];
  for (;;) {
    const next = await chunks.next();
    if (next.done) {
      if (!parts.length) return null;
      return { first: Buffer.concat(parts).toString('utf8'), rest: (async function* () {})() };
    }
    const end = next.value.indexOf(0x0a);
    if (end < 0) {
      parts.push(next.value);
      continue;
    }
    parts.push(next.value.subarray(0, end));
    const after = next.value.subarray(end + 1);
    const rest = (async function* () {
      if (after.length) yield after;
      for (let more = await chunks.next(); !more.done; more = await chunks.next()) yield more.value;
    })();
    return { first: Buffer.concat(parts).toString('utf8'), rest };
  }
}

/**
 * The households of `--input` (a file or stdin) as bytes (../line-pool.ts cuts them into lines),
 * with how much of a file is read so far; a CSV input's header is read first (its columns;
 * `linesBefore` counts it).
 */
export async function openInput(input: string): Promise<{ format: LineFormat; chunks: AsyncIterable<Uint8Array>; share: () => number | undefined; columns: string[]; linesBefore: number }> {
  const totalBytes = input === '-' ? undefined : statSync(input).size;
  const source: AsyncIterable<Uint8Array> = input === '-' ? process.stdin : createReadStream(input, { highWaterMark: 1024 * 1024 });
  let bytes = 0;
  const counted = (async function* () {
    for await (const chunk of source) {
      bytes += chunk.length;
      yield chunk;
    }
  })();
  const format: LineFormat = input === '-' ? 'jsonl' : formatOf(input);
  const share = () => (totalBytes ? Math.min(1, bytes / totalBytes) : undefined);
  if (format !== 'csv') return { format, chunks: counted, share, columns: [], linesBefore: 0 };
  const header = await splitFirstLine(counted[Symbol.asyncIterator]());
  if (!header) throw new UsageError(`${input}: empty; a CSV input starts with a header of input names`);
  const line = header.first.endsWith('\r') ? header.first.slice(0, -1) : header.first;
  try {
    return { format, chunks: header.rest, share, columns: parseCsvLine(line).map((c) => c.trim()), linesBefore: 1 };
  } catch (err) {
    throw new UsageError(`${input}: line 1 (the header): ${(err as Error).message}`);
  }
}

/** A progress bar of the share of the input read, when it is known. */
export const progressBar = (share: number | undefined): string => (share === undefined ? '' : `[${'#'.repeat(Math.round(share * 20)).padEnd(20, '.')}] ${Math.round(share * 100)}% `);

export async function streamHouseholds(loaded: LoadedPackage, options: StreamOptions): Promise<StreamSummary> {
  const outputFormat: LineFormat = options.output ? formatOf(options.output) : 'jsonl';
  if (outputFormat === 'csv' && options.trace) throw new UsageError('--trace needs JSON Lines output (a trace does not fit in a CSV row)');
  if (outputFormat === 'csv' && options.explain) throw new UsageError('--explain needs JSON Lines output (an explanation does not fit in a CSV row)');
  if (options.output) requireFolder(path.dirname(path.resolve(options.output)), `--output ${options.output}: its folder`);
  const { format: inputFormat, chunks, share, columns, linesBefore } = await openInput(options.input);
  if (inputFormat === 'csv') checkColumns(loaded, columns, options.input);

  const sink = new LineSink(options.output, process.stdout);
  const setup: WorkerSetup = { pkg: loaded.pkg, variables: options.variables, trace: options.trace, explain: options.explain, assumptions: options.assumptions, input: inputFormat, output: outputFormat, columns, timeoutMs: options.timeoutMs };
  const summary: StreamSummary = { input: options.input, output: options.output ?? '-', households: 0, ok: 0, failed: 0, blank_lines: 0, errors: [], duration_ms: 0, households_per_s: 0, workers: options.workers, peak_rss_mb: 0 };
  const progress = new ProgressLine();
  const started = performance.now();
  const show = (force = false) => {
    const done = summary.ok + summary.failed; // calculated and written, not just read
    const rate = Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
    progress.update(`${progressBar(share())}${done.toLocaleString('en-US')} households, ${summary.failed.toLocaleString('en-US')} failed, ${rate.toLocaleString('en-US')}/s`, force);
  };
  try {
    if (outputFormat === 'csv') await sink.write(csvHeader(options.variables) + '\n');
    await runLinePool<BatchResult>({
      chunks,
      linesBefore,
      worker: new URL('./worker.js', import.meta.url),
      workerData: setup,
      workers: options.workers,
      onResult: async (result) => {
        summary.blank_lines += result.blankLines;
        summary.households += result.lines;
        summary.ok += result.ok;
        summary.failed += result.errors.length;
        for (const e of result.errors) if (summary.errors.length < ERRORS_KEPT) summary.errors.push(e);
        await sink.write(result.pieces);
        show();
      },
    });
    await sink.close();
  } finally {
    progress.clear();
  }
  summary.duration_ms = Math.round(performance.now() - started);
  summary.households_per_s = Math.round(summary.households / Math.max(0.001, summary.duration_ms / 1000));
  summary.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
  return summary;
}

/** The summary as a few readable lines. */
export function describeSummary(s: StreamSummary): string {
  const lines = [
    `${s.households.toLocaleString('en-US')} household${s.households === 1 ? '' : 's'} in ${formatDuration(s.duration_ms)} (${s.households_per_s.toLocaleString('en-US')}/s on ${s.workers} worker${s.workers > 1 ? 's' : ''}, peak memory ${s.peak_rss_mb} MiB): ${s.ok.toLocaleString('en-US')} calculated, ${s.failed.toLocaleString('en-US')} failed → ${s.output === '-' ? 'stdout' : s.output}`,
  ];
  if (s.blank_lines) lines.push(`skipped ${s.blank_lines} blank line${s.blank_lines > 1 ? 's' : ''}`);
  const shown = s.errors.slice(0, ERRORS_SHOWN);
  for (const e of shown) lines.push(`  line ${e.line}: ${e.message}`);
  if (s.failed > shown.length) lines.push(`  … and ${(s.failed - shown.length).toLocaleString('en-US')} more (each is on its line of the output)`);
  return lines.join('\n');
}
