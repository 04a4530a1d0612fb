import type { ParsedModule } from '../1-parse/module.js';
import type { SourceTree } from '../2-resolve/source-tree.js';
import { JURISDICTION } from '../names.js';
import { closureSymbols, type DeclaredSymbol } from './closure-names.js';
import type { GraphRule, ProgramGraph } from './package-types.js';
import { referencesOf } from './rule-index.js';

// A ProgramGraph composed on demand for any rule or file legal id, by walking the imports of a
// live encoding tree. It reflects declared structure (names resolved over the import closure),
// not an executable compilation, so it also works for modules that do not compile.

export const FOCUS_PATTERN = new RegExp(`^(${JURISDICTION}):([^#\\s]+?)(?:#([A-Za-z0-9_.-]+))?$`);

export class FocusError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'not_found',
  ) {
    super(message);
  }
}

export interface ComposedGraph {
  graph: ProgramGraph;
  files: string[];
  truncated: boolean;
}

export interface ComposeLimits {
  maxFiles: number;
  maxRules: number;
}

export const DEFAULT_COMPOSE_LIMITS: ComposeLimits = { maxFiles: 200, maxRules: 2000 };

/** The import closure in merge order, tolerant of missing targets and cycles, at most `max` files. */
function walkImports(tree: SourceTree, root: ParsedModule, max: number): { modules: ParsedModule[]; truncated: boolean } {
  const out: ParsedModule[] = [];
  const seen = new Set<string>([root.target]);
  let truncated = false;
  const visit = (mod: ParsedModule) => {
    for (const imp of mod.imports) {
      if (seen.has(imp.target)) continue;
      seen.add(imp.target);
      if (seen.size > max) {
        truncated = true;
        continue;
      }
      const dep = tree.module(imp.target);
      if (dep) visit(dep);
    }
    out.push(mod);
  };
  visit(root);
  return { modules: out, truncated };
}

export function composeGraph(tree: SourceTree, focus: string, limits: ComposeLimits = DEFAULT_COMPOSE_LIMITS): ComposedGraph {
  const m = FOCUS_PATTERN.exec(focus.trim());
  if (!m) throw new FocusError(`focus must be a rule or file legal id such as us:statutes/7/2017/a or us:statutes/7/2017/a#snap_allotment, got ${JSON.stringify(focus)}`, 'invalid');
  const target = `${m[1]}:${m[2]}`;
  const fragment = m[3];
  const root = tree.module(target);
  if (!root) throw new FocusError(`no encoded file for ${target}`, 'not_found');

  const { modules, truncated: tooManyFiles } = walkImports(tree, root, limits.maxFiles);
  const symbols = closureSymbols(modules);
  const byId = new Map<string, DeclaredSymbol>([...symbols.values()].map((s) => [s.id, s]));

  // which declarations the graph shows: the focus rule's dependency cone, or everything
  let selected: DeclaredSymbol[];
  if (fragment) {
    const start = byId.get(`${target}#${fragment}`);
    if (!start) throw new FocusError(`${target} declares no rule named ${fragment}`, 'not_found');
    const cone = new Map<string, DeclaredSymbol>();
    const stack = [start];
    while (stack.length) {
      const s = stack.pop()!;
      if (cone.has(s.id)) continue;
      cone.set(s.id, s);
      for (const name of referencesOf(s.rule)) {
        const dep = symbols.get(name);
        if (dep && !cone.has(dep.id)) stack.push(dep);
      }
    }
    selected = [...cone.values()];
  } else {
    selected = [...byId.values()];
  }
  const truncated = tooManyFiles || selected.length > limits.maxRules;
  selected = selected.slice(0, limits.maxRules);

  const rules: GraphRule[] = [];
  const inputs = new Map<string, ProgramGraph['inputs'][number]>();
  const relations = new Map<string, ProgramGraph['relations'][number]>();
  for (const s of selected) {
    if (s.kind === 'relation') {
      relations.set(s.id, { legalId: s.id, name: s.rule.name, fileLegalId: s.module.target, memberInputIds: [] });
      continue;
    }
    const ruleDeps: string[] = [];
    const inputDeps: string[] = [];
    const relationDeps: string[] = [];
    for (const name of referencesOf(s.rule)) {
      const dep = symbols.get(name);
      if (!dep) {
        const id = `${s.module.target}#input.${name}`;
        inputDeps.push(id);
        inputs.set(id, { legalId: id, name, fileLegalId: s.module.target, entity: s.rule.entity ?? 'Scalar' });
      } else if (dep.kind === 'relation') relationDeps.push(dep.id);
      else if (dep.id !== s.id) ruleDeps.push(dep.id);
    }
    const latest = s.rule.versions[s.rule.versions.length - 1];
    rules.push({
      legalId: s.id,
      name: s.rule.name,
      fileLegalId: s.module.target,
      kind: s.kind,
      entity: s.rule.entity ?? null,
      dtype: s.rule.dtype ?? null,
      period: s.rule.period ?? null,
      unit: s.rule.unit ?? null,
      source: s.rule.source ?? null,
      sourceUrl: s.rule.sourceUrl ?? null,
      ruleDeps,
      inputDeps,
      relationDeps,
      formula: latest?.formula?.text ?? null,
    });
  }
  for (const rel of rules.flatMap((r) => r.relationDeps)) {
    const d = byId.get(rel);
    if (d && !relations.has(rel)) relations.set(rel, { legalId: rel, name: d.rule.name, fileLegalId: d.module.target, memberInputIds: [] });
  }
  const consumed = new Set(rules.flatMap((r) => r.ruleDeps));
  const own = rules.filter((r) => (fragment ? r.legalId === selected[0]?.id : r.fileLegalId === target)).map((r) => r.legalId);
  return {
    graph: {
      rules,
      inputs: [...inputs.values()],
      relations: [...relations.values()],
      ownOutputs: own,
      terminalOutputs: rules.filter((r) => r.kind === 'derived' && !consumed.has(r.legalId)).map((r) => r.legalId),
    },
    files: [...new Set(selected.map((s) => s.module.target))],
    truncated,
  };
}
