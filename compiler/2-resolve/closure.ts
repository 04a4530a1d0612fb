import type { ParsedModule } from '../1-parse/module.js';
import { RuleSpecError } from '../diagnostics.js';
import type { SourceTree } from './source-tree.js';

// The import closure of a root module: depth-first in list order, each module once, every
// module after its own imports (the merge order of the flat namespace). Cycles and missing
// targets are errors located at the offending import entry.

export function importClosure(tree: SourceTree, rootTarget: string): ParsedModule[] {
  const root = tree.module(rootTarget);
  if (!root) throw new RuleSpecError('unresolved_import', `no module file for \`${rootTarget}\` under ${tree.roots.join(', ')}`);
  const ordered: ParsedModule[] = [];
  const done = new Set<string>();
  const active: string[] = [];

  const visit = (mod: ParsedModule) => {
    active.push(mod.target);
    for (const imp of mod.imports) {
      if (done.has(imp.target)) continue;
      const at = { location: { file: mod.file, path: imp.path } };
      if (active.includes(imp.target)) {
        const cycle = [...active.slice(active.indexOf(imp.target)), imp.target].join(' → ');
        throw new RuleSpecError('import_cycle', `import cycle: ${cycle}`, at);
      }
      const dep = tree.module(imp.target);
      if (!dep) {
        throw new RuleSpecError('unresolved_import', `import \`${imp.target}\` does not resolve: no file ${describeExpected(tree, imp.target)}`, at);
      }
      visit(dep);
    }
    active.pop();
    done.add(mod.target);
    ordered.push(mod);
  };
  visit(root);
  return ordered;
}

function describeExpected(tree: SourceTree, target: string): string {
  const colon = target.indexOf(':');
  const rel = `${target.slice(0, colon)}/${target.slice(colon + 1)}.yaml`;
  return tree.roots.length === 1 ? `${tree.roots[0]}/${rel}` : `${rel} under any of ${tree.roots.join(', ')}`;
}

/**
 * Every target a module reaches through its imports, itself included: those without a file and
 * past cycles too, so that adding or fixing any of them is known to concern the module.
 */
export function reachableTargets(tree: SourceTree, rootTarget: string): string[] {
  const seen = new Set<string>([rootTarget]);
  const queue = [rootTarget];
  for (let target = queue.pop(); target !== undefined; target = queue.pop()) {
    for (const imp of tree.module(target)?.imports ?? []) {
      if (!seen.has(imp.target)) {
        seen.add(imp.target);
        queue.push(imp.target);
      }
    }
  }
  return [...seen];
}
