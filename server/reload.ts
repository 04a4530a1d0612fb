import { buildInto, rebuildOnChange } from '../compiler/build-into.js';
import type { SourceWatcher } from '../compiler/watch.js';
import type { Manifest } from '../compiler/5-emit/manifest.js';
import type { Workspace } from '../compiler/workspace.js';
import { Catalog, type RuntimeMode } from './catalog/catalog.js';
import { mappingIndex } from './migration/package-mapping.js';

// Hot reload (`rules serve --watch`): recompile what an edit touches, then swap the catalogue.
// Requests in flight keep the catalogue they started with; programs whose sources stop
// compiling keep their last good package.

export function watchForReload(workspace: Workspace, out: string, mode: RuntimeMode, swap: (next: Catalog) => void, log: (m: string) => void): SourceWatcher {
  return rebuildOnChange(
    workspace,
    () => {
      const started = performance.now();
      const manifest = buildInto(workspace, out, { rebuilds: true });
      const catalog = Catalog.load(out, mode);
      swap(catalog);
      log(`reloaded ${manifest.packages.length} packages (${manifest.failures.length} failed) in ${Math.round(performance.now() - started)} ms`);
      logBuildProblems(manifest, log);
      for (const warning of mappingIndex(catalog).warnings) log(`  warning ${warning}`);
    },
    (err) => log(`reload failed: ${err instanceof Error ? err.message : String(err)}`),
  );
}

/** The programs that failed and what was not read, one log line each. */
export function logBuildProblems(manifest: Manifest, log: (m: string) => void): void {
  for (const f of manifest.failures) log(`  ✗ ${f.program}: ${f.error.split('\n')[0]}`);
  for (const w of manifest.warnings) log(`  warning ${w.path}: ${w.reason}`);
}
