import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parseModuleText } from '../1-parse/module.js';
import { contentHash } from '../1-parse/parse-cache.js';
import type { ParseJob, ParseResult } from './source-tree.js';

// A worker of SourceTree.preload: parses its share of the module files and sends the modules
// back as it goes (a structured clone), a batch at a time so that the main thread takes them in
// while this one parses on. A module with errors is sent as none: the main thread parses it again.

const BATCH_BYTES = 1_000_000;

let batch: ParseResult[] = [];
let bytes = 0;
for (const { target, file } of workerData as ParseJob[]) {
  const text = readFileSync(file, 'utf8');
  const mod = { ...parseModuleText(text, file, target), hash: contentHash(text) };
  batch.push({ target, file, module: mod.errors.length ? null : mod });
  bytes += text.length;
  if (bytes >= BATCH_BYTES) {
    parentPort!.postMessage(batch);
    batch = [];
    bytes = 0;
  }
}
parentPort!.postMessage(batch);
