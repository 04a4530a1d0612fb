import { describe, expect, it } from 'vitest';
import { bundledForTests, explore, KEY, selectedLine } from '../helpers.js';

const compiled = bundledForTests();

describe('Search screen', () => {
  it('/ opens a search box whose results follow the typing, ranked as POST /v1/search ranks them', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('/');
    expect(await ui.until('Search:')).toContain('type at least 2 characters');
    await ui.press('s', 'n', 'a', 'p', ' ', 'a', 'l', 'l', 'o', 't');
    const frame = await ui.until('Rules matching "snap allot"');
    const expected = compiled.catalog.search.search('snap allot', {}, 50);
    expect(frame).toContain(`Rules matching "snap allot" (${expected.length})`);
    const names = frame.split('\n').filter((l) => /^[›· ] /.test(l) && l.includes(' encoded ')).map((l) => l.slice(2).split(/\s+/)[0]);
    expect(names).toEqual(expected.slice(0, names.length).map((r) => r.name));
    // letters are the query here: q typed into the box does not quit
    await ui.press('q');
    expect(await ui.until('Rules matching "snap allotq"')).toContain('no rule matches every word');
    await ui.press(KEY.backspace);
    await ui.until(`Rules matching "snap allot" (${expected.length})`);
    ui.unmount();
  });

  it('keeps every key typed right after / in the box that / opened, however fast they come (one read)', async () => {
    for (let run = 0; run < 5; run++) {
      const ui = explore(compiled.catalog);
      await ui.until('Runtime packages');
      ui.stdin.write('/net income');
      expect(await ui.until('Rules matching "net income"')).toMatch(/^Search: net income/m);
      ui.unmount();
    }
  });

  it('edits the query at its cursor: ←/→ move it, Backspace deletes before it', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    ui.stdin.write('/snap income');
    await ui.until('Rules matching "snap income"');
    await ui.press(...Array(7).fill(KEY.left), ' net', KEY.right, KEY.backspace, 'x');
    await ui.until('Rules matching "snap netxincome"');
    ui.unmount();
  });

  it('moves with the arrows, opens the selected rule with Enter, and keeps the query on the way back', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('/', ...'net income'.split(''));
    await ui.until('Rules matching "net income"');
    const second = compiled.catalog.search.search('net income', {}, 50)[1];
    await ui.press(KEY.down);
    await ui.until((f) => selectedLine(f).includes(second.name));
    await ui.press(KEY.enter);
    const frame = await ui.until(`Programs › search › ${second.name}`);
    expect(frame).toContain(second.id);
    await ui.press(KEY.escape);
    await ui.until('Rules matching "net income"');
    ui.unmount();
  });
});
