import { writeOutputTree } from '../compiler/5-emit/output-tree.js';
import { type SourceWatcher, watchSources } from '../compiler/watch.js';
import type { Workspace } from '../compiler/workspace.js';
import { Catalog, type RuntimeMode } from './catalog/catalog.js';

// Hot reload (`rules serve --watch`): recompile what an edit touches, then swap the catalogue.
// Requests in flight keep the catalogue they started with; programs whose sources stop
// compiling keep their last good package.

export function watchForReload(workspace: Workspace, out: string, mode: RuntimeMode, swap: (next: Catalog) => void, log: (m: string) => void): SourceWatcher {
  return watchSources(
    [...workspace.tree.roots, ...workspace.programsDirs],
    (files) => {
      for (const f of files) workspace.invalidate(f);
      const started = performance.now();
      const build = workspace.build();
      const manifest = writeOutputTree(out, build, { durationMs: performance.now() - started });
      swap(Catalog.load(out, mode));
      log(`reloaded ${manifest.packages.length} packages (${manifest.failures.length} failed) in ${Math.round(performance.now() - started)} ms`);
      for (const f of manifest.failures) log(`  ✗ ${f.program}: ${f.error.split('\n')[0]}`);
      for (const w of manifest.warnings) log(`  warning ${w.path}: ${w.reason}`);
    },
    (err) => log(`reload failed: ${err instanceof Error ? err.message : String(err)}`),
  );
}
