import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_FILE } from './names.js';
import { PACKAGE_VERSION } from './project.js';
import type { ParsedModule } from './1-parse/module.js';
import { codeFingerprint, type ParseCache } from './1-parse/parse-cache.js';
import { importClosure } from './2-resolve/closure.js';
import { type CorpusLayout, type LayoutWarning, scanCorpus, type SpecFile } from './2-resolve/corpus-layout.js';
import { isInside, SourceTree, splitTarget } from './2-resolve/source-tree.js';
import { compileModule } from './compile.js';
import { compositionTarget, composeProgram } from './4-package/compose.js';
import { findOutputGates, gateNote, type OutputGate } from './4-package/auto-gate.js';
import { programGraph } from './4-package/graph.js';
import type { ProgramGraph, RuntimePackage } from './4-package/package-types.js';
import { type ProgramSpec, readProgramSpec } from './4-package/program-spec.js';
import { deriveProgramId, programIdProblem } from './4-package/program-id.js';
import { RuleSpecError, type YamlLocation } from './diagnostics.js';
import { type IndexedRule, type PackageMembership, ruleIndexer } from './4-package/rule-index.js';
import { buildRuntimePackage, type PackageSpec } from './4-package/runtime-package.js';
import { verifySampleRequest } from './sample-check.js';
import { rootProvenance, type RootProvenance } from './4-package/provenance.js';
import { buildProgramList } from './4-package/programs.js';
import type { ProgramSummary } from './4-package/rule-index.js';
import { describeError } from './describe-error.js';
import type { Build, BuildEmitter, BuildFailure, BuiltPackage, PackageOutline } from './build.js';

// A workspace compiles encoding roots into everything the daemon serves: runtime packages,
// program graphs, the rule index and the program list. It caches per package and per module,
// keyed by the hashes of the sources involved, so a rebuild after an edit redoes only what the
// edit touches.

interface Candidate {
  key: string; // stable identity: spec file or composition module target
  label: string;
  jurisdiction: string;
  programId: string;
  /** The program's path in its jurisdiction (`snap`, `payroll/oasdi-wage-tax`). */
  programPath: string;
  /** Where the id comes from (the spec's `program:` or `id:`, the module's `module:`). */
  idLocation: YamlLocation;
  /** Why the id cannot be served, when it cannot. */
  idProblem?: string;
  file: string;
  cacheKey: () => string;
  make: (contentHash: string) => BuiltPackage;
}

/** Candidates whose id another candidate of the same jurisdiction also has, with those others. */
function idClashes(candidates: Candidate[]): Map<Candidate, Candidate[]> {
  const byId = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = `${c.jurisdiction}\u0000${c.programId}`;
    (byId.get(key) ?? byId.set(key, []).get(key)!).push(c);
  }
  const clashes = new Map<Candidate, Candidate[]>();
  for (const group of byId.values()) if (group.length > 1) for (const c of group) clashes.set(c, group.filter((o) => o !== c));
  return clashes;
}

