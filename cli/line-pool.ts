import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { move, Piscina, transferableSymbol, valueSymbol } from 'piscina';
import { UsageError } from './exit-codes.js';
import { isOsError, osReason } from './os-errors.js';

// Input lines through a pool of worker threads in batches, each batch's result handled in input
// order (`rules calculate --input`, `rules diff --input`). At most a few batches per worker are
// in flight, so memory stays constant however long the input is.

const BATCH_LINES = 256;

export interface LineBatch {
  /** Input line number of each line. */
  numbers: number[];
  lines: string[];
}

export interface LinePoolOptions<R> {
  lines: AsyncIterable<string>;
  /** Lines already read before these (a CSV header). */
  linesBefore: number;
  /** The worker module: its default export turns a LineBatch into R. */
  worker: URL;
  workerData: unknown;
  workers: number;
  onBlankLine(): void;
  /** Each batch's result, in input order. */
  onResult(result: R, batch: LineBatch): Promise<void> | void;
}

export async function runLinePool<R>(options: LinePoolOptions<R>): Promise<void> {
  const pool = new Piscina({ filename: options.worker.href, workerData: options.workerData, minThreads: options.workers, maxThreads: options.workers, idleTimeout: 1000 });
  const inFlight: { batch: LineBatch; result: Promise<R> }[] = [];
  const drainOne = async () => {
    const { batch, result } = inFlight.shift()!;
    await options.onResult(await result, batch);
  };
  try {
    let batch: LineBatch = { numbers: [], lines: [] };
    const submit = async () => {
      inFlight.push({ batch, result: pool.run(batch) as Promise<R> });
      batch = { numbers: [], lines: [] };
      if (inFlight.length >= options.workers * 4) await drainOne();
    };
    let lineNumber = options.linesBefore;
    for await (const line of options.lines) {
      lineNumber++;
      if (line.trim() === '') {
        options.onBlankLine();
        continue;
      }
      batch.numbers.push(lineNumber);
      batch.lines.push(line);
      if (batch.lines.length === BATCH_LINES) await submit();
    }
    if (batch.lines.length) await submit();
    while (inFlight.length) await drainOne();
  } finally {
    await pool.destroy();
  }
}

/** Output text as UTF-8 bytes. */
export interface EncodedText {
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

/**
 * A worker's batch result whose output text travels as bytes moved to the main thread, not
 * copied: the worker encodes it (its own buffer, never Node's shared pool) and the main thread
 * only writes it, so its one core is not spent on text the workers made.
 */
export function withEncodedText<R extends object>(result: R, text: string): R & EncodedText {
  const value = { ...result, bytes: encoder.encode(text) };
  return move({ [transferableSymbol]: [value.bytes.buffer], [valueSymbol]: value }) as unknown as R & EncodedText;
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

  async write(text: string | Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (!text.length) return;
    try {
      if (!this.out.write(text)) await once(this.out, 'drain');
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
