import { parentPort, workerData } from 'node:worker_threads';
import { ParseCache } from '../../compiler/1-parse/parse-cache.js';
import { SourceTree } from '../../compiler/2-resolve/source-tree.js';
import { CoverageCollector } from '../../compiler/companion-tests/coverage/collector.js';
import { runTestFile, testedTargets } from '../../compiler/companion-tests/run-file.js';
import type { FromWorker, ToWorker, WorkerSetup } from './messages.js';

// A test worker keeps one SourceTree for its lifetime, so a module imported by many test
// files is read and parsed once per worker. With coverage, it counts over all its files and
// sends the counts once, when told to exit, with every module it read that no case reached (at
// zero: the main thread then has only the modules no worker read to count).

const setup = workerData as WorkerSetup;
const counted = setup.coverage && new Set(setup.coverage.modules);
const coverage = counted && new CoverageCollector((file) => counted.has(file));
const tree = new SourceTree(setup.roots, setup.cache ? new ParseCache(setup.cache.dir, setup.cache.run) : undefined, { lines: Boolean(coverage) });

parentPort!.on('message', (msg: ToWorker) => {
  if (msg.type === 'exit') {
    if (coverage) {
      for (const mod of tree.parsed()) coverage.include(mod);
      parentPort!.postMessage({ type: 'coverage', modules: coverage.records() } satisfies FromWorker);
    }
    parentPort!.close();
    return;
  }
  const results = msg.files.flatMap((file) => runTestFile(tree, file, { filter: setup.filter, strict: setup.strict, coverage }));
  const closures = setup.closures ? msg.files.map((file): [string, string[]] => [file, testedTargets(tree, file)]) : undefined;
  const reply: FromWorker = { type: 'results', files: msg.files.length, results, cache: tree.cache?.drain(), closures };
  parentPort!.postMessage(reply);
});
