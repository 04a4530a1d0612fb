import path from 'node:path';
import type { RuntimePackage } from '../compiler/4-package/package-types.js';
import { defaultProgramsDirs, type LayoutWarning } from '../compiler/2-resolve/corpus-layout.js';
import { BUNDLED_ROOT } from '../compiler/project.js';
import type { BuildFailure } from '../compiler/build.js';
import { Workspace } from '../compiler/workspace.js';

// The library's compile(): encoding roots to runtime packages, in memory.

export interface CompileOptions {
  /** Encoding roots holding jurisdiction folders (default: the bundled encodings). */
  roots?: string[];
  /** Folders of program specs `<jurisdiction>/<program>/<period>.yaml` (default: `<root>/programs` of each root). */
  programs?: string[];
}

export interface Compiled {
  packages: RuntimePackage[];
  /** Programs that did not compile, with the reason. */
  failures: BuildFailure[];
  /** Modules with errors, whether or not a program needed them. */
  moduleErrors: { file: string; error: string }[];
  /** What under the roots was not read (a folder that is not a jurisdiction, a stray file, …), and why. */
  warnings: LayoutWarning[];
}

/** Compile encoding roots into runtime packages, in memory (as `rules compile` does, without writing). */
export function compile(options: CompileOptions = {}): Compiled {
  const roots = (options.roots ?? [BUNDLED_ROOT]).map((r) => path.resolve(r));
  const programs = (options.programs ?? defaultProgramsDirs(roots)).map((p) => path.resolve(p));
  const build = new Workspace(roots, programs).build();
  return { packages: build.packages.map((b) => b.pkg), failures: build.failures, moduleErrors: build.moduleErrors, warnings: build.warnings };
}

