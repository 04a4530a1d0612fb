import { importClosure } from './2-resolve/closure.js';
import { buildNamespace } from './2-resolve/namespace.js';
import type { SourceTree } from './2-resolve/source-tree.js';
import { type LoweringOrigins, lowerProgram } from './3-lower/program.js';
import type { Program } from './3-lower/ir.js';
import { RuleSpecError } from './diagnostics.js';

// encodings → parse → resolve → lower: the program of one module with its import closure.

/** `origins`: where its conditionals, connectives and parameter versions came from (see lowerProgram). */
export function compileModule(tree: SourceTree, target: string, origins?: LoweringOrigins): Program {
  const modules = importClosure(tree, target);
  const problems = modules.flatMap((m) => m.errors);
  if (problems.length > 0) {
    const [first, ...others] = problems;
    first.others = others;
    throw first;
  }
  return lowerProgram(buildNamespace(modules), origins);
}

