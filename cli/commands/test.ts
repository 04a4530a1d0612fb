import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CacheStats, newCacheRun } from '../../compiler/1-parse/parse-cache.js';
import { type CorpusLayout, defaultProgramsDirs, holdsJurisdictions, isTestFile, type LayoutWarning, scanCorpus } from '../../compiler/2-resolve/corpus-layout.js';
import { isInside, walkFiles } from '../../compiler/2-resolve/source-tree.js';
import { CONTENT_ROOTS, isJurisdiction, PROGRAMS_FOLDER } from '../../compiler/names.js';
import type { CaseResult } from '../../compiler/companion-tests/run-file.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { displayPath, painter, ProgressLine } from '../output.js';
import { addCacheOptions, addReports, type CacheOptions, parseCacheDir } from '../parse-cache-options.js';
import { githubReport } from '../test-report/github.js';
import { humanReport } from '../test-report/human.js';
import { junitReport } from '../test-report/junit.js';
import { summarize, type TestRun } from '../test-report/summary.js';
import { runInPool } from '../test-pool/pool.js';
import { watchTests } from '../test-watch.js';
import { collect } from '../options.js';
import { defaultRoots } from '../default-roots.js';
import { ensureWritableFolder, isOsError, osReason } from '../os-errors.js';

// `rules test [PATH...]`: run the companion *.test.yaml cases of modules, in parallel.

interface TestOptions extends CacheOptions {
  root?: string[];
  filter?: string;
  json?: boolean;
  workers?: number;
  strict?: boolean;
  watch?: boolean;
  reporter: Reporter;
  reporterOutput?: string;
}

const REPORTERS = ['human', 'junit', 'github'] as const;
type Reporter = (typeof REPORTERS)[number];

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return n;
}

export function registerTest(program: Command): void {
  const command = program
    .command('test')
    .description('run the companion *.test.yaml cases of RuleSpec modules')
    .argument('[paths...]', 'module or test files, or folders to search (default: every root)')
    .option('-r, --root <dir>', 'encoding root holding jurisdiction folders (us/, us-co/, uk-kingston-upon-thames/, …); repeatable (default: inferred from the paths; without paths ./rulespec, else the current folder if it holds jurisdiction folders, else the bundled encodings)', collect)
    .option('-f, --filter <text>', 'only cases whose name (or file path) contains this text')
    .option('--json', 'print one JSON object: {summary, results, warnings, stats}')
    .option('-w, --workers <n>', 'worker threads (default: one per core)', positiveInteger)
    .option('--strict', "also apply the reference harness's stricter rules: no key given twice once `<<:` merges are flattened, inputs only under content roots")
    .option('--watch', 'keep running: on every change under the roots, re-run the test files whose module import closure the change touches (stop with Ctrl-C)')
    .addOption(new Option('--reporter <name>', 'report format: human, junit (JUnit XML) or github (GitHub Actions annotations)').choices(REPORTERS).default('human'))
    .option('--reporter-output <file>', "write the --reporter report to this file (default: stdout, in place of the human report); stdout keeps the human or --json report")
    .addHelpText('after', '\nExit status: 0 all cases pass, 1 some case fails or errors, 2 usage or configuration error.\nWith --watch, on Ctrl-C or SIGTERM: 1 if some case of the selection fails as of the last run, else 0.');
  addCacheOptions(command);
  command.action(async (paths: string[], options: TestOptions) => {
    process.exitCode = await runTests(paths, options);
  });
}

/**
 * The encoding root a path sits in: the parent of its jurisdiction folder. Module paths may hold
 * folders named like a jurisdiction (`…/poms/si-01415-058/…`), so the innermost such folder whose
 * next folder is a content root (statutes/, regulations/, …) or programs/ wins, else the outermost;
 * failing both, a folder that holds jurisdiction folders is a root itself.
 */
function inferRoot(p: string): string | undefined {
  let dir = path.resolve(p);
  if (existsSync(dir) && statSync(dir).isFile()) dir = path.dirname(dir);
  const asked = dir;
  const known = new Set<string>([...CONTENT_ROOTS, PROGRAMS_FOLDER]);
  let outermost: string | undefined;
  for (let child: string | undefined; ; child = path.basename(dir), dir = path.dirname(dir)) {
    if (isJurisdiction(path.basename(dir))) {
      if (child && known.has(child)) return path.dirname(dir);
      outermost = path.dirname(dir);
    }
    if (path.dirname(dir) === dir) return outermost ?? (existsSync(asked) && holdsJurisdictions(asked) ? asked : undefined);
  }
}

function resolveRoots(paths: string[], options: TestOptions): string[] {
  const roots = options.root?.length ? options.root : [...new Set(paths.map(inferRoot).filter((r): r is string => !!r))];
  const chosen = roots.length ? roots : paths.length ? [process.cwd()] : defaultRoots();
  for (const root of chosen) {
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`root ${root} is not a folder`);
  }
  return chosen.map((r) => path.resolve(r));
}


