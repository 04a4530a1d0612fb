import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultProgramsDirs } from '../compiler/2-resolve/corpus-layout.js';
import { buildInto } from '../compiler/build-into.js';
import { BUNDLED_ROOT } from '../compiler/project.js';
import { Workspace } from '../compiler/workspace.js';
import { Catalog } from '../server/catalog/catalog.js';
import { UsageError } from './exit-codes.js';
import { requireFolder } from './os-errors.js';

// Commands that calculate in-process (parity, validate, explore) run on a compiled output tree:
// the one given with --compiled, or encoding roots (the bundled ones unless `roots` are given)
// compiled into a scratch folder for the run. What that output could not compile or did not read
// is said on stderr, before the command's own output.

/** `--compiled <dir>` must be a compiled output tree: one line and exit 2 otherwise. */
export function requireCompiledOutput(dir: string): void {
  requireFolder(dir, '--compiled');
  if (!existsSync(path.join(dir, 'manifest.json'))) throw new UsageError(`--compiled ${dir} holds no compiled output (no manifest.json); build it with \`rules compile --out ${dir}\``);
}

export async function withLocalCatalog<T>(command: string, compiled: string | undefined, use: (catalog: Catalog) => T | Promise<T>, roots: string[] = [BUNDLED_ROOT]): Promise<T> {
  let dir = compiled;
  let scratch: string | undefined;
  if (dir) requireCompiledOutput(dir);
  else {
    scratch = mkdtempSync(path.join(tmpdir(), 'rules-local-'));
    dir = path.join(scratch, 'compiled');
    buildInto(new Workspace(roots, defaultProgramsDirs(roots)), dir, { fullSweep: true });
  }
  try {
    const catalog = Catalog.load(path.resolve(dir), 'compiled');
    reportBuildProblems(`rules ${command}`, catalog);
    return await use(catalog);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

function reportBuildProblems(prefix: string, catalog: Catalog): void {
  const { failures, module_errors: moduleErrors, warnings } = catalog.manifest;
  for (const f of failures) process.stderr.write(`${prefix}: warning: ${f.file}: ${f.jurisdiction}/${f.program_id} did not compile: ${f.error}\n`);
  for (const m of moduleErrors) process.stderr.write(`${prefix}: warning: ${m.file}: skipped: ${m.error}\n`);
  for (const w of warnings) process.stderr.write(`${prefix}: warning: ${w.path}: ${w.reason}\n`);
}
