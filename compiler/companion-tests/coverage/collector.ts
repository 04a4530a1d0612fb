import type { ParsedModule } from '../../1-parse/module.js';
import type { Program } from '../../3-lower/ir.js';
import type { LoweringOrigins } from '../../3-lower/program.js';
import { type Counts, CoverageObserver } from './observer.js';
import { type ModuleCoverage, moduleProvisions } from './provisions.js';

// What one test run (or one worker of it) counts: the modules of the selection that its
// programs reach, each enumerated once, and an observer per program that counts into them.

export class CoverageCollector {
  /** Filled by the lowering of each program compiled for a case (see compileModule). */
  readonly origins: LoweringOrigins = { exprs: new WeakMap(), versions: new WeakMap() };
  private readonly counts: Counts = { rules: new Map(), versions: new Map(), blocks: new Map(), rows: new Map() };
  private readonly seen = new Set<ParsedModule>();
  private readonly modules: ModuleCoverage[] = [];

  /** `counted`: whether a module file is in the selection being measured. */
  constructor(private readonly counted: (file: string) => boolean) {}

  /** Count a module (once), whether or not a case reaches it. */
  include(mod: ParsedModule): void {
    if (this.seen.has(mod)) return;
    this.seen.add(mod);
    if (!this.counted(mod.file)) return;
    const index = moduleProvisions(mod);
    this.modules.push(index.record);
    for (const [decl, count] of index.rules) this.counts.rules.set(decl, count);
    for (const [key, count] of index.versions) this.counts.versions.set(key, count);
    for (const [expr, count] of index.blocks) this.counts.blocks.set(expr, count);
    for (const [decl, rows] of index.rows) this.counts.rows.set(decl, rows);
  }

  /** An observer for the cases of a program compiled with `origins`. */
  observe(program: Program): CoverageObserver {
    for (const mod of program.modules) this.include(mod);
    return new CoverageObserver(program, this.counts, this.origins);
  }

  /** What was counted, module by module. */
  records(): ModuleCoverage[] {
    return this.modules;
  }
}
