import { existsSync } from 'node:fs';
import type { Manifest } from './5-emit/manifest.js';
import { OutputTreeWriter, type WriteOptions } from './5-emit/output-tree.js';
import { type SourceWatcher, watchSources } from './watch.js';
import type { Workspace } from './workspace.js';

// The one compile → write step and the one watch loop, shared by `rules compile` (and its
// --watch), `rules serve` (and its hot reload) and the commands that compile for one run.

export type BuildProgress = Parameters<Workspace['build']>[0];

/** Build what changed in `workspace` and write the output tree to `out`; the manifest written.
 *  A build that is not followed by others (no `rebuilds`) writes each package and index shard as
 *  soon as it is made and keeps none of them. */
export function buildInto(workspace: Workspace, out: string, options: WriteOptions & { onProgress?: BuildProgress; started?: number } = {}): Manifest {
  // `started`: when the work began, if before this call (modules parsed ahead, for one)
  const started = options.started ?? performance.now();
  const writer = new OutputTreeWriter(out, options.rebuilds);
  const build = workspace.build(options.onProgress, options.rebuilds ? undefined : writer);
  return writer.finish(build, { durationMs: performance.now() - started }, options.fullSweep);
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
