import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CacheStats, newCacheRun } from '../../compiler/1-parse/parse-cache.js';
import { type CorpusLayout, defaultProgramsDirs, holdsJurisdictions, isTestFile, type LayoutWarning, scanCorpus } from '../../compiler/2-resolve/corpus-layout.js';
import type { ModuleCoverage } from '../../compiler/companion-tests/coverage/provisions.js';
import { isInside, walkFiles } from '../../compiler/2-resolve/source-tree.js';
import { CONTENT_ROOTS, isJurisdiction, PROGRAMS_FOLDER } from '../../compiler/names.js';
import type { CaseResult } from '../../compiler/companion-tests/run-file.js';
import { CoverageCollector } from '../../compiler/companion-tests/coverage/collector.js';
import { type CoverageReport, coverageReport } from '../../compiler/companion-tests/coverage/summary.js';
import { moduleFileOf } from '../../compiler/companion-tests/test-file.js';
import { SourceTree } from '../../compiler/2-resolve/source-tree.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { displayPath, painter, ProgressLine } from '../output.js';
import { addCacheOptions, addReports, type CacheOptions, parseCacheDir } from '../parse-cache-options.js';
import { checkThresholds, type CoverageReporter, parseCoverageReporter, parseThreshold, type Threshold, thresholdLines, writeCoverageReports } from '../test-report/coverage.js';
import { totalsJson } from '../test-report/coverage-json.js';
import { coverageText } from '../test-report/coverage-text.js';
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
  coverage?: boolean;
  coverageReporter?: CoverageReporter[];
  coverageDir?: string;
  coverageThreshold?: Threshold[];
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
    .option('--coverage', 'also count which rules, branches and dated values of the selected modules the cases exercise (and which rules they ever see other than zero or false)')
    .option('--coverage-reporter <name>', 'with --coverage: text (after the totals), json (coverage.json), lcov (lcov.info), html (html/); repeatable or comma-separated (default: text; with --json, none: the JSON carries the totals)', parseCoverageReporter)
    .option('--coverage-dir <dir>', 'with --coverage: where the json, lcov and html reports go (default: <data dir>/coverage, the data dir being RULES_DATA_DIR or .rules)')
    .option('--coverage-threshold <kind=percent>', 'with --coverage: exit 1 when a kind (rules, branches, dated-values, non-trivial, lines) is below this percent; repeatable', parseThreshold)
    .addHelpText('after', '\nExit status: 0 all cases pass, 1 some case fails or errors (or coverage is below a --coverage-threshold), 2 usage or configuration error.\nWith --watch, on Ctrl-C or SIGTERM: 1 if some case of the selection fails as of the last run, else 0.');
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

/** The coverage reporters asked for; what goes to stdout must have it to itself. */
function coverageReporters(options: TestOptions): CoverageReporter[] | undefined {
  const flag = (['coverageReporter', 'coverageDir', 'coverageThreshold'] as const).find((k) => options[k] !== undefined);
  if (!options.coverage) {
    if (flag) throw new UsageError(`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --coverage`);
    return undefined;
  }
  if (options.watch) throw new UsageError('--coverage counts one whole run; it does not combine with --watch');
  const stdoutTaken = options.json ? '--json' : options.reporter !== 'human' && !options.reporterOutput ? `--reporter ${options.reporter}` : undefined;
  if (!options.coverageReporter) return stdoutTaken ? [] : ['text'];
  if (stdoutTaken && options.coverageReporter.includes('text')) throw new UsageError(`--coverage-reporter text and ${stdoutTaken} would both write to stdout`);
  return options.coverageReporter;
}

/** The module files whose coverage is reported: every module of the selection, tested or not. */
function selectedModules(paths: string[], roots: string[], layout: CorpusLayout, testFiles: string[]): string[] {
  if (!paths.length) return layout.modules;
  const modules = new Set(testFiles.map(moduleFileOf).filter((m) => existsSync(m)));
  for (const p of paths) {
    const abs = path.resolve(p);
    if (statSync(abs).isDirectory()) {
      for (const m of layout.modules) if (isInside(m, abs)) modules.add(m);
    } else if (abs.endsWith('.yaml') && !isTestFile(abs)) {
      modules.add(abs);
    }
  }
  return [...modules].filter((m) => roots.some((r) => isInside(m, r)));
}

/** The counts of the workers (each module of a test file or that a worker read is among them),
 *  and every other selected module (a module without a test file that nothing imports) at zero. */
function finishCoverage(counted: ModuleCoverage[], modules: string[], roots: string[]): CoverageReport {
  const read = new Set(counted.map((m) => m.file));
  // few, as a rule: read here without the parse cache, whose index costs more to load than they do
  const tree = new SourceTree(roots, undefined, { lines: true });
  const collector = new CoverageCollector(() => true);
  for (const file of modules.filter((m) => !read.has(m))) {
    const target = tree.targetFor(file);
    const mod = target && tree.module(target);
    if (mod) collector.include(mod);
  }
  return coverageReport([...counted, ...collector.records()]);
}