/** The test files to run: every test of the roots' layout, or those the paths name. */
function discover(paths: string[], roots: string[], layout: CorpusLayout): string[] {
  const files = new Set<string>(paths.length ? [] : layout.tests);
  const targets = paths.length ? paths : roots;
  for (const p of paths) {
    if (!existsSync(p)) throw new UsageError(`no such file or folder: ${p}`);
    const abs = path.resolve(p);
    if (statSync(abs).isDirectory()) {
      // within a root, the tests its layout runs (the rest is in the warnings); elsewhere, all
      const inRoot = roots.some((r) => isInside(abs, r));
      for (const f of inRoot ? layout.tests.filter((t) => isInside(t, abs)) : walkFiles(abs, isTestFile)) files.add(f);
    } else if (isTestFile(abs)) {
      files.add(abs);
    } else if (abs.endsWith('.yaml')) {
      const companion = abs.replace(/\.yaml$/, '.test.yaml');
      if (!existsSync(companion)) throw new UsageError(`${p} has no companion test file (${path.basename(companion)})`);
      files.add(companion);
    } else {
      throw new UsageError(`${p} is neither a folder, a module (.yaml) nor a test file (.test.yaml)`);
    }
  }
  if (files.size === 0) {
    const unread = warningsFor(paths, layout).map((w) => `\n  ${displayPath(w.path)}: ${w.reason}`);
    throw new UsageError(`no companion test files (*.test.yaml) under ${targets.join(', ')}${unread.length ? `; not read:${unread.join('')}` : ''}`);
  }
  return [...files];
}

/** What the roots do not let run, under the paths asked for (all of it without paths). */
function warningsFor(paths: string[], layout: CorpusLayout): LayoutWarning[] {
  if (!paths.length) return layout.warnings;
  return layout.warnings.filter((w) => paths.some((p) => isInside(w.path, path.resolve(p))));
}

async function runTests(paths: string[], options: TestOptions): Promise<number> {
  if (options.reporterOutput && options.reporter === 'human') throw new UsageError('--reporter-output writes the --reporter report: it needs --reporter junit or github');
  if (options.json && options.reporter !== 'human' && !options.reporterOutput) {
    throw new UsageError(`--json and --reporter ${options.reporter} would both write to stdout; name a file with --reporter-output`);
  }
  if (options.watch && options.reporter !== 'human') throw new UsageError('--watch reports each run in the human form or as --json, not with --reporter');
  const roots = resolveRoots(paths, options);
  const layout = scanCorpus(roots, defaultProgramsDirs(roots));
  const files = discover(paths, roots, layout);
  const warnings = warningsFor(paths, layout);
  const cacheDir = parseCacheDir(options);
  const startedAt = new Date();
  const started = performance.now();
  const progress = new ProgressLine();
  let passed = 0;
  let failed = 0;
  const pool = await runInPool(
    files,
    { roots, filter: options.filter, strict: options.strict, cache: cacheDir ? { dir: cacheDir, run: newCacheRun() } : undefined, closures: options.watch },
    (p) => {
      for (const r of p.results) r.status === 'pass' ? passed++ : failed++;
      if (!options.json) progress.update(`testing ${p.files}/${files.length} files · ${passed} passed · ${failed} failed`);
    },
    options.workers,
  );
  progress.clear();
  // an empty selection is a mistake in the command (a typo in CI must not pass)
  if (options.filter !== undefined && !pool.results.length) throw new UsageError(`--filter ${JSON.stringify(options.filter)} matches no case in the ${files.length} test files`);
  const cache = cacheDir ? addReports(pool.cache) : undefined;
  const run: TestRun = { summary: summarize(files.length, pool.results), results: pool.results, warnings: [...warnings, ...(cache?.warnings ?? [])], durationMs: performance.now() - started };
  const reportFirst = () => report(run, options, startedAt, cache?.stats);
  if (options.watch) {
    // the first report comes once the watcher is ready: an edit after it is never missed
    return watchTests({ roots, paths, selected: files, results: pool.results, closures: pool.closures, cacheDir, json: options.json, run: { filter: options.filter, strict: options.strict } }, reportFirst);
  }
  reportFirst();
  return run.summary.failed + run.summary.errored > 0 ? EXIT_FAILURES : EXIT_OK;
}

function report(run: TestRun, options: TestOptions, startedAt: Date, cache: CacheStats | undefined): void {
  const other = options.reporter === 'junit' ? junitReport(run, startedAt) : options.reporter === 'github' ? githubReport(run) : undefined;
  if (other !== undefined && options.reporterOutput) writeReport(options.reporterOutput, other);
  if (options.json) {
    const stats = { duration_ms: Math.round(run.durationMs), peak_rss_bytes: process.resourceUsage().maxRSS * 1024, parse_cache: cache ?? null };
    process.stdout.write(JSON.stringify({ summary: run.summary, results: run.results.map(relativeResult), warnings: run.warnings.map((w) => ({ ...w, path: displayPath(w.path) })), stats }) + '\n');
  } else if (other !== undefined && !options.reporterOutput) {
    process.stdout.write(other);
  } else {
    process.stdout.write(humanReport(run, painter(process.stdout)));
  }
}

function writeReport(file: string, text: string): void {
  ensureWritableFolder(path.dirname(path.resolve(file)), '--reporter-output');
  try {
    writeFileSync(file, text);
  } catch (err) {
    if (!isOsError(err)) throw err;
    throw new UsageError(`cannot write --reporter-output ${file}: ${osReason(err)}`);
  }
}

function relativeResult(r: CaseResult): CaseResult {
  return { ...r, file: displayPath(r.file) };
}
