import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultProgramsDirs, type LayoutWarning } from '../../compiler/2-resolve/corpus-layout.js';
import type { ProgramGraph } from '../../compiler/4-package/package-types.js';
import { readManifest } from '../../compiler/5-emit/manifest.js';
import type { DiffSide } from '../../compiler/diff/program-side.js';
import { PROGRAMS_FOLDER } from '../../compiler/names.js';
import { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { listPrograms, loadPackage, PackageLoadError } from '../../lib/load.js';
import { UsageError } from '../exit-codes.js';
import { requireFolder } from '../os-errors.js';

// The two sides of `rules diff`, each given as a SPEC:
//   (none)        the encoding roots as they are now (--root, default ./rulespec or the bundled ones)
//   DIR           an encoding root (a folder of jurisdiction folders), compiled for the run
//   DIR           a compiled output (`rules compile --out DIR`: it holds manifest.json)
//   git:<rev>     the roots as they were at that revision of the git repository holding each,
//                 read with `git archive` into a scratch folder: the working tree is not touched
// Each side is one package of the program, with its program graph (formulas as written, the
// parameters' citations).

export interface SpecOptions {
  /** The roots "as they are now" (and whose repository a git: SPEC reads). */
  roots: string[];
  /** The parse cache folder (roots compiled in place; never for scratch copies). */
  parseCacheDir?: string;
  /** Where a warning about what was not read goes. */
  warn: (warning: LayoutWarning) => void;
}

export interface LoadedSide {
  side: DiffSide;
  /** Roots the side was compiled from (null for a compiled output), to compare SPECs. */
  key: string;
}

/** Scratch folders of git: SPECs, removed by `cleanupSpecs`. */
const scratch: string[] = [];

export function cleanupSpecs(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function loadSide(spec: string | undefined, program: string, flag: '--baseline' | '--reform', options: SpecOptions): Promise<LoadedSide> {
  if (spec === undefined) return compiledSide(options.roots, program, flag, 'the roots as they are now', options, true);
  if (spec.startsWith('git:')) {
    const rev = spec.slice(4);
    if (!rev || rev.startsWith('-')) throw new UsageError(`${flag} ${spec}: name a revision (git:HEAD~1, git:origin/main, git:<commit>)`);
    const roots = await Promise.all(options.roots.map((root) => rootAtRevision(root, rev, flag)));
    return compiledSide(roots.map((r) => r.root), program, flag, `${spec} (${roots[0].commit.slice(0, 12)})`, options, false, `git:${roots.map((r) => r.commit).join(',')}`);
  }
  requireFolder(spec, flag);
  if (existsSync(path.join(spec, 'manifest.json'))) return compiledOutputSide(spec, program, flag);
  return compiledSide([spec], program, flag, spec, options, true);
}

/** A package and its graph from a compiled output folder. */
function compiledOutputSide(dir: string, program: string, flag: string): LoadedSide {
  let loaded: LoadedPackage;
  try {
    loaded = loadPackage(dir, program);
  } catch (err) {
    if (err instanceof PackageLoadError) throw new UsageError(`${flag} ${dir}: ${err.message}`);
    throw err;
  }
  const entry = readManifest(dir)!.packages.find((p) => `${p.jurisdiction}/${p.program_id}` === program)!;
  let graph: ProgramGraph | undefined;
  try {
    graph = JSON.parse(readFileSync(path.join(dir, entry.graph), 'utf8')) as ProgramGraph;
  } catch (err) {
    throw new UsageError(`${flag} ${dir}: the program graph ${entry.graph} cannot be read (${(err as Error).message}); compile the output again`);
  }
  return { side: { package: loaded, graph, label: `${dir} (compiled ${loaded.pkg.runtime_id})` }, key: `compiled:${path.resolve(dir)}:${entry.sha256}` };
}

/**
 * Compile the program from encoding roots. Only the program specs of its jurisdiction (and their
 * import closures) are compiled; a program that is a composition module elsewhere is found by
 * compiling the whole tree.
 */
async function compiledSide(roots: string[], program: string, flag: string, label: string, options: SpecOptions, cache: boolean, key = `roots:${roots.map((r) => path.resolve(r)).join(',')}`): Promise<LoadedSide> {
  for (const root of roots) requireFolder(root, `${flag} root`);
  // the compiler only when a side is compiled (a compiled output needs none of it)
  const [{ Workspace }, { ParseCache }] = await Promise.all([import('../../compiler/workspace.js'), import('../../compiler/1-parse/parse-cache.js')]);
  const jurisdiction = program.split('/')[0];
  const parseCache = cache && options.parseCacheDir ? new ParseCache(options.parseCacheDir) : undefined;
  const narrowed = roots.map((r) => path.resolve(r, PROGRAMS_FOLDER, jurisdiction)).filter((d) => existsSync(d));
  const attempts = [
    { programs: narrowed, closureOnly: true },
    { programs: defaultProgramsDirs(roots.map((r) => path.resolve(r))), closureOnly: false },
  ];
  for (const [k, attempt] of attempts.entries()) {
    const build = new Workspace(roots.map((r) => path.resolve(r)), attempt.programs, { closureOnly: attempt.closureOnly, parseCache }).build();
    for (const w of parseCache?.drain().warnings ?? []) options.warn(w);
    const built = build.packages.find((p) => `${p.pkg.jurisdiction}/${p.pkg.program_id}` === program);
    const failure = build.failures.find((f) => `${f.jurisdiction}/${f.program_id}` === program);
    const last = k === attempts.length - 1;
    if (built || failure || last) {
      // the narrowing is ours, not the user's: the programs folders left out are not news
      const ours = new Set(roots.map((r) => path.resolve(r, PROGRAMS_FOLDER)));
      for (const w of build.warnings) if (!(attempt.closureOnly && ours.has(path.resolve(w.path)))) options.warn(w);
      if (failure) throw new UsageError(`${flag} ${label}: ${program} did not compile: ${failure.error}`);
      if (!built) throw new UsageError(`${flag} ${label}: no program \`${program}\` in ${roots.join(', ')} (${listPrograms(build.packages.map((p) => p.pkg))})`);
      return { side: { package: new LoadedPackage(built.pkg), graph: built.graph, label }, key };
    }
  }
  throw new Error('unreachable');
}

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const res = spawnSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
  if (res.error) throw new UsageError(`git:${args.join(' ')}: cannot run git (${res.error.message})`);
  return { ok: res.status === 0, out: res.stdout.trim(), err: res.stderr.trim() };
}

/** A root as it was at `rev`, extracted into a scratch folder (the repository's working tree and index are not touched). */
async function rootAtRevision(root: string, rev: string, flag: string): Promise<{ root: string; commit: string }> {
  requireFolder(root, '--root');
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new UsageError(`${flag} git:${rev}: the root ${root} is not in a git repository`);
  const prefix = git(root, ['rev-parse', '--show-prefix']).out.replace(/\/$/, '');
  const commit = git(top.out, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  if (!commit.ok) throw new UsageError(`${flag} git:${rev}: no such revision in ${top.out}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-diff-git-'));
  scratch.push(dir);
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['-C', top.out, 'archive', '--format=tar', commit.out, ...(prefix ? ['--', prefix] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    archive.stdout.pipe(tar.stdin);
    let errors = '';
    archive.stderr.on('data', (d: Buffer) => (errors += d));
    tar.stderr.on('data', (d: Buffer) => (errors += d));
    let pending = 2;
    let failed = false;
    const done = (code: number | null) => {
      if (code !== 0) failed = true;
      if (--pending === 0) (failed ? reject(new UsageError(`${flag} git:${rev}: ${prefix || 'the repository'} could not be read at ${commit.out.slice(0, 12)}: ${errors.trim().split('\n')[0] || 'git archive failed'}`)) : resolve());
    };
    archive.on('error', reject).on('close', done);
    tar.on('error', reject).on('close', done);
  });
  const extracted = path.join(dir, prefix);
  if (!existsSync(extracted) || !statSync(extracted).isDirectory()) throw new UsageError(`${flag} git:${rev}: ${prefix} did not exist at ${commit.out.slice(0, 12)}`);
  return { root: extracted, commit: commit.out };
}