async function runTests(paths: string[], options: TestOptions): Promise<number> {
  if (options.reporterOutput && options.reporter === 'human') throw new UsageError('--reporter-output writes the --reporter report: it needs --reporter junit or github');
  if (options.json && options.reporter !== 'human' && !options.reporterOutput) {
    throw new UsageError(`--json and --reporter ${options.reporter} would both write to stdout; name a file with --reporter-output`);
  }
  if (options.watch && options.reporter !== 'human') throw new UsageError('--watch reports each run in the human form or as --json, not with --reporter');
  const coverageWanted = coverageReporters(options);
  const coverageDir = options.coverageDir ?? path.join(process.env.RULES_DATA_DIR ?? '.rules', 'coverage');
  if (coverageWanted?.some((r) => r !== 'text')) ensureWritableFolder(path.resolve(coverageDir), '--coverage-dir');
  const roots = resolveRoots(paths, options);
  const layout = scanCorpus(roots, defaultProgramsDirs(roots));
  const files = discover(paths, roots, layout);
  const warnings = warningsFor(paths, layout);
  const modules = coverageWanted && selectedModules(paths, roots, layout, files);
  const cacheDir = parseCacheDir(options);
  const startedAt = new Date();
  const started = performance.now();
  const progress = new ProgressLine();
  let passed = 0;
  let failed = 0;
  const pool = await runInPool(
    files,
    { roots, filter: options.filter, strict: options.strict, cache: cacheDir ? { dir: cacheDir, run: newCacheRun() } : undefined, closures: options.watch, coverage: modules && { modules } },
    (p) => {
      for (const r of p.results) r.status === 'pass' ? passed++ : failed++;
      if (!options.json) progress.update(`testing ${p.files}/${files.length} files · ${passed} passed · ${failed} failed`);
    },
    options.workers,
  );
  progress.clear();
  // an empty selection is a mistake in the command (a typo in CI must not pass)
  if (options.filter !== undefined && !pool.results.length) throw new UsageError(`--filter ${JSON.stringify(options.filter)} matches no case in the ${files.length} test files`);
  if (modules && !options.json) progress.update(`adding up the coverage of ${modules.length} modules`, true);
  const coverage = modules && finishCoverage(pool.coverage, modules, roots);
  const written = coverage && writeCoverageReports(coverage, coverageWanted!, coverageDir);
  progress.clear();
  const cache = cacheDir ? addReports(pool.cache) : undefined;
  const changed = (coverage?.changed ?? []).map((file) => ({ path: file, reason: 'changed while the run read it: its coverage counts the cases that read one version of it only' }));
  const run: TestRun = { summary: summarize(files.length, pool.results), results: pool.results, warnings: [...warnings, ...(cache?.warnings ?? []), ...changed], durationMs: performance.now() - started };
  const reportFirst = () => report(run, options, startedAt, cache?.stats);
  if (options.watch) {
    // the first report comes once the watcher is ready: an edit after it is never missed
    return watchTests({ roots, paths, selected: files, results: pool.results, closures: pool.closures, cacheDir, json: options.json, run: { filter: options.filter, strict: options.strict } }, reportFirst);
  }
  let belowThreshold = false;
  if (coverage) {
    const thresholds = checkThresholds(coverage.total, options.coverageThreshold ?? []);
    report(run, options, startedAt, cache?.stats, { report: coverage, text: coverageWanted!.includes('text'), thresholds, written: written! });
    for (const line of thresholdLines(thresholds, coverage.total)) process.stderr.write(`rules: ${line}\n`);
    belowThreshold = thresholds.some((t) => !t.met);
  } else {
    reportFirst();
  }
  return run.summary.failed + run.summary.errored > 0 || belowThreshold ? EXIT_FAILURES : EXIT_OK;
}

interface CoverageOutcome {
  report: CoverageReport;
  /** Print the text report after the human one. */
  text: boolean;
  thresholds: ReturnType<typeof checkThresholds>;
  written: ReturnType<typeof writeCoverageReports>;
}

function report(run: TestRun, options: TestOptions, startedAt: Date, cache: CacheStats | undefined, coverage?: CoverageOutcome): void {
  const other = options.reporter === 'junit' ? junitReport(run, startedAt) : options.reporter === 'github' ? githubReport(run) : undefined;
  if (other !== undefined && options.reporterOutput) writeReport(options.reporterOutput, other);
  if (options.json) {
    const usage = process.resourceUsage();
    const stats = { duration_ms: Math.round(run.durationMs), cpu_ms: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), peak_rss_bytes: usage.maxRSS * 1024, parse_cache: cache ?? null };
    const covered = coverage && { coverage: { modules: coverage.report.modules.length, ...totalsJson(coverage.report), thresholds: coverage.thresholds, reports: coverage.written } };
    process.stdout.write(JSON.stringify({ summary: run.summary, results: run.results.map(relativeResult), warnings: run.warnings.map((w) => ({ ...w, path: displayPath(w.path) })), stats, ...covered }) + '\n');
  } else if (other !== undefined && !options.reporterOutput) {
    process.stdout.write(other);
  } else {
    process.stdout.write(humanReport(run, painter(process.stdout)));
    if (coverage?.text) process.stdout.write(coverageText(coverage.report, painter(process.stdout)));
    for (const [reporter, file] of Object.entries(coverage?.written ?? {})) process.stdout.write(`coverage ${reporter}: ${file}\n`);
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
