import { Box } from 'ink';
import { useState } from 'react';
import { formatValue } from '../household-form.js';
import { ListPane, Panes, moved, Pending, T, useExplorer, useKeyInput, useKeys, useLoad } from '../ui.js';

// One runtime package: its inputs (per entity) and outputs; Enter on an output opens its rule.

export function PackageScreen({ jurisdiction, programId }: { jurisdiction: string; programId: string }) {
  const { source, push, rows, columns } = useExplorer();
  const { data, error } = useLoad(() => source.packageDetail(jurisdiction, programId), [source, jurisdiction, programId]);
  const [pane, setPane] = useState<'outputs' | 'inputs'>('outputs');
  const [cursors, setCursors] = useState({ outputs: 0, inputs: 0 });
  const inputs = data?.entities.flatMap((e) => e.inputs.map((input) => ({ entity: e.entity, input }))) ?? [];
  const outputs = data?.outputs.filter((o) => !o.alias_for) ?? [];
  useKeys([...(data ? ['↑↓/jk move', 'tab pane', ...(pane === 'outputs' ? ['enter rule'] : [])] : []), 'c household', 'g graph']);
  useKeyInput((input, key) => {
    // the household and the graph need only the package's name, not its loaded detail
    if (input === 'c') return push({ kind: 'household', jurisdiction, programId });
    if (input === 'g') return push({ kind: 'graph', jurisdiction, programId, label: `graph ${programId}` });
    if (!data) return;
    if (key.tab) return setPane((p) => (p === 'outputs' ? 'inputs' : 'outputs'));
    const count = pane === 'outputs' ? outputs.length : inputs.length;
    setCursors((c) => ({ ...c, [pane]: moved(c[pane], count, input, key) }));
    const output = outputs[cursors.outputs];
    if (key.return && pane === 'outputs' && output?.legal_id) push({ kind: 'rule', id: output.legal_id, label: output.name });
  });
  if (!data) return <Pending error={error} />;
  const wide = columns >= 110;
  const height = Math.max(4, wide ? rows - 4 : Math.floor((rows - 4) / 2));
  return (
    <Box flexDirection="column">
      <T bold>
        {data.name} <T tone="muted">{data.runtime_id} · {data.status} · period {data.default_period} · {data.mode}</T>
      </T>
      <T tone="muted" wrap="truncate-end">
        {data.description}
      </T>
      <Panes wide={wide} share={0.45}>
        <ListPane title="Outputs" items={outputs} cursor={cursors.outputs} height={height} focused={pane === 'outputs'} render={(o) => `${o.name}  ${o.legal_id ?? ''}`} />
        <ListPane
          title="Inputs"
          items={inputs}
          cursor={cursors.inputs}
          height={height}
          focused={pane === 'inputs'}
          render={({ entity, input }) => `${entity}.${input.name}  ${input.dtype}${input.required ? ' required' : ` default ${formatValue(input.default)}`}${input.values ? ` (${input.values.join('|')})` : ''}`}
        />
      </Panes>
    </Box>
  );
}
