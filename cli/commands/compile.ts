import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { buildInto, rebuildOnChange } from '../../compiler/build-into.js';
import type { Manifest } from '../../compiler/5-emit/manifest.js';
import { Workspace } from '../../compiler/workspace.js';
import { EXIT_FAILURES, EXIT_OK, UsageError } from '../exit-codes.js';
import { displayPath, formatDuration, painter, ProgressLine, warningLines } from '../output.js';
import { PACKAGE_VERSION } from '../../compiler/project.js';
import { collect } from '../options.js';
import { type CacheReport, type CacheWarning, ParseCache } from '../../compiler/1-parse/parse-cache.js';
import { addCacheOptions, type CacheOptions, cacheDir } from '../parse-cache-options.js';
import { recordStamp, stampFile, upToDate } from '../../compiler/compile-stamp.js';
import { ensureWritableFolder, isOsError, osReason } from '../os-errors.js';
import { defaultProgramsDirs, pathsWithoutSpecs } from '../../compiler/2-resolve/corpus-layout.js';
import { defaultRoots } from '../default-roots.js';
import { untilStopSignal } from '../stop-signal.js';

// `rules compile`: encodings → runtime packages, program graphs, the rule index.

/** How far V8's old generation may grow past what its last full collection kept, in percent, in a one-shot compile. */
const HEAP_GROWING_PERCENT = 100;

interface CompileOptions extends CacheOptions {
  root?: string[];
  programs?: string[];
  out: string;
  watch?: boolean;
  json?: boolean;
}


export function resolveCompileInputs(root: string[] | undefined, programs: string[] | undefined): { roots: string[]; programsDirs: string[] } {
  const roots = (root?.length ? root : defaultRoots()).map((r) => path.resolve(r));
  for (const r of roots) if (!existsSync(r) || !statSync(r).isDirectory()) throw new UsageError(`root ${r} is not a folder`);
  const programsDirs = programs?.length ? programs.map((p) => path.resolve(p)) : defaultProgramsDirs(roots);
  for (const p of programs ?? []) if (!existsSync(p)) throw new UsageError(`programs folder ${p} does not exist`);
  return { roots, programsDirs };
}

