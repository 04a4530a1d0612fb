import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ProgramGraph, RuntimePackage } from '../../compiler/4-package/package-types.js';
import type { IndexedRule, ProgramSummary } from '../../compiler/4-package/rule-index.js';
import type { Manifest, ManifestPackage } from '../../compiler/5-emit/manifest.js';
import { readManifest } from '../../compiler/5-emit/manifest.js';
import { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { SearchIndex } from './search.js';

// What the daemon serves, loaded from one compiled output tree: package summaries, packages
// (loaded on first use), graphs, the rule index with a search structure, the program list.
// A catalogue is immutable; hot reload swaps in a new one, and requests in flight keep the one
// they started with.

export type RuntimeMode = 'compiled' | 'fixture';

export class Catalog {
  private readonly loaded = new Map<string, LoadedPackage>();
  private readonly rulesById = new Map<string, IndexedRule>();
  readonly rules: IndexedRule[];
  readonly programs: ProgramSummary[];
  readonly search: SearchIndex;

  private constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    readonly mode: RuntimeMode,
  ) {
    this.rules = manifest.index.shards.flatMap((s) => JSON.parse(readFileSync(path.join(dir, s.file), 'utf8')) as IndexedRule[]);
    for (const entry of this.rules) {
      this.rulesById.set(entry.rule.id, entry);
      this.rulesById.set(entry.rule.citation_path, entry);
    }
    this.programs = JSON.parse(readFileSync(path.join(dir, manifest.index.programs), 'utf8')) as ProgramSummary[];
    this.search = new SearchIndex(this.rules.map((r) => r.rule));
  }

  static load(dir: string, mode: RuntimeMode): Catalog {
    const manifest = readManifest(dir);
    if (!manifest) throw new Error(`no compiled output at ${dir} (run \`rules compile --out ${dir}\`)`);
    return new Catalog(dir, manifest, mode);
  }

  get packages(): ManifestPackage[] {
    return this.manifest.packages;
  }

  private entry(jurisdiction: string, programId: string): ManifestPackage | undefined {
    return this.manifest.packages.find((p) => p.jurisdiction === jurisdiction && p.program_id === programId);
  }

  package(jurisdiction: string, programId: string): LoadedPackage | undefined {
    const entry = this.entry(jurisdiction, programId);
    if (!entry) return undefined;
    let pkg = this.loaded.get(entry.package);
    if (!pkg) {
      pkg = new LoadedPackage(JSON.parse(readFileSync(path.join(this.dir, entry.package), 'utf8')) as RuntimePackage);
      this.loaded.set(entry.package, pkg);
    }
    return pkg;
  }

  graph(jurisdiction: string, programId: string): ProgramGraph | undefined {
    const entry = this.entry(jurisdiction, programId);
    if (!entry || !existsSync(path.join(this.dir, entry.graph))) return undefined;
    return JSON.parse(readFileSync(path.join(this.dir, entry.graph), 'utf8')) as ProgramGraph;
  }

  /** A rule by stable id or citation path. */
  rule(idOrPath: string): IndexedRule | undefined {
    return this.rulesById.get(idOrPath) ?? this.rulesById.get(idOrPath.replace(/^\/+|\/+$/g, ''));
  }

  /** Encoding roots the compilation read that still exist (for graphs composed on demand). */
  get roots(): string[] {
    return this.manifest.roots.map((r) => r.path).filter((p) => existsSync(p));
  }
}
