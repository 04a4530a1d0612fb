import { type MessagePort, workerData } from 'node:worker_threads';
import { putContent } from './content-file.js';
import type { WriteJob, WriteResult } from './write-thread.js';

// The thread of a WriteThread: encodes, hashes and writes each content-addressed file it is
// sent, and answers with its name (or why it could not be written), counting what it has done
// in shared memory so that the main thread can wait for it without returning to its event loop.

const { out, port, done } = workerData as { out: string; port: MessagePort; done: Int32Array };

port.on('message', ({ id, prefix, suffix, json }: WriteJob) => {
  let result: WriteResult;
  try {
    result = { id, ...putContent(out, prefix, suffix, Buffer.from(json)) };
  } catch (err) {
    result = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(result);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});
