import { type MessagePort, workerData } from 'node:worker_threads';
import { putContent } from './content-file.js';
import type { WriteJob, WriteResult } from './write-thread.js';

// The thread of a WriteThread: hashes and writes each content-addressed file it is
// sent, and answers with its name (or why it could not be written), counting what it has done
// in shared memory so that the main thread can wait for it without returning to its event loop.

const { out, port, done } = workerData as { out: string; port: MessagePort; done: Int32Array };

port.on('message', ({ id, prefix, suffix, bytes }: WriteJob) => {
  let result: WriteResult;
  try {
    result = { id, ...putContent(out, prefix, suffix, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)) };
  } catch (err) {
    result = { id, error: err instanceof Error ? err.message : String(err) };
  }
  // the bytes go back, to be freed by the main thread's next scavenge: this thread allocates
  // so little that its own collector seldom runs (kept here, 300 files of 1 MB held 69 MB)
  port.postMessage(result, [bytes.buffer as ArrayBuffer]);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});
