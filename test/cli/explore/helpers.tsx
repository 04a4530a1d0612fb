import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll } from 'vitest';
import { App } from '../../../cli/explore/app.js';
import { localSource } from '../../../cli/explore/local-source.js';
import { writeOutputTree } from '../../../compiler/5-emit/output-tree.js';
import { BUNDLED_ROOT } from '../../../compiler/project.js';
import { Workspace } from '../../../compiler/workspace.js';
import { Catalog } from '../../../server/catalog/catalog.js';

// The explorer's screens rendered by ink-testing-library over the bundled encodings, compiled
// once per test file into a scratch folder, and driven with keys as a user types them.

export const KEY = { down: '\u001B[B', up: '\u001B[A', right: '\u001B[C', left: '\u001B[D', enter: '\r', tab: '\t', escape: '\u001B', backspace: '\u007F' };

export function compileBundled(): { catalog: Catalog; dir: string; cleanup(): void } {
  const scratch = mkdtempSync(path.join(tmpdir(), 'rules-explore-test-'));
  const dir = path.join(scratch, 'compiled');
  writeOutputTree(dir, new Workspace([BUNDLED_ROOT], [path.join(BUNDLED_ROOT, 'programs')]).build(), { durationMs: 0 }, { fullSweep: true });
  return { catalog: Catalog.load(dir, 'compiled'), dir, cleanup: () => rmSync(scratch, { recursive: true, force: true }) };
}

/** The bundled encodings compiled for the calling test file (before its tests, removed after). */
export function bundledForTests(): { readonly catalog: Catalog } {
  let compiled: ReturnType<typeof compileBundled> | undefined;
  beforeAll(() => void (compiled = compileBundled()));
  afterAll(() => compiled?.cleanup());
  return {
    get catalog() {
      return compiled!.catalog;
    },
  };
}

export function explore(catalog: Catalog) {
  const app = render(<App source={localSource(catalog, 'compiled test')} color={false} />);
  const frame = () => app.lastFrame() ?? '';
  return {
    ...app,
    frame,
    /** Waits until the frame satisfies `check` (text it contains, or a predicate). */
    async until(check: string | RegExp | ((frame: string) => boolean), timeoutMs = 5000): Promise<string> {
      const ok = (f: string) => (typeof check === 'string' ? f.includes(check) : check instanceof RegExp ? check.test(f) : check(f));
      const started = Date.now();
      while (!ok(frame())) {
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${String(check)}; the frame is:\n${frame()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // a frame is written before React's passive effects run, and useInput subscribes the
      // screen's new key handler in one: let them run before the next key
      await new Promise((r) => setTimeout(r, 60));
      return frame();
    },
    /** Types keys one at a time, letting each render. */
    async press(...keys: string[]): Promise<void> {
      for (const k of keys) {
        app.stdin.write(k);
        await new Promise((r) => setTimeout(r, 60));
      }
    },
  };
}

/** The cursor's line of a frame (the one marked `›`). */
export const selectedLine = (frame: string): string => frame.split('\n').find((l) => l.trimStart().startsWith('›')) ?? '';
