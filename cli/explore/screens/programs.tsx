import { Box } from 'ink';
import { useState } from 'react';
import { ListPane, moved, Pending, T, useExplorer, useKeyInput, useKeys, useLoad } from '../ui.js';

// The runtime packages with their status, inputs and outputs; Enter opens one.

export function ProgramsScreen() {
  const { source, push, rows } = useExplorer();
  const { data, error } = useLoad(async () => {
    const [packages, programs] = await Promise.all([source.packages(), source.programs()]);
    return packages.map((p) => ({ ...p, program: programs.find((g) => g.id === p.program_id && g.jurisdiction === p.jurisdiction) }));
  }, [source]);
  const [cursor, setCursor] = useState(0);
  useKeys(data?.length ? ['↑↓/jk move', 'enter open', 'c household', 'g graph'] : []);
  useKeyInput((input, key) => {
    if (!data?.length) return;
    setCursor((c) => moved(c, data.length, input, key));
    const p = data[cursor];
    if (key.return) push({ kind: 'package', jurisdiction: p.jurisdiction, programId: p.program_id });
    if (input === 'c') push({ kind: 'household', jurisdiction: p.jurisdiction, programId: p.program_id });
    if (input === 'g') push({ kind: 'graph', jurisdiction: p.jurisdiction, programId: p.program_id, label: `graph ${p.program_id}` });
  });
  if (!data) return <Pending error={error} />;
  const selected = data[cursor];
  return (
    <Box flexDirection="column">
      <ListPane
        title="Runtime packages"
        items={data}
        cursor={cursor}
        height={Math.max(3, rows - 4)}
        empty="no runtime package compiled"
        render={(p) => `${`${p.jurisdiction}/${p.program_id}`.padEnd(18)} ${(p.program?.status ?? p.status).padEnd(10)} ${String(p.input_count).padStart(3)} inputs ${String(p.output_count).padStart(3)} outputs  ${p.mode}`}
      />
      {selected?.program ? (
        <T tone="muted" wrap="truncate-end">
          {selected.program.name}: {selected.program.rule_count} rules indexed · {selected.program.status_reason}
        </T>
      ) : null}
    </Box>
  );
}
