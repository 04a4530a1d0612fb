import type { ParsedModule } from '../../1-parse/module.js';
import type { Program } from '../../3-lower/ir.js';
import type { LoweringOrigins } from '../../3-lower/program.js';
import { type Counts, type CountsSource, CoverageObserver } from './observer.js';
import { type ModuleCoverage, moduleProvisions } from './provisions.js';

// What one test run (or one worker of it) counts: the modules of the selection that its cases
// reach, each enumerated once, and an observer per program that counts into them.

export class CoverageCollector implements CountsSource {
  readonly counts: Counts = { rules: new Map(), versions: new Map(), blocks: new Map(), rows: new Map() };
  private readonly seen = new Set<ParsedModule>();
  private readonly modules: ModuleCoverage[] = [];

  /** `counted`: whether a module file is in the selection being measured. */
  constructor(private readonly counted: (file: string) => boolean) {}

  /** Count a module (once), whether or not a case reaches it. */
  include(mod: ParsedModule): void {
    if (this.seen.has(mod)) return;
    this.seen.add(mod);
    if (!this.counted(mod.file)) return;
    this.modules.push(moduleProvisions(mod, this.counts).record);
  }

  /** An observer for the cases of a program; `origins` filled by its lowering (see compileModule). */
  observe(program: Program, origins: LoweringOrigins): CoverageObserver {
    return new CoverageObserver(program, this, origins);
  }

  /** What was counted, module by module. */
  records(): ModuleCoverage[] {
    return this.modules;
  }
}
