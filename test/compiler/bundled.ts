// Shared helpers for the compile tests: the bundled encodings built once per test file, and
// packages loaded from their serialized (stored) form, as the daemon loads them.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RuntimePackage } from '../../compiler/4-package/package-types.js';
import { calculate, type CalculationResult } from '../../compiler/runtime/calculate.js';
import { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import type { Build, BuiltPackage } from '../../compiler/build.js';
import { Workspace } from '../../compiler/workspace.js';
import { PROJECT } from '../support/paths.js';

export const RULESPEC = path.join(PROJECT, 'rulespec');
export const PROGRAMS = path.join(RULESPEC, 'programs');
export const PACKAGE_IDS = ['us/snap', 'us-co/co-snap', 'us-ny/ny-snap', 'us-ca/ca-snap'] as const;
export type PackageId = (typeof PACKAGE_IDS)[number];

/** Build encodings (by default the bundled ones) the way `rules compile` does. */
export function buildWorkspace(root = RULESPEC, programs = path.join(root, 'programs')): Build {
  return new Workspace([root], [programs]).build();
}

let bundled: Build | undefined;

/** The bundled encodings, built once per test file (each file runs in its own module scope). */
export function bundledBuild(): Build {
  bundled ??= buildWorkspace();
  return bundled;
}

export function builtPackage(id: PackageId, build: Build = bundledBuild()): BuiltPackage {
  const found = build.packages.find((p) => `${p.pkg.jurisdiction}/${p.pkg.program_id}` === id);
  if (!found) throw new Error(`no package ${id} in the build (failures: ${JSON.stringify(build.failures)})`);
  return found;
}

/** A package through a JSON round trip: the stored form the daemon loads. */
export function loadSerialized(pkg: RuntimePackage): LoadedPackage {
  return new LoadedPackage(JSON.parse(JSON.stringify(pkg)) as RuntimePackage);
}

const loadedCache = new Map<string, LoadedPackage>();

export function loaded(id: PackageId): LoadedPackage {
  let l = loadedCache.get(id);
  if (!l) {
    l = loadSerialized(builtPackage(id).pkg);
    loadedCache.set(id, l);
  }
  return l;
}

/** calculate() with a household of any shape (invalid ones included). */
export function calc(id: PackageId, household: unknown, variables?: string[]): CalculationResult {
  return calculate(loaded(id), { household: household as Record<string, unknown>, variables });
}

/** The error a call throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`threw a non-Error: ${String(err)}`);
  }
  throw new Error('expected an error, but the call returned normally');
}

/** A fresh copy of the bundled encodings under os.tmpdir(); remove it with `removeCopy`. */
export function copyRulespec(): { dir: string; root: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-compile-test-'));
  const root = path.join(dir, 'rulespec');
  cpSync(RULESPEC, root, { recursive: true });
  return { dir, root };
}

export function removeCopy(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
