import { RuleSpecError } from '../diagnostics.js';
import type { Program } from './ir.js';
import type { Dependencies } from './lower-expr.js';

// Rules may not depend on themselves, directly, through other rules, or through the predicate
// of a derived relation they aggregate over. Checked over every version of every rule.

export function checkCycles(program: Program, relationDeps: Map<number, Dependencies>): void {
  const viaRelation = new Map<number, number[]>(); // relation → rules its membership needs
  const relationRules = (rel: number, seen: number[] = []): number[] => {
    const cached = viaRelation.get(rel);
    if (cached) return cached;
    if (seen.includes(rel)) {
      const names = [...seen.slice(seen.indexOf(rel)), rel].map((r) => program.relations[r].name);
      throw new RuleSpecError('dependency_cycle', `derived relations depend on each other in a cycle: ${names.join(' → ')}`);
    }
    const deps = relationDeps.get(rel);
    const rules = deps ? [...deps.rules] : [];
    if (deps) for (const r of deps.relations) if (r !== rel) rules.push(...relationRules(r, [...seen, rel]));
    const source = program.relations[rel].derived?.source;
    if (source !== undefined && source === rel) throw new RuleSpecError('dependency_cycle', `derived relation \`${program.relations[rel].name}\` is its own source`);
    viaRelation.set(rel, rules);
    return rules;
  };

  const edges = program.rules.map((rule) => {
    const out = new Set(rule.ruleDeps);
    for (const rel of rule.relationDeps) for (const r of relationRules(rel)) out.add(r);
    return [...out];
  });

  const WHITE = 0, GREY = 1, BLACK = 2;
  const color = new Uint8Array(program.rules.length);
  for (let start = 0; start < program.rules.length; start++) {
    if (color[start] !== WHITE) continue;
    // iterative DFS keeping the current path, so deep chains don't overflow the stack
    const path: number[] = [start];
    const next: number[] = [0];
    color[start] = GREY;
    while (path.length) {
      const node = path[path.length - 1];
      const i = next[next.length - 1]++;
      if (i >= edges[node].length) {
        color[node] = BLACK;
        path.pop();
        next.pop();
        continue;
      }
      const dep = edges[node][i];
      if (color[dep] === GREY) {
        const cycle = [...path.slice(path.indexOf(dep)), dep].map((r) => program.rules[r].name);
        const rule = program.rules[dep];
        throw new RuleSpecError('dependency_cycle', `dependency cycle: ${cycle.join(' → ')}`, {
          location: { file: rule.origin.file, path: rule.versions[0]?.formula.path ?? [] },
        });
      }
      if (color[dep] === WHITE) {
        color[dep] = GREY;
        path.push(dep);
        next.push(0);
      }
    }
  }
}
