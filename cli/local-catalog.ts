import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultProgramsDirs } from '../compiler/2-resolve/corpus-layout.js';
import { buildInto } from '../compiler/build-into.js';
import { BUNDLED_ROOT } from '../compiler/project.js';
import { Workspace } from '../compiler/workspace.js';
import { Catalog } from '../server/catalog/catalog.js';

// Commands that calculate in-process (parity, validate, explore) run on a compiled output tree:
// the one given with --compiled, or encoding roots (the bundled ones unless `roots` are given)
// compiled into a scratch folder for the run.

export async function withLocalCatalog<T>(compiled: string | undefined, use: (catalog: Catalog) => T | Promise<T>, roots: string[] = [BUNDLED_ROOT]): Promise<T> {
  let dir = compiled;
  let scratch: string | undefined;
  if (!dir) {
    scratch = mkdtempSync(path.join(tmpdir(), 'rules-local-'));
    dir = path.join(scratch, 'compiled');
    buildInto(new Workspace(roots, defaultProgramsDirs(roots)), dir, { fullSweep: true });
  }
  try {
    return await use(Catalog.load(path.resolve(dir), 'compiled'));
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
