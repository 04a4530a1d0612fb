import { Box } from 'ink';
import { useState } from 'react';
import { findGraphRule } from '../graph-lookup.js';
import { ListPane, Panes, moved, Pending, T, useExplorer, useKeyInput, useKeys, useLoad } from '../ui.js';

// One rule: citation, name, summary, formula, sources with URLs, dependencies and dependents.
// Enter follows the selected dependency or dependent; Tab switches between the two lists.

export function RuleScreen({ id }: { id: string }) {
  const { source, push, rows, columns } = useExplorer();
  const { data, error } = useLoad(async () => {
    const view = await source.rule(id);
    const hit = await findGraphRule(source, view.rule.id, view.rule);
    return { ...view, hit };
  }, [source, id]);
  const [pane, setPane] = useState<'dependencies' | 'dependents'>('dependencies');
  const [cursors, setCursors] = useState({ dependencies: 0, dependents: 0 });
  useKeys(data ? ['↑↓/jk move', 'tab deps/dependents', 'enter follow', 'g graph'] : []);
  useKeyInput((input, key) => {
    if (!data) return;
    if (key.tab) return setPane((p) => (p === 'dependencies' ? 'dependents' : 'dependencies'));
    const list = data.rule[pane];
    setCursors((c) => ({ ...c, [pane]: moved(c[pane], list.length, input, key) }));
    const target = list[cursors[pane]];
    if (key.return && target) push({ kind: 'rule', id: target, label: target.slice(target.lastIndexOf('#') + 1) });
    if (input === 'g') push({ kind: 'graph', ruleId: data.rule.id, label: `graph ${data.rule.name}` });
  });
  if (!data) return <Pending error={error} />;
  const { rule, sources, hit } = data;
  const citation = sources.find((s) => s.source_type === 'official')?.label ?? rule.citation_path;
  const formula = hit?.rule.formula?.split('\n') ?? [];
    // the lines above the lists, the summary wrapping at the terminal's width
  const summaryLines = Math.ceil(rule.summary.length / Math.max(20, columns));
  const used = 6 + summaryLines + Math.max(1, formula.length) + sources.length;
  const listHeight = Math.max(3, rows - used);
  const wide = columns >= 110;
  return (
    <Box flexDirection="column">
      <T bold wrap="truncate-end">
        <T tone="accent">{rule.name}</T> <T tone="muted">({rule.status}, {rule.document_class}, {rule.jurisdiction}/{rule.program_id})</T>
      </T>
      <T wrap="truncate-end">Citation: {citation}</T>
      <T tone="muted" wrap="truncate-end">
        {rule.id} · {rule.citation_path}
      </T>
      <T>{rule.summary}</T>
      <T tone="accent">Formula{hit ? ` (${hit.rule.kind}${hit.rule.dtype ? `, ${hit.rule.dtype}` : ''}${hit.rule.unit ? ` ${hit.rule.unit}` : ''}; from package ${hit.jurisdiction}/${hit.programId})` : ''}</T>
      {hit ? formula.map((line, i) => <T key={i}>  {line}</T>) : <T tone="muted">  not in any compiled package: no executable formula</T>}
      <T tone="accent">Sources</T>
      {sources.map((s) => (
        <T key={s.id} wrap="truncate-end">
          {'  '}
          {s.label} <T tone="muted">{s.url ?? `(${s.source_type}, no URL)`}</T>
        </T>
      ))}
      <Panes wide={wide} share={0.5}>
        <ListPane title="Dependencies" items={rule.dependencies} cursor={cursors.dependencies} height={wide ? listHeight : Math.ceil(listHeight / 2)} focused={pane === 'dependencies'} render={(d) => d} />
        <ListPane title="Dependents" items={rule.dependents} cursor={cursors.dependents} height={wide ? listHeight : Math.floor(listHeight / 2)} focused={pane === 'dependents'} render={(d) => d} />
      </Panes>
    </Box>
  );
}
