import { describe, expect, it } from 'vitest';
import { bundledForTests, explore, KEY, selectedLine } from '../helpers.js';

const compiled = bundledForTests();

describe('Graph screen', () => {
  it('g on a package shows its dependency tree from its own outputs; nodes open and close', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('g');
    const graph = compiled.catalog.graph('us', 'snap')!;
    let frame = await ui.until(`us/snap: ${graph.rules.length} rules, ${graph.inputs.length} inputs`);
    const root = graph.rules.find((r) => r.legalId === graph.ownOutputs[0])!;
    expect(selectedLine(frame)).toContain(`▾ ${root.name}  derived  ${root.source}`.slice(0, 60));
    // the first root is open: its dependencies follow, one level deeper
    const firstDep = graph.rules.find((r) => r.legalId === root.ruleDeps[0])!;
    expect(frame).toContain(`    ▸ ${firstDep.name}  `);
    await ui.press(KEY.enter);
    frame = await ui.until((f) => selectedLine(f).includes(`▸ ${root.name}`));
    expect(frame).not.toContain(`    ▸ ${firstDep.name}  `);
    await ui.press(KEY.right, KEY.down, KEY.right);
    frame = await ui.until((f) => selectedLine(f).includes(`▾ ${firstDep.name}`));
    // ← on an open node closes it, on a closed one goes to the parent
    await ui.press(KEY.left, KEY.left);
    await ui.until((f) => selectedLine(f).includes(`▾ ${root.name}`));
    ui.unmount();
  });

  it('g on a rule shows the tree under that rule; o opens a node as a rule', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('/', ...'snap_unit_size'.split(''));
    await ui.until((f) => selectedLine(f).includes('snap_unit_size '));
    await ui.press(KEY.enter);
    await ui.until('Citation:');
    await ui.press('g');
    const frame = await ui.until('snap_unit_size in us/snap');
    expect(frame).toContain('Dependency tree (3)');
    expect(frame).toContain('      household_size  input');
    await ui.press('o');
    await ui.until('› graph snap_unit_size › snap_unit_size');
    ui.unmount();
  });

  it('says so when a rule is in no compiled package graph', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('/', ...'member_of_household'.split(''));
    await ui.until((f) => selectedLine(f).startsWith('› member_of_household '));
    await ui.press(KEY.enter);
    expect(await ui.until('Citation:')).toContain('not in any compiled package: no executable formula');
    await ui.press('g');
    const frame = await ui.until('member_of_household is in no compiled package: no dependency graph');
    // nothing to move through: the footer offers only the keys that work everywhere
    expect(frame).toContain('\n/ search · ? help · esc back · q quit');
    ui.unmount();
  });
});
