import { Box } from 'ink';
import { useState } from 'react';
import { indexGraph, type TreeLine, treeLines } from '../dependency-tree.js';
import { findGraphRule, graphOf } from '../graph-lookup.js';
import { ListPane, moved, Pending, T, useExplorer, useKeyInput, useKeys, useLoad } from '../ui.js';

// The dependency tree of a package (from its own outputs) or of one rule, from its compiled
// package graph; nodes open and close one at a time.

export function GraphScreen({ jurisdiction, programId, ruleId }: { jurisdiction?: string; programId?: string; ruleId?: string }) {
  const { source, push, rows } = useExplorer();
  const { data, error } = useLoad(async () => {
    if (jurisdiction && programId) {
      const graph = await graphOf(source, jurisdiction, programId);
      return { title: `${jurisdiction}/${programId}: ${graph.rules.length} rules, ${graph.inputs.length} inputs`, index: indexGraph(graph), roots: graph.ownOutputs };
    }
    const view = await source.rule(ruleId!);
    const hit = await findGraphRule(source, view.rule.id, view.rule);
    if (!hit) return { title: `${view.rule.name} is in no compiled package: no dependency graph (the rule screen lists its indexed dependencies)`, index: undefined, roots: [] };
    return { title: `${hit.rule.name} in ${hit.jurisdiction}/${hit.programId}`, index: indexGraph(hit.graph), roots: [hit.rule.legalId] };
  }, [source, jurisdiction, programId, ruleId]);
  // open nodes by key; the roots start open
  const [open, setOpen] = useState<Set<string> | undefined>();
  const [cursor, setCursor] = useState(0);
  const opened = open ?? new Set(data?.roots ?? []);
  const lines: TreeLine[] = data?.index ? treeLines(data.index, data.roots, (key) => opened.has(key)) : [];
  useKeys(data?.index ? ['↑↓/jk move', 'enter/→ open', '← close', 'o open rule'] : []);
  useKeyInput((input, key) => {
    setCursor((c) => moved(c, lines.length, input, key));
    const line = lines[cursor];
    if (!line) return;
    const toggle = (to: boolean) => {
      const next = new Set(opened);
      if (to) next.add(line.key);
      else next.delete(line.key);
      setOpen(next);
    };
    if ((key.return || key.rightArrow || input === ' ') && line.hasChildren) toggle(key.rightArrow ? true : !line.expanded);
    if (key.leftArrow) {
      if (line.expanded) toggle(false);
      else {
        // to the parent line
        let parent = cursor - 1;
        while (parent >= 0 && lines[parent].depth >= line.depth) parent--;
        if (parent >= 0) setCursor(parent);
      }
    }
    if (input === 'o' && line.rule) push({ kind: 'rule', id: line.id, label: line.name });
  });
  if (!data) return <Pending error={error} />;
  return (
    <Box flexDirection="column">
      <T bold>{data.title}</T>
      {data.index ? (
        <ListPane
          title="Dependency tree"
          items={lines}
          cursor={cursor}
          height={Math.max(3, rows - 2)}
          render={(l) => `${'  '.repeat(l.depth)}${l.hasChildren ? (l.expanded ? '▾ ' : '▸ ') : '  '}${l.name}  ${l.kind}${l.rule?.source ? `  ${l.rule.source}` : ''}`}
        />
      ) : null}
    </Box>
  );
}
