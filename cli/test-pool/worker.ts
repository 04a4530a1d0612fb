import { parentPort, workerData } from 'node:worker_threads';
import { ParseCache } from '../../compiler/1-parse/parse-cache.js';
import { SourceTree } from '../../compiler/2-resolve/source-tree.js';
import { runTestFile, testedTargets } from '../../compiler/companion-tests/run-file.js';
import type { FromWorker, ToWorker, WorkerSetup } from './messages.js';

// A test worker keeps one SourceTree for its lifetime, so a module imported by many test
// files is read and parsed once per worker.

const setup = workerData as WorkerSetup;
const tree = new SourceTree(setup.roots, setup.cache ? new ParseCache(setup.cache.dir, setup.cache.run) : undefined);

parentPort!.on('message', (msg: ToWorker) => {
  if (msg.type === 'exit') {
    parentPort!.close();
    return;
  }
  const results = msg.files.flatMap((file) => runTestFile(tree, file, { filter: setup.filter, strict: setup.strict }));
  const closures = setup.closures ? msg.files.map((file): [string, string[]] => [file, testedTargets(tree, file)]) : undefined;
  const reply: FromWorker = { type: 'results', files: msg.files.length, results, cache: tree.cache?.drain(), closures };
  parentPort!.postMessage(reply);
});
