import type { LayoutWarning } from './2-resolve/corpus-layout.js';
import type { ProgramGraph, RuntimePackage } from './4-package/package-types.js';
import type { RootProvenance } from './4-package/provenance.js';
import type { IndexedRule, ProgramSummary } from './4-package/rule-index.js';

// What a build produces, shared by the orchestrator (workspace.ts) and the phases that package
// and emit it, so that no phase imports its types back from the orchestrator.

export interface BuiltPackage {
  pkg: RuntimePackage;
  graph: ProgramGraph;
  /** Module targets in the program's closure. */
  modules: string[];
  /** The program's path in its jurisdiction, e.g. `snap` for `co-snap`. */
  programPath?: string;
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
