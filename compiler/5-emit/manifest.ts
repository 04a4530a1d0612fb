import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RuntimePackage } from '../4-package/package-types.js';
import type { LayoutWarning } from '../2-resolve/corpus-layout.js';
import type { BuildFailure } from '../build.js';

// manifest.json: the entry point of a compiled output tree (see output-tree.ts).

/** A package's summary as the manifest lists it, and where its files are. */
export interface ManifestPackage
  extends Pick<RuntimePackage, 'program_id' | 'jurisdiction' | 'runtime_id' | 'mode' | 'status' | 'name' | 'default_outputs' | 'output_count' | 'entity_count' | 'input_count'> {
  /** Paths relative to the output folder. */
  package: string;
  graph: string;
  sha256: string;
  module_count: number;
}

export interface Manifest {
  format_version: number;
  compiler: { name: 'rules'; version: string };
  compiled_at: string;
  duration_ms: number;
  roots: { path: string; repo: string; branch: string; commit: string | null }[];
  programs_dirs: string[];
  /** sha256 over every module's path and content hash. */
  source_hash: string;
  packages: ManifestPackage[];
  failures: BuildFailure[];
  /** What under the roots was not read, and why (folders that are not jurisdictions, stray YAML, unplaced specs). */
  warnings: LayoutWarning[];
  module_errors: { file: string; error: string }[];
  index: {
    module_count: number;
    rule_count: number;
    shards: { module: string; file: string; rules: number }[];
    programs: string;
  };
  /** Files of the previous manifest kept one more generation (removed by the next write). */
  retained?: string[];
}

/** The manifest of a compiled output folder; none when absent or unreadable. */
export function readManifest(out: string): Manifest | undefined {
  const file = path.join(out, 'manifest.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Every data file a manifest names (packages, graphs, index shards, the program list). */
export function referencedFiles(m: Manifest | undefined): Set<string> {
  if (!m) return new Set();
  return new Set([...m.packages.flatMap((p) => [p.package, p.graph]), ...m.index.shards.map((s) => s.file), m.index.programs]);
}
