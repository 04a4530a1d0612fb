import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { RuntimePackage } from '../compiler/4-package/package-types.js';
import { readManifest } from '../compiler/5-emit/manifest.js';
import { LoadedPackage } from '../compiler/runtime/loaded-package.js';

// The library's loadPackage(): a runtime package ready to calculate, from memory or disk.

/** Something loadPackage cannot find or read: the message names the path or program. */
export class PackageLoadError extends Error {
  override name = 'PackageLoadError';
}

/**
 * A runtime package ready to calculate, from a package object (from `compile`), a
 * `*.package.json` file, or a compiled output folder (`rules compile --out`) with the program
 * named as `jurisdiction/program_id`.
 */
export function loadPackage(source: RuntimePackage | string, program?: string): LoadedPackage {
  if (typeof source !== 'string') return new LoadedPackage(source);
  let isFolder: boolean;
  try {
    isFolder = statSync(source).isDirectory();
  } catch (err) {
    throw new PackageLoadError(`${source}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (err as Error).message}`);
  }
  if (!isFolder) return new LoadedPackage(readJson(source) as RuntimePackage);
  const manifest = readManifest(source);
  if (!manifest) throw new PackageLoadError(`${source} holds no compiled output (no manifest.json); build it with \`rules compile --out ${source}\``);
  if (!program) throw new PackageLoadError(`name the program to load from ${source} as jurisdiction/program_id (${listPrograms(manifest.packages)})`);
  const entry = manifest.packages.find((p) => `${p.jurisdiction}/${p.program_id}` === program);
  if (!entry) throw new PackageLoadError(`no package \`${program}\` in ${source} (${listPrograms(manifest.packages)})`);
  return new LoadedPackage(readJson(path.join(source, entry.package)) as RuntimePackage);
}

/** `jurisdiction/program_id` of each package, for messages. */
export function listPrograms(packages: Pick<RuntimePackage, 'jurisdiction' | 'program_id'>[]): string {
  return packages.length ? `it has ${packages.map((p) => `${p.jurisdiction}/${p.program_id}`).join(', ')}` : 'it has no packages';
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PackageLoadError(`${file}: ${err instanceof SyntaxError ? `not JSON (${err.message})` : (err as Error).message}`);
  }
}

