import type { GraphRule } from '../../compiler/4-package/package-types.js';
import type { ExplorerSource, ProgramGraph } from './source.js';

// Which compiled package graph holds a rule: the rule index has no formulas, the package graphs
// do. The rule's own program is tried first, then every other package.

export interface GraphHit {
  jurisdiction: string;
  programId: string;
  graph: ProgramGraph;
  rule: GraphRule;
}

const graphs = new WeakMap<ExplorerSource, Map<string, Promise<ProgramGraph>>>();

/** A package's graph, fetched once per source. */
export function graphOf(source: ExplorerSource, jurisdiction: string, programId: string): Promise<ProgramGraph> {
  const cache = graphs.get(source) ?? graphs.set(source, new Map()).get(source)!;
  const key = `${jurisdiction}/${programId}`;
  let graph = cache.get(key);
  if (!graph) {
    graph = source.graph(jurisdiction, programId);
    cache.set(key, graph);
    graph.catch(() => cache.delete(key));
  }
  return graph;
}

export async function findGraphRule(source: ExplorerSource, ruleId: string, home?: { jurisdiction: string; program_id: string }): Promise<GraphHit | undefined> {
  const packages = await source.packages();
  const ordered = [...packages].sort((a, b) => Number(isHome(b, home)) - Number(isHome(a, home)));
  for (const p of ordered) {
    const graph = await graphOf(source, p.jurisdiction, p.program_id);
    const rule = graph.rules.find((r) => r.legalId === ruleId);
    if (rule) return { jurisdiction: p.jurisdiction, programId: p.program_id, graph, rule };
  }
  return undefined;
}

const isHome = (p: { jurisdiction: string; program_id: string }, home?: { jurisdiction: string; program_id: string }) =>
  !!home && p.jurisdiction === home.jurisdiction && p.program_id === home.program_id;
