import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { holdsJurisdictions } from '../compiler/2-resolve/corpus-layout.js';
import { BUNDLED_ROOT } from '../compiler/project.js';

/**
 * The encoding roots of `rules test` and `rules compile` without `--root` or paths: ./rulespec
 * (a project's own encodings), else the current folder if it holds jurisdiction folders, else
 * the bundled encodings.
 */
export function defaultRoots(): string[] {
  const local = path.resolve('rulespec');
  if (existsSync(local) && statSync(local).isDirectory()) return [local];
  if (holdsJurisdictions(process.cwd())) return [process.cwd()];
  return [BUNDLED_ROOT];
}
