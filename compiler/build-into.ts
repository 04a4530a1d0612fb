import { existsSync } from 'node:fs';
import type { Manifest } from './5-emit/manifest.js';
import { writeOutputTree, type WriteOptions } from './5-emit/output-tree.js';
import { type SourceWatcher, watchSources } from './watch.js';
import type { Workspace } from './workspace.js';

// The one compile → write step and the one watch loop, shared by `rules compile` (and its
// --watch), `rules serve` (and its hot reload) and the commands that compile for one run.

export type BuildProgress = Parameters<Workspace['build']>[0];

/** Build what changed in `workspace` and write the output tree to `out`; the manifest written. */
export function buildInto(workspace: Workspace, out: string, options: WriteOptions & { onProgress?: BuildProgress } = {}): Manifest {
  const started = performance.now();
  const build = workspace.build(options.onProgress);
  return writeOutputTree(out, build, { durationMs: performance.now() - started }, { fullSweep: options.fullSweep, rebuilds: options.rebuilds });
}

/** Call `rebuild` after the workspace has dropped what an edit under its roots or program folders touched. */
export function rebuildOnChange(workspace: Workspace, rebuild: () => void, onError: (err: unknown) => void): SourceWatcher {
  const folders = [...workspace.tree.roots, ...workspace.programsDirs].filter((d) => existsSync(d));
  return watchSources(
    folders,
    (files) => {
      for (const f of files) workspace.invalidate(f);
      rebuild();
    },
    onError,
  );
}
