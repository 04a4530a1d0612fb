import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { ContentFile } from './content-file.js';

// Content-addressed files written on a thread of their own, so that a one-shot compile goes on
// building while the last package is encoded, hashed and written. `put` hands a file's JSON
// over and returns its name to be: filled in by `flush`, which waits (without returning to the
// event loop, so a synchronous build can use it) until the thread has written every file.

export interface WriteJob {
  id: number;
  prefix: string;
  suffix: string;
  json: string;
}

export type WriteResult = { id: number; error?: undefined } & ContentFile | { id: number; error: string };

/** JSON handed over and not yet written, beyond which `put` waits for the thread to catch up. */
const MAX_IN_FLIGHT = 4 * 1024 * 1024;
/** How long the thread may go without finishing a file before it is taken for dead. */
const STALL_MS = 120_000;

const WORKER = new URL('./write-worker.js', import.meta.url);

export class WriteThread {
  /** Whether there is a compiled worker to start (not when running from the TypeScript sources, as tests do). */
  static readonly available = existsSync(fileURLToPath(WORKER));

  private readonly worker: Worker;
  private readonly port: MessagePort;
  /** Files the thread has finished (its answers posted), in shared memory. */
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, { into: ContentFile; bytes: number }>();
  private sent = 0;
  private received = 0;
  private inFlight = 0;
  private error: string | undefined;

  constructor(readonly out: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER, { workerData: { out, port: port2, done: this.done }, transferList: [port2] });
    this.worker.unref();
  }

  /** Write `json` as `<prefix><sha><suffix>`: the name is filled in by `flush`. */
  put(prefix: string, suffix: string, json: string): ContentFile {
    const into = { file: '', sha: '' };
    const id = this.sent++;
    this.pending.set(id, { into, bytes: json.length });
    this.inFlight += json.length;
    this.port.postMessage({ id, prefix, suffix, json } satisfies WriteJob);
    if (this.inFlight > MAX_IN_FLIGHT) this.wait(MAX_IN_FLIGHT / 2);
    return into;
  }

  /** Wait until every file is written, then stop the thread; throws if one could not be. */
  flush(): void {
    this.wait(0);
    void this.worker.terminate();
    if (this.error) throw new Error(`writing the compiled output: ${this.error}`);
  }

  /** Take the thread's answers until at most `limit` bytes of JSON are still unwritten. */
  private wait(limit: number): void {
    let lastProgress = Date.now();
    while (this.received < this.sent && this.inFlight > limit) {
      const answer = receiveMessageOnPort(this.port)?.message as WriteResult | undefined;
      if (answer) {
        this.take(answer);
        lastProgress = Date.now();
        continue;
      }
      // nothing answered yet: sleep until the thread counts another file done
      if (Atomics.wait(this.done, 0, this.received, 1000) === 'timed-out' && Date.now() - lastProgress > STALL_MS) {
        throw new Error(`writing the compiled output: the writing thread finished nothing for ${STALL_MS / 1000} s`);
      }
    }
  }

  private take(answer: WriteResult): void {
    const entry = this.pending.get(answer.id)!;
    this.pending.delete(answer.id);
    this.received++;
    this.inFlight -= entry.bytes;
    if (answer.error !== undefined) this.error ??= answer.error;
    else Object.assign(entry.into, { file: answer.file, sha: answer.sha });
  }
}
