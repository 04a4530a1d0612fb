import type { LayoutWarning } from './2-resolve/corpus-layout.js';
import type { ProgramGraph, RuntimePackage } from './4-package/package-types.js';
import type { RootProvenance } from './4-package/provenance.js';
import type { IndexedRule, ProgramSummary } from './4-package/rule-index.js';

// What a build produces, shared by the orchestrator (workspace.ts) and the phases that package
// and emit it, so that no phase imports its types back from the orchestrator.

/** What the rule index and the program list need of a built package. */
export interface PackageOutline {
  pkg: Pick<RuntimePackage, 'program_id' | 'jurisdiction' | 'name' | 'description' | 'runtime_id' | 'default_outputs' | 'acknowledged_incomplete' | 'notes' | 'source'>;
  /** Module targets in the program's closure. */
  modules: string[];
  /** The program's path in its jurisdiction, e.g. `snap` for `co-snap`. */
  programPath?: string;
}

export interface BuiltPackage extends PackageOutline {
  pkg: RuntimePackage;
  graph: ProgramGraph;
}

export interface BuildFailure {
  program: string;
  jurisdiction: string;
  program_id: string;
  file: string;
  error: string;
}

export interface Build {
  roots: RootProvenance[];
  programsDirs: string[];
  packages: BuiltPackage[];
  failures: BuildFailure[];
  /** What under the roots is not read, and why. */
  warnings: LayoutWarning[];
  /** Rule index entries, by module target. */
  index: Map<string, IndexedRule[]>;
  programs: ProgramSummary[];
  modules: number;
  moduleErrors: { file: string; error: string }[];
  sourceHash: string;
}

/**
 * Where a one-shot build (one compile, nothing rebuilt after) hands each package and index shard
 * as soon as it is made, so that it can be written and dropped: the build's peak memory is then
 * the parsed modules and one package, not every package, graph and shard at once.
 */
export interface BuildEmitter {
  package(built: BuiltPackage): void;
  shard(module: string, entries: IndexedRule[]): void;
}