const hash = (parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex');

export class Workspace {
  readonly tree: SourceTree;
  private readonly provenance: RootProvenance[];
  private readonly packageCache = new Map<string, { key: string; built: BuiltPackage }>();
  private readonly indexCache = new Map<string, { key: string; entries: IndexedRule[] }>();
  /** Index shards with dependents filled in, reused while a module's dependents are unchanged. */
  private readonly shardCache = new Map<string, { base: IndexedRule[]; dependents: string; shard: IndexedRule[] }>();
  private readonly specCache = new Map<string, { stamp: string; spec: ProgramSpec | Error; composed?: ParsedModule; gated?: { closure: string; mod: ParsedModule; gates: OutputGate[] } }>();
  /** Per build: closure hashes by module target. */
  private closureHashes = new Map<string, string>();

  /**
   * `closureOnly`: compile the program specs alone (of `programsDirs` and the roots' own programs
   * folders) and index only the modules of their import closures, never reading the rest of the
   * roots; otherwise every module under the roots is read and indexed. `parseCache` keeps parsed
   * modules between processes.
   */
  constructor(
    readonly roots: string[],
    readonly programsDirs: string[],
    readonly options: { closureOnly?: boolean; parseCache?: ParseCache } = {},
  ) {
    this.tree = new SourceTree(roots, options.parseCache);
    this.provenance = this.tree.roots.map(rootProvenance);
  }

  /** Forget what is cached for a changed, added or removed file. */
  invalidate(file: string): void {
    const abs = path.resolve(file);
    const target = this.tree.targetFor(abs);
    if (target) this.tree.invalidate(target);
    // an added or removed file changes the layout: scan again at the next build
    if (this.scanned && existsSync(abs) !== this.scanned.files.has(abs)) this.scanned = null;
    this.specCache.delete(abs);
  }

  private scanned: { layout: CorpusLayout; files: Set<string> } | null = null;

  /** Modules, tests, program specs and what is not read under the roots (scanned once, then on additions and removals). */
  layout(): CorpusLayout {
    if (!this.scanned) {
      const layout = scanCorpus(this.tree.roots, this.programsDirs, { specsOnly: this.options.closureOnly });
      this.scanned = { layout, files: new Set([...layout.modules, ...layout.tests, ...layout.specs.map((s) => s.file), ...layout.warnings.map((w) => w.path)]) };
    }
    return this.scanned.layout;
  }

  /**
   * A hash of everything a whole-tree build depends on: this compiler's code and version, the
   * roots with their provenance, what the layout reads and skips, and the content of every module,
   * spec and snapshot file. Equal hashes mean an equal build.
   */
  inputsHash(): string {
    const { modules, specs, warnings } = this.layout();
    const h = createHash('sha256').update(`${PACKAGE_VERSION}\n${codeFingerprint(path.dirname(fileURLToPath(import.meta.url)))}\n${JSON.stringify([this.provenance, this.programsDirs, this.options.closureOnly ?? false, warnings])}\n`);
    const snapshots = this.tree.roots.map((r) => path.join(r, SNAPSHOT_FILE)).filter((f) => existsSync(f));
    for (const file of [...modules, ...specs.map((s) => s.file), ...snapshots]) h.update(`${file}\0`).update(readFileSync(file)).update('\0');
    return h.digest('hex');
  }

  /** Parse the modules a build will read ahead of it, on `workers` threads besides this one
   *  (SourceTree.preload): every module of a whole-tree build; for a closure-only build, the
   *  closures of the specs' scopes as the modules' texts list their imports. */
  async preparse(workers: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    if (!this.options.closureOnly) return this.tree.preload(this.moduleTargets(), workers, onProgress);
    const scopes = this.layout().specs.flatMap((placed) => {
      const spec = this.spec(placed);
      return spec instanceof Error ? [] : spec.scope.map((s) => s.target);
    });
    await this.tree.preload(this.tree.hintedClosure(scopes), workers, onProgress);
  }

  /** Every module under the roots' jurisdiction folders. */
  moduleTargets(): string[] {
    return [...new Set(this.layout().modules.map((f) => this.tree.targetFor(f)).filter((t): t is string => !!t))];
  }

  private spec({ file, jurisdiction }: SpecFile): ProgramSpec | Error {
    const abs = path.resolve(file);
    const st = statSync(abs);
    const stamp = `${st.mtimeMs}:${st.size}`;
    const cached = this.specCache.get(abs);
    if (cached?.stamp === stamp) return cached.spec;
    let spec: ProgramSpec | Error;
    try {
      spec = readProgramSpec(abs, jurisdiction);
    } catch (err) {
      spec = new Error(describeError(err));
    }
    this.specCache.set(abs, { stamp, spec });
    return spec;
  }

  /** The composition module of a spec, composed once per version of the spec and, when it
   *  gates outputs (auto-gate.ts), once per version of the modules in its scope. */
  private composed(spec: ProgramSpec): ParsedModule {
    return this.gatedComposition(spec).mod;
  }

  private gatedComposition(spec: ProgramSpec): { mod: ParsedModule; gates: OutputGate[] } {
    const entry = this.specCache.get(spec.file);
    const ungated = entry?.composed ?? composeProgram(spec);
    if (entry) entry.composed = ungated;
    this.tree.addVirtual(ungated);
    if (spec.autoGateOutputs.length === 0) return { mod: ungated, gates: [] };
    const closure = this.closureHash(ungated.target);
    let gated = entry?.gated?.closure === closure ? entry.gated : undefined;
    if (!gated) {
      const gates = findOutputGates(spec, ungated, this.tree);
      gated = { closure, gates, mod: gates.some((g) => g.gates.length > 0) ? composeProgram(spec, gates) : ungated };
      if (entry) entry.gated = gated;
    }
    this.tree.addVirtual(gated.mod);
    return gated;
  }

  /** Hash of a module's import closure (its sources), memoised for one build. */
  private closureHash(target: string): string {
    let h = this.closureHashes.get(target);
    if (h === undefined) {
      let closure: ParsedModule[];
      try {
        closure = importClosure(this.tree, target);
      } catch {
        closure = [this.tree.module(target)].filter((m): m is ParsedModule => !!m);
      }
      h = hash(closure.map((m) => `${m.target}:${m.hash ?? ''}`));
      this.closureHashes.set(target, h);
    }
    return h;
  }

  /**
   * Build every package, the rule index and the program list. With an `emitter` (a one-shot
   * build), each package and index shard goes to it as soon as it is made and is not kept, nor
   * cached for a next build: the Build returned then holds no packages and no index.
   */
  build(onProgress?: (phase: 'modules' | 'programs', done: number, total: number) => void, emitter?: BuildEmitter): Build {
    this.closureHashes = new Map();
    const targets = this.moduleTargets();
    let modules: ParsedModule[] = [];
    targets.forEach((t, i) => {
      const mod = this.tree.module(t);
      if (mod) modules.push(mod);
      if (i % 50 === 0) onProgress?.('modules', i, targets.length);
    });
    const failures: BuildFailure[] = [];
    const candidates: Candidate[] = [];
    const scoped = new Set<string>();

    const { specs, warnings } = this.layout();
    for (const placed of specs) {
      const { file } = placed;
      const spec = this.spec(placed);
      if (spec instanceof Error) {
        failures.push({ program: path.relative(process.cwd(), file), jurisdiction: '', program_id: '', file, error: spec.message });
        continue;
      }
      for (const s of spec.scope) scoped.add(s.target);
      candidates.push({
        key: file,
        label: spec.program,
        jurisdiction: spec.jurisdiction,
        programId: spec.programId,
        programPath: spec.programPath,
        idLocation: { file, path: spec.idPath },
        file,
        // the spec's content, not where it lives on disk, identifies it
        cacheKey: () => hash([JSON.stringify({ ...spec, file: undefined }), this.closureHash(this.composed(spec).target)]),
        make: (h) => this.fromSpec(spec, h),
      });
    }
    for (const mod of modules) {
      if (mod.meta.kind !== 'composition' || scoped.has(mod.target)) continue;
      const { jurisdiction, path: modulePath } = splitTarget(mod.target)!;
      const programId = deriveProgramId(jurisdiction, modulePath, { composition: true });
      const problem = programIdProblem(programId);
      candidates.push({
        key: mod.target,
        label: `${jurisdiction}/${modulePath}`,
        jurisdiction,
        programId,
        programPath: modulePath,
        idLocation: { file: mod.file, path: ['module'] },
        idProblem: problem && `${problem}, derived from the module path ${modulePath}; a program spec naming its \`id:\` can serve it instead`,
        file: mod.file,
        cacheKey: () => this.closureHash(mod.target),
        make: (h) => this.fromCompositionModule(mod, programId, h),
      });
    }

    const packages: BuiltPackage[] = [];
    const outlines: PackageOutline[] = [];
    const add = (built: BuiltPackage) => {
      if (!emitter) {
        // kept (for the next build, a server, a library caller): its executable made now, so the
        // package does not hold its lowered program until someone reads it
        void built.pkg.executable;
        packages.push(built);
        outlines.push(built);
        return;
      }
      emitter.package(built);
      const { pkg, modules, programPath } = built;
      const { program_id, jurisdiction, name, description, runtime_id, default_outputs, acknowledged_incomplete, notes, source } = pkg;
      outlines.push({ pkg: { program_id, jurisdiction, name, description, runtime_id, default_outputs, acknowledged_incomplete, notes, source }, modules, programPath });
    };
    const clashes = idClashes(candidates);
    for (const [i, c] of candidates.entries()) {
      onProgress?.('programs', i, candidates.length);
      try {
        if (c.idProblem) throw new RuleSpecError('invalid_module', c.idProblem, { location: c.idLocation });
        const others = clashes.get(c) ?? [];
        if (others.length) {
          const names = others.map((o) => `${o.label} (${path.relative(process.cwd(), o.file)})`).join(', ');
          throw new RuleSpecError('invalid_module', `program id \`${c.programId}\` of ${c.label} is also the id of ${names} in ${c.jurisdiction}; name a distinct one with \`id:\` in a program spec`, { location: c.idLocation });
        }
        const key = c.cacheKey();
        const cached = this.packageCache.get(c.key);
        const built = cached?.key === key ? cached.built : c.make(key);
        if (!emitter) this.packageCache.set(c.key, { key, built });
        add({ ...built, programPath: c.programPath });
      } catch (err) {
        const error = describeError(err);
        failures.push({ program: c.label, jurisdiction: c.jurisdiction, program_id: c.programId, file: c.file, error });
        // keep serving the last good package of a program whose sources now fail
        const lastGood = this.packageCache.get(c.key)?.built;
        if (lastGood) {
          add({ ...lastGood, pkg: { ...lastGood.pkg, notes: [...lastGood.pkg.notes.filter((n) => !n.startsWith('stale:')), `stale: the current sources fail to compile (${error.split('\n')[0]})`] } });
        }
      }
    }
    for (const key of this.packageCache.keys()) if (!candidates.some((c) => c.key === key)) this.packageCache.delete(key);
    if (this.options.closureOnly) modules = this.closureModules(outlines);

    const entries = this.ruleIndex(modules, outlines, !emitter);
    const index = this.withDependents(entries, emitter);
    const moduleErrors = modules.filter((m) => m.errors.length).map((m) => ({ file: m.file, error: describeError(m.errors[0]) }));
    return {
      roots: this.provenance,
      programsDirs: this.programsDirs,
      packages,
      failures,
      warnings,
      index,
      programs: buildProgramList([...entries.values()].flat(), outlines, failures),
      modules: modules.length,
      moduleErrors,
      sourceHash: hash(modules.map((m) => `${m.target}:${m.hash}`).sort()),
    };
  }

  /** The modules of the packages' import closures, each once, in a stable order. */
  private closureModules(packages: PackageOutline[]): ParsedModule[] {
    const targets = [...new Set(packages.flatMap((p) => p.modules))].sort();
    return targets.map((t) => this.tree.module(t)).filter((m): m is ParsedModule => !!m);
  }

  /** Each module's index entries, without dependents; `keep`: cache them for the next build. */
  private ruleIndex(modules: ParsedModule[], packages: PackageOutline[], keep: boolean): Map<string, IndexedRule[]> {
    const membership: PackageMembership[] = packages.map((p) => ({ programId: p.pkg.program_id, programPath: p.pkg.source.kind === 'program_spec' ? p.programPath : undefined, jurisdiction: p.pkg.jurisdiction, modules: p.modules }));
    const membershipKey = hash(membership.map((m) => `${m.jurisdiction}/${m.programId}:${m.modules.join(',')}`));
    const index = new Map<string, IndexedRule[]>();
    const closureOf = (mod: ParsedModule): ParsedModule[] => {
      try {
        return importClosure(this.tree, mod.target);
      } catch {
        return [mod];
      }
    };
    const indexOf = ruleIndexer(closureOf, membership, (file) => this.provenanceOf(file));
    for (const mod of modules) {
      if (!keep) {
        index.set(mod.target, indexOf(mod));
        continue;
      }
      const key = hash([membershipKey, this.closureHash(mod.target)]);
      const cached = this.indexCache.get(mod.target);
      if (cached?.key === key) {
        index.set(mod.target, cached.entries);
        continue;
      }
      const entries = indexOf(mod);
      this.indexCache.set(mod.target, { key, entries });
      index.set(mod.target, entries);
    }
    for (const key of this.indexCache.keys()) if (!index.has(key)) this.indexCache.delete(key);
    return index;
  }

  /** Dependents are the inverse of dependencies over the whole index, so a module's shard is
   *  rebuilt when a rule elsewhere starts or stops depending on one of its rules. With an
   *  emitter each shard goes to it, and none is kept. */
  private withDependents(base: Map<string, IndexedRule[]>, emitter?: BuildEmitter): Map<string, IndexedRule[]> {
    const dependents = new Map<string, string[]>();
    for (const entries of base.values()) {
      for (const { rule } of entries) for (const dep of rule.dependencies) (dependents.get(dep) ?? dependents.set(dep, []).get(dep)!).push(rule.id);
    }
    const shardOf = (entries: IndexedRule[]) => entries.map((e) => ({ ...e, rule: { ...e.rule, dependents: dependents.get(e.rule.id) ?? [] } }));
    const out = new Map<string, IndexedRule[]>();
    for (const [target, entries] of base) {
      if (emitter) {
        // nothing keeps these entries for a next build: they take their dependents themselves
        for (const { rule } of entries) rule.dependents = dependents.get(rule.id) ?? [];
        emitter.shard(target, entries);
        continue;
      }
      const signature = JSON.stringify(entries.map(({ rule }) => dependents.get(rule.id) ?? []));
      const cached = this.shardCache.get(target);
      if (cached && cached.base === entries && cached.dependents === signature) {
        out.set(target, cached.shard);
        continue;
      }
      const shard = shardOf(entries);
      this.shardCache.set(target, { base: entries, dependents: signature, shard });
      out.set(target, shard);
    }
    for (const key of this.shardCache.keys()) if (!out.has(key)) this.shardCache.delete(key);
    return out;
  }

  /** A source file's path relative to the root (or the programs folder's parent) holding it. */
  private relativePath(file: string): string {
    const base = [...this.tree.roots, ...this.programsDirs.map((d) => path.dirname(d))].find((b) => isInside(file, b));
    return (base ? path.relative(base, file) : path.basename(file)).split(path.sep).join('/');
  }

  private provenanceOf(file: string): RootProvenance & { relative: string } {
    const prov = this.provenance.find((p) => isInside(file, p.root)) ?? this.provenance[0];
    return { ...prov, relative: path.relative(prov.root, file).split(path.sep).join('/') };
  }

  private fromSpec(spec: ProgramSpec, contentHash: string): BuiltPackage {
    const { mod, gates } = this.gatedComposition(spec);
    const program = compileModule(this.tree, mod.target);
    const notes = gates.map(gateNote);
    const pkgSpec: PackageSpec = {
      jurisdiction: spec.jurisdiction,
      programId: spec.programId,
      programPath: spec.programPath,
      name: spec.name ?? `${spec.programPath.toUpperCase()} (${spec.jurisdiction.toUpperCase()})`,
      description: spec.description ?? `Executable ${spec.program} program for ${spec.period}, composed from ${spec.scope.length} modules.`,
      period: spec.period,
      validThrough: spec.validThrough,
      outputs: spec.outputs,
      outputAliases: spec.outputAliases,
      acknowledgedIncomplete: spec.acknowledgedIncomplete,
      source: { kind: 'program_spec', file: this.relativePath(spec.file), target: compositionTarget(spec), modules: program.modules.map((m) => m.target) },
      outputsLocation: { file: spec.file, path: ['outputs'] },
      notes,
      contentHash,
    };
    const pkg = buildRuntimePackage(program, pkgSpec);
    verifySampleRequest(program, pkg);
    const own = pkg.outputs.filter((o) => !o.alias_for && o.legal_id).map((o) => o.legal_id!);
    return { pkg, graph: programGraph(program, own), modules: program.modules.map((m) => m.target).filter((t) => t !== mod.target) };
  }

  private fromCompositionModule(mod: ParsedModule, programId: string, contentHash: string): BuiltPackage {
    const program = compileModule(this.tree, mod.target);
    const own = program.rules.filter((r) => r.origin === mod);
    const used = new Set(own.flatMap((r) => [...r.ruleDeps]));
    const terminal = own.filter((r) => !used.has(r.index));
    const outputs = (terminal.length ? terminal : own).map((r) => r.name);
    if (outputs.length === 0) throw new Error(`composition module ${mod.target} declares no derived rule to serve`);
    const { jurisdiction, path: modulePath } = splitTarget(mod.target)!;
    const latest = Math.max(...own.flatMap((r) => r.versions.map((v) => v.from ?? 0)));
    const period = new Date(latest * 86_400_000).toISOString().slice(0, 7);
    const summary = mod.meta.summary?.replace(/\s+/g, ' ').trim() ?? `Composition ${mod.target}`;
    const pkg = buildRuntimePackage(program, {
      jurisdiction,
      programId,
      programPath: modulePath,
      name: summary.split(/\.(\s|$)/)[0].slice(0, 120),
      description: summary,
      period,
      outputs,
      outputAliases: {},
      acknowledgedIncomplete: [],
      source: { kind: 'composition_module', file: this.relativePath(mod.file), target: mod.target, modules: program.modules.map((m) => m.target) },
      contentHash,
    });
    verifySampleRequest(program, pkg);
    return { pkg, graph: programGraph(program, own.map((r) => r.id)), modules: program.modules.map((m) => m.target) };
  }
}
