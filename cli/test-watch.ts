import { existsSync } from 'node:fs';
import path from 'node:path';
import { ParseCache } from '../compiler/1-parse/parse-cache.js';
import { fileRole, isTestFile } from '../compiler/2-resolve/corpus-layout.js';
import { isInside, SourceTree } from '../compiler/2-resolve/source-tree.js';
import { type CaseResult, type RunOptions, runTestFile, testedTargets } from '../compiler/companion-tests/run-file.js';
import { watchSources } from '../compiler/watch.js';
import { EXIT_FAILURES, EXIT_OK } from './exit-codes.js';
import { displayPath, formatDuration, painter } from './output.js';
import { humanReport } from './test-report/human.js';
import { summarize, type TestRun } from './test-report/summary.js';
import { untilStopSignal } from './stop-signal.js';

// `rules test --watch`: after the first run, each change under the roots re-runs only the test
// files whose module reaches a changed module through its imports (and changed test files
// themselves), in this process, on one source tree that keeps every module it parsed: an edit
// costs the parse of the edited file and the run of the tests it concerns, never a rescan.

export interface WatchStart {
  roots: string[];
  /** The paths the command named (none: every test of the roots). */
  paths: string[];
  /** The test files of the first run. */
  selected: string[];
  results: CaseResult[];
  /** Test file → module targets it reaches, from the first run. */
  closures: Map<string, string[]>;
  cacheDir?: string;
  json?: boolean;
  run: RunOptions;
}


/** Watch until SIGINT or SIGTERM; `ready` reports the first run once edits are being watched. */
export async function watchTests(start: WatchStart, ready: () => void): Promise<number> {
  const tree = new SourceTree(start.roots, start.cacheDir ? new ParseCache(start.cacheDir) : undefined);
  const results = new Map<string, CaseResult[]>(start.selected.map((f) => [f, []]));
  for (const r of start.results) results.get(r.file)?.push(r);
  const closures = new Map(start.closures);
  // a new test file is run when the roots' layout runs it and the command's paths (if any) cover it
  const asked = start.paths.map((p) => path.resolve(p));
  const inLayout = (file: string) => start.roots.some((r) => isInside(file, r) && fileRole(path.relative(r, file).split(path.sep)) === 'test');
  const covers = (file: string) => inLayout(file) && (!asked.length || asked.some((p) => p === file || isInside(file, p)));
  let runs = 0;

  const concerned = (changed: string[]): string[] => {
    const rerun = new Set<string>();
    for (const file of changed.map((f) => path.resolve(f))) {
      if (isTestFile(file)) {
        if (existsSync(file) && (results.has(file) || covers(file))) rerun.add(file);
        else if (!existsSync(file)) {
          results.delete(file);
          closures.delete(file);
        }
        continue;
      }
      const target = tree.targetFor(file);
      if (!target) continue;
      tree.invalidate(target);
      for (const [test, targets] of closures) if (targets.includes(target)) rerun.add(test);
    }
    return [...rerun].sort();
  };

  const rerun = (changed: string[]) => {
    const started = performance.now();
    const files = concerned(changed);
    const ran = files.flatMap((file) => {
      const out = runTestFile(tree, file, start.run);
      results.set(file, out);
      closures.set(file, testedTargets(tree, file));
      return out;
    });
    const cache = tree.cache?.drain();
    const run: TestRun = { summary: summarize(files.length, ran), results: ran, warnings: cache?.warnings ?? [], durationMs: performance.now() - started };
    const all = summarize(results.size, [...results.values()].flat());
    printRun(++runs, changed, run, all, start.json);
  };

  const stopped = untilStopSignal();
  const watcher = watchSources(start.roots, rerun, (err) => process.stderr.write(`rules: re-run failed: ${err instanceof Error ? err.message : String(err)}\n`));
  await watcher.ready;
  ready();
  if (!start.json) process.stdout.write(painter(process.stdout)('dim', `watching ${start.roots.map(displayPath).join(', ')} for changes (Ctrl-C to stop)`) + '\n');
  await stopped;
  await watcher.close();
  const all = [...results.values()].flat();
  return all.some((r) => r.status !== 'pass') ? EXIT_FAILURES : EXIT_OK;
}

function printRun(n: number, changed: string[], run: TestRun, all: ReturnType<typeof summarize>, json?: boolean): void {
  const edited = changed.map(displayPath);
  if (json) {
    const results = run.results.map((r) => ({ ...r, file: displayPath(r.file) }));
    const stats = { duration_ms: Math.round(run.durationMs), peak_rss_bytes: process.resourceUsage().maxRSS * 1024 };
    process.stdout.write(JSON.stringify({ run: n, changed: edited, summary: run.summary, results, warnings: run.warnings.map((w) => ({ ...w, path: displayPath(w.path) })), totals: all, stats }) + '\n');
    return;
  }
  const paint = painter(process.stdout);
  const head = `${paint('cyan', `run ${n}`)} ${edited.join(', ')} changed`;
  if (!run.summary.files) {
    process.stdout.write(`${head}: no test file depends on it ${paint('dim', `· ${formatDuration(run.durationMs)}`)}\n`);
    return;
  }
  const broken = all.failed + all.errored;
  process.stdout.write(`${head} → ${run.summary.files} test files\n${humanReport(run, paint)}${paint('dim', `in all: ${all.files} test files, ${all.cases} cases, ${broken} failing`)}\n`);
}
