import { describe, expect, it } from 'vitest';
import { bundledForTests, explore, KEY, selectedLine } from '../helpers.js';

const compiled = bundledForTests();

describe('Programs and Package screens', () => {
  it('lists every runtime package with its status, inputs and outputs', async () => {
    const ui = explore(compiled.catalog);
    // the list and its footer (a frame may show the one before the other)
    const frame = await ui.until((f) => f.includes('Runtime packages') && f.includes('↑↓/jk move'));
    for (const p of compiled.catalog.packages) {
      expect(frame).toMatch(new RegExp(`${p.jurisdiction}/${p.program_id}\\s+available\\s+${p.input_count} inputs\\s+${p.output_count} outputs`));
    }
    expect(frame).toContain('↑↓/jk move · enter open · c household · g graph');
    ui.unmount();
  });

  it('opens the selected package with Enter, shows its outputs and inputs, and goes back with Esc', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    // two keys read at once still move twice
    await ui.press('jj');
    await ui.until((f) => selectedLine(f).includes('us-co/co-snap'));
    await ui.press(KEY.enter);
    const frame = await ui.until((f) => f.includes('Programs › us-co/co-snap') && f.includes('tab pane ·'));
    expect(frame).toContain('SNAP (US-CO)');
    expect(frame).toContain('Outputs (6)');
    expect(frame).toContain('co_snap_monthly_benefit');
    expect(frame).toMatch(/Inputs \(\d+\/19\)|Inputs \(19\)/);
    expect(frame).toContain('tab pane · enter rule · c household · g graph');
    // Tab moves the cursor to the inputs
    await ui.press(KEY.tab);
    await ui.until((f) => selectedLine(f).includes('Household.household_size  Integer required'));
    await ui.press(KEY.escape);
    await ui.until((f) => f.includes('Runtime packages') && !f.includes('› us-co/co-snap ›'));
    ui.unmount();
  });

  it('acts on the line a move left it on when the move and Enter are read at once', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    const second = compiled.catalog.packages[1]!;
    await ui.press(KEY.down + KEY.enter); // one read: the arrow's escape sequence, then Enter
    await ui.until(`Programs › ${second.jurisdiction}/${second.program_id}`);
    await ui.press(KEY.escape);
    await ui.until((f) => f.includes('Runtime packages') && !f.includes('Programs › '));
    await ui.press('j\r'); // the same with j
    await ui.until(`Programs › ${compiled.catalog.packages[2]!.jurisdiction}/${compiled.catalog.packages[2]!.program_id}`);
    ui.unmount();
  });

  it('Enter on an output opens its rule', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('j', 'j', KEY.enter);
    await ui.until('Outputs (6)');
    await ui.press(KEY.enter);
    const frame = await ui.until('Citation: 7 USC 2017(a)');
    expect(frame).toContain('Programs › us-co/co-snap › snap_allotment');
    ui.unmount();
  });

  it('shows the help with ? and closes it with ?, back to the screen as it was', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('j', '?');
    expect(await ui.until('Keys')).toContain('Household   c on a package');
    expect(ui.frame()).not.toContain('Runtime packages');
    await ui.press('?');
    await ui.until((f) => selectedLine(f).includes('us-ca/ca-snap'));
    ui.unmount();
  });
});
