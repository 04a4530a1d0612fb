import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { walkFiles } from '../2-resolve/source-tree.js';
import { OUTPUT_FORMAT_VERSION } from '../4-package/package-types.js';
import { PACKAGE_VERSION } from '../project.js';
import type { Build, BuildEmitter, BuiltPackage } from '../build.js';
import type { IndexedRule } from '../4-package/rule-index.js';
import { type Manifest, type ManifestPackage, readManifest, referencedFiles } from './manifest.js';
import { type ContentFile, putContent, writeAtomic } from './content-file.js';
import { WriteThread } from './write-thread.js';

// The compiled output tree (documented in docs/compiled-output.md):
//
//   manifest.json                                  what this compilation produced; written last
//   packages/<jurisdiction>/<program>/<sha>.package.json   one runtime package per program
//   packages/<jurisdiction>/<program>/<sha>.graph.json     its ProgramGraph
//   index/<jurisdiction>/<module path>.<sha>.json  the rule index, one shard per module
//   programs.<sha>.json                            the program list
//
// Every data file is named by the hash of its content and never rewritten, and manifest.json is
// replaced by an atomic rename, so a reader that opens the manifest always finds the files it
// names: it never sees a half-written tree. Files that neither the new nor the previous
// manifest names are removed afterwards.

// Serialized forms of cached build parts, so an incremental build only stringifies what changed.
// Kept only for a workspace that builds again (watch, hot reload): for one build they would hold
// a copy of the whole output (about 250 MB of JSON for the US corpus) until the process ends.
const serializedCache = new WeakMap<object, { bytes: Buffer; sha: string }>();

/** JSON written in this thread before a one-shot write hands the rest to a thread of its own:
 *  a small output (one program's) is written before such a thread would have started. */
const THREAD_AFTER_BYTES = 16 * 1024 * 1024;

export interface WriteOptions {
  /** Walk the whole tree for leftovers (the first write of a process). */
  fullSweep?: boolean;
  /** The workspace will build again: remember serialized parts for the next write. */
  rebuilds?: boolean;
}

/**
 * Writes one output tree: packages and index shards as they come (each written, then free to be
 * dropped), then the program list and the manifest.
 */
export class OutputTreeWriter implements BuildEmitter {
  private readonly previous: Manifest | undefined;
  /** Each package's manifest entry, once the names of its files are known. */
  private readonly packages: (() => ManifestPackage)[] = [];
  private readonly shards: { module: string; file: ContentFile; rules: number }[] = [];
  private thread: WriteThread | undefined;
  private written = 0;

  /** `keep`: the workspace will build again, so remember serialized parts for the next write
   *  (in this thread); otherwise a large output is written on a thread of its own. */
  constructor(
    readonly out: string,
    private readonly keep = false,
  ) {
    mkdirSync(out, { recursive: true });
    this.previous = readManifest(out);
  }

  /** Write `value` as JSON to `<prefix><sha><suffix>`; its name is known once `finish` has waited for the writes. */
  private put(prefix: string, suffix: string, value: object): ContentFile {
    const cached = serializedCache.get(value);
    if (cached) return putContent(this.out, prefix, suffix, cached.bytes, cached.sha);
    const json = JSON.stringify(value);
    if (!this.keep && WriteThread.available && (this.thread || (this.written += json.length) > THREAD_AFTER_BYTES)) return (this.thread ??= new WriteThread(this.out)).put(prefix, suffix, json);
    const bytes = Buffer.from(json);
    const written = putContent(this.out, prefix, suffix, bytes);
    if (this.keep) serializedCache.set(value, { bytes, sha: written.sha });
    return written;
  }

  package({ pkg, graph, modules }: BuiltPackage): void {
    const base = `packages/${pkg.jurisdiction}/${pkg.program_id}/`;
    const p = this.put(base, '.package.json', pkg);
    const g = this.put(base, '.graph.json', graph);
    const { program_id, jurisdiction, runtime_id, mode, status, name, default_outputs, output_count, entity_count, input_count } = pkg;
    const entry = { program_id, jurisdiction, runtime_id, mode, status, name, default_outputs, output_count, entity_count, input_count };
    this.packages.push(() => ({ ...entry, package: p.file, graph: g.file, sha256: p.sha, module_count: modules.length }));
  }

  shard(target: string, entries: IndexedRule[]): void {
    const [jurisdiction, modulePath] = [target.slice(0, target.indexOf(':')), target.slice(target.indexOf(':') + 1)];
    const safe = modulePath.replace(/[^A-Za-z0-9_./-]/g, '_');
    this.shards.push({ module: target, file: this.put(`index/${jurisdiction}/${safe}.`, '.json', entries), rules: entries.length });
  }

  /** The program list and the manifest (written last, atomically, once every other file is), then the sweep of what no manifest needs. */
  finish(build: Build, meta: { durationMs: number }, fullSweep = !this.previous): Manifest {
    for (const p of build.packages) this.package(p);
    for (const [target, entries] of build.index) this.shard(target, entries);
    const programs = this.put('programs.', '.json', build.programs);
    this.thread?.flush();
    const manifest: Manifest = {
      format_version: OUTPUT_FORMAT_VERSION,
      compiler: { name: 'rules', version: PACKAGE_VERSION },
      compiled_at: new Date().toISOString(),
      duration_ms: Math.round(meta.durationMs),
      roots: build.roots.map((r) => ({ path: r.root, repo: r.repo, branch: r.branch, commit: r.commit })),
      programs_dirs: build.programsDirs,
      source_hash: build.sourceHash,
      packages: this.packages.map((entry) => entry()),
      failures: build.failures,
      warnings: build.warnings,
      module_errors: build.moduleErrors,
      index: {
        module_count: build.modules,
        rule_count: this.shards.reduce((n, s) => n + s.rules, 0),
        shards: this.shards.map(({ module, file, rules }) => ({ module, file: file.file, rules })),
        programs: programs.file,
      },
    };
    const current = referencedFiles(manifest);
    manifest.retained = [...referencedFiles(this.previous)].filter((f) => !current.has(f));
    writeAtomic(path.join(this.out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    sweep(this.out, manifest, this.previous, fullSweep);
    return manifest;
  }
}

/** Write a whole build (its packages and index in memory) as an output tree. */
export function writeOutputTree(out: string, build: Build, meta: { durationMs: number }, options: WriteOptions = {}): Manifest {
  return new OutputTreeWriter(out, options.rebuilds).finish(build, meta, options.fullSweep);
}

/** Remove data files no manifest needs any more. The previous manifest's files stay one more
 *  generation, for readers that opened it just before the swap. A full sweep (first write of
 *  a process) walks the tree and also removes leftovers of interrupted runs. */
function sweep(out: string, current: Manifest, previous: Manifest | undefined, full: boolean): void {
  const keep = new Set([...referencedFiles(current), ...referencedFiles(previous)]);
  const candidates: string[] = [];
  if (full) {
    for (const dir of ['packages', 'index']) {
      if (existsSync(path.join(out, dir))) for (const file of walkFiles(path.join(out, dir), () => true)) candidates.push(path.relative(out, file).split(path.sep).join('/'));
    }
    for (const name of readdirSync(out)) if (/^programs\..*\.json$/.test(name) || /\.tmp-\d+-\d+$/.test(name)) candidates.push(name);
  } else {
    candidates.push(...(previous?.retained ?? []));
  }
  for (const rel of candidates) if (!keep.has(rel)) rmSync(path.join(out, rel), { force: true });
}
