import type { GraphRule } from '../../compiler/4-package/package-types.js';
import type { ProgramGraph } from './source.js';

// A program graph as an indented tree: each rule over the rules and inputs it reads. The Graph
// screen expands nodes on demand; a calculation trace expands every rule the first time it
// appears and marks later appearances as repeats, so a shared sub-tree is shown once.

export interface TreeLine {
  /** The path of ids from the root: unique per line, stable across renders. */
  key: string;
  depth: number;
  id: string;
  name: string;
  kind: 'derived' | 'parameter' | 'input' | 'unknown';
  rule?: GraphRule;
  hasChildren: boolean;
  expanded: boolean;
  /** Shown (and expanded) earlier in this tree. */
  repeat: boolean;
}

export interface GraphIndex {
  rules: Map<string, GraphRule>;
  inputs: Map<string, string>;
}

export function indexGraph(graph: ProgramGraph): GraphIndex {
  return { rules: new Map(graph.rules.map((r) => [r.legalId, r])), inputs: new Map(graph.inputs.map((i) => [i.legalId, i.name])) };
}

const childrenOf = (rule: GraphRule | undefined): string[] => (rule ? [...rule.ruleDeps, ...rule.inputDeps] : []);

/** The visible lines under `roots`; `expand(key, id, firstSeen)` decides whether a node opens. */
export function treeLines(index: GraphIndex, roots: string[], expand: (key: string, id: string, firstSeen: boolean) => boolean): TreeLine[] {
  const lines: TreeLine[] = [];
  const seen = new Set<string>();
  const walk = (id: string, depth: number, parentKey: string) => {
    const key = parentKey ? `${parentKey}>${id}` : id;
    const rule = index.rules.get(id);
    const input = index.inputs.get(id);
    const firstSeen = !seen.has(id);
    seen.add(id);
    const children = childrenOf(rule);
    const expanded = children.length > 0 && expand(key, id, firstSeen);
    lines.push({
      key,
      depth,
      id,
      name: rule?.name ?? input ?? id.slice(id.lastIndexOf('#') + 1),
      kind: rule ? rule.kind : input ? 'input' : 'unknown',
      rule,
      hasChildren: children.length > 0,
      expanded,
      repeat: !firstSeen && children.length > 0,
    });
    if (expanded) for (const child of children) walk(child, depth + 1, key);
  };
  for (const root of roots) walk(root, 0, '');
  return lines;
}