export function registerCompile(program: Command): void {
  const command = program
    .command('compile')
    .description('compile RuleSpec encodings into runtime packages, program graphs and a rule index')
    .option('-r, --root <dir>', 'encoding root holding jurisdiction folders; repeatable (default: ./rulespec, else the bundled encodings)', collect)
    .option('-p, --programs <path>', 'folder of program specs <jurisdiction>/<program>/<period>.yaml, a folder within one, or one spec file; repeatable. Compiles and indexes only these programs (and those of <root>/<jurisdiction>/programs/) with their import closures (default: every module under the roots, the specs of <root>/programs)', collect)
    .option('-o, --out <dir>', 'output folder', '.rules/compiled')
    .option('-w, --watch', 'recompile when sources change; keep the last good output on errors')
    .option('--json', 'print the result as JSON (one object per compilation)')
    .addHelpText('after', '\nExit status: 0 every program compiled, 1 some program failed, 2 usage or configuration error.');
  addCacheOptions(command).action(async (options: CompileOptions) => {
    const { roots, programsDirs } = resolveCompileInputs(options.root, options.programs);
    const out = path.resolve(options.out);
    ensureWritableFolder(out, '--out');
    // naming programs compiles only their closures; the default compiles the whole tree
    const closureOnly = Boolean(options.programs?.length);
    const cache = cacheDir(options);
    const workspace = new Workspace(roots, programsDirs, { closureOnly, parseCache: cache ? new ParseCache(path.join(cache, 'parse')) : undefined });
    // a named path with nothing to compile is a mistake (a typo, the wrong folder), not an empty success
    const barren = closureOnly ? pathsWithoutSpecs(workspace.layout(), programsDirs) : [];
    if (barren.length) throw new UsageError(`${barren.map((p) => `--programs ${p}`).join(', ')}: no program spec (a \`.yaml\` file with \`program:\`, \`outputs:\` and \`scope:\`, as in <jurisdiction>/<program>/<period>.yaml)`);
    let first = true;
    const once = async () => {
      const started = performance.now();
      // a whole-tree build reads every module: parsed on every core first
      const progress = new ProgressLine();
      if (first) await workspace.preparse(availableParallelism() - 1, (done, total) => options.json || progress.update(`compiling: parsing ${done}/${total}`));
      progress.clear();
      const manifest = compileOnce(workspace, out, options, first, started);
      first = false;
      return manifest;
    };
    if (!options.watch) {
      const started = performance.now();
      // V8 lets the old generation grow to up to 4 times what survived its last full collection
      // before it collects again; a one-shot compile promotes most of what it makes as garbage
      // (each package lives a few scavenges, until it is written), so its peak was that growth,
      // not what it keeps. Twice is enough: a whole-corpus compile peaks at about 450 MiB instead
      // of 510-650, in the same time. Not a limit: the heap still grows as far as it must.
      setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
      // a whole tree compiled before from the same inputs into this folder is not compiled again
      const stamp = cache && !closureOnly ? { file: stampFile(cache, out), inputs: workspace.inputsHash() } : undefined;
      const unchanged = stamp && upToDate(stamp.file, stamp.inputs, out);
      if (unchanged) {
        printResult({ ...unchanged, duration_ms: Math.round(performance.now() - started) }, out, options, undefined, true);
        process.exitCode = unchanged.failures.length ? EXIT_FAILURES : EXIT_OK;
        return;
      }
      const manifest = await once();
      if (stamp) {
        try {
          recordStamp(stamp.file, stamp.inputs, out);
        } catch (err) {
          if (!isOsError(err)) throw err;
          // the output is written; only the next run's shortcut is lost
          process.stderr.write(`rules: warning: ${stamp.file}: cannot record what this output was compiled from (${osReason(err)}); the next compile will not skip\n`);
        }
      }
      process.exitCode = manifest.failures.length ? EXIT_FAILURES : EXIT_OK;
      return;
    }
    let last: Manifest | undefined;
    const stopped = untilStopSignal();
    const watcher = rebuildOnChange(
      workspace,
      () => (last = compileOnce(workspace, out, options, false, performance.now())),
      (err) => process.stderr.write(`rules: rebuild failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
    await watcher.ready;
    last = await once();
    await stopped;
    await watcher.close();
    process.exitCode = last && last.failures.length ? EXIT_FAILURES : EXIT_OK;
  });
}

function compileOnce(workspace: Workspace, out: string, options: CompileOptions, fullSweep: boolean, started: number): Manifest {
  const progress = new ProgressLine();
  const manifest = buildInto(workspace, out, {
    started,
    fullSweep,
    rebuilds: options.watch,
    onProgress: (phase, done, total) => {
      if (!options.json) progress.update(`compiling: ${phase} ${done}/${total}`);
    },
  });
  progress.clear();
  // the cache's own warnings are this run's, not the compiled output's: printed, never in the manifest
  printResult(manifest, out, options, workspace.tree.cache?.drain(), false);
  return manifest;
}

function printResult(m: Manifest, out: string, options: CompileOptions, cache: CacheReport | undefined, unchanged: boolean): void {
  if (options.json) process.stdout.write(JSON.stringify({ ...summary(m, out, cache), unchanged }) + '\n');
  else printHuman(m, out, cache?.warnings ?? [], unchanged);
}

function summary(m: Manifest, out: string, cache: CacheReport | undefined) {
  return {
    out,
    compiled_at: m.compiled_at,
    duration_ms: m.duration_ms,
    modules: m.index.module_count,
    rules: m.index.rule_count,
    packages: m.packages.map((p) => ({ program_id: p.program_id, jurisdiction: p.jurisdiction, runtime_id: p.runtime_id, outputs: p.output_count, inputs: p.input_count })),
    failures: m.failures,
    warnings: [...m.warnings, ...(cache?.warnings ?? [])],
    module_errors: m.module_errors.length,
    parse_cache: cache?.stats ?? null,
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
  };
}

function printHuman(m: Manifest, out: string, cacheWarnings: CacheWarning[], unchanged: boolean): void {
  const paint = painter(process.stdout);
  const lines: string[] = [];
  for (const p of m.packages) lines.push(`  ${paint('green', '✓')} ${p.jurisdiction}/${p.program_id} ${paint('dim', `${p.output_count} outputs, ${p.input_count} inputs · ${p.runtime_id}`)}`);
  for (const f of m.failures) {
    lines.push(`  ${paint('red', '✗')} ${f.program}`);
    lines.push(f.error.split('\n').map((l) => `      ${l}`).join('\n'));
  }
  lines.push(...warningLines([...m.warnings, ...cacheWarnings], paint));
  if (m.module_errors.length) lines.push(paint('yellow', `  ${m.module_errors.length} modules have errors (their rules are indexed but cannot run; \`rules test\` shows them)`));
  if (unchanged) lines.push(`sources unchanged since the compilation of ${m.compiled_at}: nothing to do`);
  lines.push(
    `${unchanged ? 'kept' : 'compiled'} ${m.packages.length} packages, ${m.failures.length} failed · ${m.index.module_count} modules, ${m.index.rule_count} rules indexed · ${formatDuration(m.duration_ms)} → ${displayPath(out) || '.'}`,
  );
  process.stdout.write(lines.join('\n') + '\n');
}
