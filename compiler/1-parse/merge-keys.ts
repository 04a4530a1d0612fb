import { EVENT_ID, type Event, getScalarValue, parseEvents } from 'js-yaml';
import { positionAt, RuleSpecError } from '../diagnostics.js';

// Duplicate keys that YAML merge keys hide. js-yaml, like the YAML merge spec, lets an explicit
// key override one merged in by `<<:`; the reference test harness reads YAML with PyYAML and a
// loader that refuses any key twice in a mapping after the merges are flattened, so it rejects
// such a file. This finds the first such key, for `rules test --strict`.

interface Scalar {
  kind: 'scalar';
  value: string;
  /** A plain `<<` with no tag: a merge key. */
  merge: boolean;
  at: number;
}
interface Mapping {
  kind: 'mapping';
  pairs: { key: Node; value: Node }[];
}
interface Sequence {
  kind: 'sequence';
  items: Node[];
}
interface Alias {
  kind: 'alias';
  anchor: string;
}
type Node = Scalar | Mapping | Sequence | Alias;

/** The documents of `text` as nodes that keep their key offsets, and the anchored nodes by name. */
function nodes(text: string, file: string): { roots: Node[]; anchors: Map<string, Node> } {
  const events: Event[] = parseEvents(text, { filename: file, maxDepth: 200 });
  const anchors = new Map<string, Node>();
  const roots: Node[] = [];
  // open collections, each with the key of a mapping entry still waiting for its value
  const stack: { node: Mapping | Sequence | null; key?: Node }[] = [];
  const add = (node: Node) => {
    const top = stack[stack.length - 1];
    if (!top?.node) roots.push(node);
    else if (top.node.kind === 'sequence') top.node.items.push(node);
    else if (!top.key) top.key = node;
    else {
      top.node.pairs.push({ key: top.key, value: node });
      top.key = undefined;
    }
  };
  const anchor = (e: { anchorStart: number; anchorEnd: number }, node: Node) => {
    if (e.anchorStart >= 0) anchors.set(text.slice(e.anchorStart, e.anchorEnd), node);
  };
  for (const e of events) {
    if (e.type === EVENT_ID.DOCUMENT) stack.push({ node: null });
    else if (e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE) {
      const node: Mapping | Sequence = e.type === EVENT_ID.MAPPING ? { kind: 'mapping', pairs: [] } : { kind: 'sequence', items: [] };
      anchor(e, node);
      add(node);
      stack.push({ node });
    } else if (e.type === EVENT_ID.SCALAR) {
      const value = getScalarValue(text, e);
      const node: Scalar = { kind: 'scalar', value, merge: value === '<<' && e.style === 1 && e.tagStart < 0, at: e.valueStart };
      anchor(e, node);
      add(node);
    } else if (e.type === EVENT_ID.ALIAS) add({ kind: 'alias', anchor: text.slice(e.anchorStart, e.anchorEnd) });
    else stack.pop();
  }
  return { roots, anchors };
}

/** The first key of a mapping that an explicit entry and a merged one (or two merged ones) both give. */
export function mergedDuplicateKey(text: string, file: string): RuleSpecError | undefined {
  let parsed: ReturnType<typeof nodes>;
  try {
    parsed = nodes(text, file);
  } catch {
    return undefined; // a syntax error is reported by the ordinary load
  }
  const { roots, anchors } = parsed;
  const deref = (n: Node): Node | undefined => (n.kind === 'alias' ? anchors.get(n.anchor) : n);
  /** Every key a mapping yields once its merges are flattened, merged ones first (as PyYAML flattens). */
  const keysOf = (m: Mapping, seen: Set<Mapping>): { value: string; merged: boolean; at: number }[] => {
    if (seen.has(m)) return [];
    seen.add(m);
    const merged: { value: string; merged: boolean; at: number }[] = [];
    const own: { value: string; merged: boolean; at: number }[] = [];
    for (const { key, value } of m.pairs) {
      if (key.kind === 'scalar' && key.merge) {
        const sources = deref(value);
        const list = sources?.kind === 'sequence' ? sources.items.map(deref) : [sources];
        for (const source of list) if (source?.kind === 'mapping') merged.push(...keysOf(source, seen).map((k) => ({ ...k, merged: true, at: key.at })));
      } else if (key.kind === 'scalar') own.push({ value: key.value, merged: false, at: key.at });
    }
    seen.delete(m);
    return [...merged, ...own];
  };
  const visited = new Set<Node>();
  const check = (node: Node): RuleSpecError | undefined => {
    if (visited.has(node)) return undefined;
    visited.add(node);
    if (node.kind === 'sequence') {
      for (const item of node.items) {
        const problem = check(item);
        if (problem) return problem;
      }
    }
    if (node.kind !== 'mapping') return undefined;
    const first = new Map<string, { merged: boolean; at: number }>();
    for (const key of keysOf(node, new Set())) {
      const earlier = first.get(key.value);
      if (earlier) {
        const how = key.merged ? 'is merged in twice by `<<:`' : 'is given explicitly and merged in by `<<:`';
        const line = positionAt(file, text, earlier.at).line;
        return new RuleSpecError('yaml_syntax', `YAML: duplicated mapping key \`${key.value}\`: it ${how} (line ${line}); the reference harness refuses the whole file`, { position: positionAt(file, text, key.at) });
      }
      first.set(key.value, key);
    }
    for (const { value } of node.pairs) {
      const problem = check(value);
      if (problem) return problem;
    }
    return undefined;
  };
  for (const root of roots) {
    const problem = check(root);
    if (problem) return problem;
  }
  return undefined;
}
