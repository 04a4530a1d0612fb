import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { move, Piscina, transferableSymbol, valueSymbol } from 'piscina';
import { JsonBytes } from '../server/json-bytes.js';
import { UsageError } from './exit-codes.js';
import { isOsError, osReason } from './os-errors.js';

// Input lines through a pool of worker threads in batches, each batch's result handled in input
// order (`rules calculate --input`, `rules diff --input`). The main thread only moves bytes: it
// cuts the input at line ends into batches, moves each to a worker (transferred, not copied), and
// writes the bytes the worker moves back; decoding, splitting, parsing, calculating and encoding
// happen in the workers. At most a few batches per worker are in flight, so memory stays
// constant however long the input is.

/** A batch closes at the first line end after this many lines, or this many bytes. */
const BATCH_LINES = 256;
const BATCH_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/** Input bytes as the main thread hands them to a worker: whole lines, the first numbered `firstLine`. */
export interface RawBatch {
  firstLine: number;
  bytes: Uint8Array<ArrayBuffer>;
}

/** A batch's lines as a worker's handler reads them: the non-blank ones, with their input line numbers. */
export interface LineBatch {
  numbers: number[];
  lines: string[];
}

/** What a pool worker answers for a batch: its handler's fields, the output as UTF-8 pieces, and the lines it read. */
export type PoolResult<R> = R & { pieces: Uint8Array[]; lines: number; blankLines: number };

export interface LinePoolOptions<R> {
  /** The input's bytes, from where the lines start (after a CSV header). */
  chunks: AsyncIterable<Uint8Array>;
  /** Lines already read before these (a CSV header). */
  linesBefore: number;
  /** The worker module: its default export is `lineWorker(handler)`. */
  worker: URL;
  workerData: unknown;
  workers: number;
  /** Each batch's result, in input order. */
  onResult(result: PoolResult<R>): Promise<void> | void;
}

// a byte-order mark is kept as text (as every line's bytes are), never dropped where a batch happens to start
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The lines of a raw batch: blank ones counted, not kept; a line's `\r\n` end read as its end. */
export function readBatch(raw: RawBatch): LineBatch & { blankLines: number } {
  const all = decoder.decode(raw.bytes).split('\n');
  if (all[all.length - 1] === '') all.pop(); // the batch's final line end
  const batch: LineBatch & { blankLines: number } = { numbers: [], lines: [], blankLines: 0 };
  all.forEach((line, k) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') batch.blankLines++;
    else {
      batch.numbers.push(raw.firstLine + k);
      batch.lines.push(text);
    }
  });
  return batch;
}

/**
 * A pool worker's default export: `handle` writes a batch's output lines into `out` and answers
 * any fields of its own; the output goes back as the UTF-8 chunks it was written in, each a buffer
 * of its own, moved to the main thread rather than copied.
 */
export function lineWorker<R extends object>(handle: (batch: LineBatch, out: JsonBytes) => R): (raw: RawBatch) => PoolResult<R> {
  return (raw) => {
    const batch = readBatch(raw);
    const out = new JsonBytes();
    const value = { ...handle(batch, out), pieces: out.pieces(), lines: batch.lines.length, blankLines: batch.blankLines };
    return move({ [transferableSymbol]: value.pieces.map((p) => p.buffer), [valueSymbol]: value }) as unknown as PoolResult<R>;
  };
}

/** Whole lines from a byte stream, a batch at a time: each cut after a line end, the last one at the end of the input. */
export async function* rawBatches(chunks: AsyncIterable<Uint8Array>, linesBefore: number): AsyncGenerator<RawBatch> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let lines = 0; // line ends in `parts`
  let firstLine = linesBefore + 1;
  const take = (until: number): RawBatch => {
    // a buffer of its own (never a slice of Node's shared pool), since it is moved to a worker; not zero-filled, as every byte is copied in
    const bytes = Buffer.allocUnsafeSlow(until) as Uint8Array<ArrayBuffer>;
    let at = 0;
    for (const part of parts) {
      const n = Math.min(part.length, until - at);
      bytes.set(n === part.length ? part : part.subarray(0, n), at);
      at += n;
      if (at === until) break;
    }
    const batch = { firstLine, bytes };
    firstLine += lines;
    return batch;
  };
  for await (const chunk of chunks) {
    let lastEnd = -1;
    let ends = 0;
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) {
      ends++;
      lastEnd = i;
    }
    parts.push(chunk);
    size += chunk.length;
    lines += ends;
    if (lastEnd < 0 || (lines < BATCH_LINES && size < BATCH_BYTES)) continue;
    yield take(size - chunk.length + lastEnd + 1);
    const rest = chunk.subarray(lastEnd + 1);
    parts = rest.length ? [rest] : [];
    size = rest.length;
    lines = 0;
  }
  if (size) yield take(size);
}

/**
 * Batches in flight per worker: one being worked on, one waiting. More only held more output in
 * memory: real-size sparse households (45 KB answers, 11 MB a batch) peaked at 520-630 MiB with
 * four and 390-450 MiB with two, and ran no slower (7,500-7,850 against 5,760-6,860/s); one left
 * the workers waiting for the main thread (7,000-7,100/s).
 */
const BATCHES_PER_WORKER = 2;

export async function runLinePool<R>(options: LinePoolOptions<R>): Promise<void> {
  const pool = new Piscina({ filename: options.worker.href, workerData: options.workerData, minThreads: options.workers, maxThreads: options.workers, idleTimeout: 1000 });
  const inFlight: Promise<PoolResult<R>>[] = [];
  const drainOne = async () => options.onResult(await inFlight.shift()!);
  try {
    for await (const batch of rawBatches(options.chunks, options.linesBefore)) {
      inFlight.push(pool.run(batch, { transferList: [batch.bytes.buffer] }) as Promise<PoolResult<R>>);
      if (inFlight.length >= options.workers * BATCHES_PER_WORKER) await drainOne();
    }
    while (inFlight.length) await drainOne();
  } finally {
    await pool.destroy();
  }
}

/** Where a run's lines go: a file (`--output`) or another stream; a write error is a usage error naming the flag. */
export class LineSink {
  private readonly out: Writable;
  /** A write error (disk full, closed pipe) is kept and raised at the next write; `once` rejects on it while waiting. */
  private failure: Error | undefined;

  constructor(
    private readonly file: string | undefined,
    fallback: Writable,
  ) {
    this.out = file ? createWriteStream(file) : fallback;
    this.out.on('error', (err) => (this.failure ??= this.failed(err)));
  }

  private failed(err: unknown): UsageError {
    return new UsageError(`--output ${this.file ?? 'stdout'}: ${isOsError(err) ? osReason(err) : String(err)}`);
  }

  /** Text, or a batch's UTF-8 pieces (written together). */
  async write(data: string | Uint8Array[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (!data.length) return;
    try {
      let flowing = true;
      if (typeof data === 'string') flowing = this.out.write(data);
      else {
        this.out.cork(); // the pieces go out together (one writev), not one write each
        for (const piece of data) flowing = this.out.write(piece);
        this.out.uncork();
      }
      if (!flowing) await once(this.out, 'drain');
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** Finish a file (stdout stays open). */
  async close(): Promise<void> {
    if (!this.file) return;
    this.out.end();
    await once(this.out, 'finish').catch((err) => {
      throw this.failed(err);
    });
  }
}
