import { describe, expect, it } from 'vitest';
import { bundledForTests, explore, KEY, selectedLine } from '../helpers.js';

const compiled = bundledForTests();

/** A list's title: `Title (n)`, or `Title (i/n)` when the terminal shows part of it. */
const count = (title: string, n: number) => new RegExp(`${title} \\((\\d+/)?${n}\\)`);

async function openAllotment(ui: ReturnType<typeof explore>) {
  await ui.until('Runtime packages');
  await ui.press('/', ...'snap_allotment'.split(''));
  await ui.until((f) => selectedLine(f).includes('snap_allotment '));
  await ui.press(KEY.enter);
  return ui.until('Citation:');
}

describe('Rule screen', () => {
  it('shows citation, name, summary, formula, sources with URLs, dependencies and dependents', async () => {
    const ui = explore(compiled.catalog);
    const frame = await openAllotment(ui);
    const { rule, sources } = compiled.catalog.rule('us:statutes/7/2017/a#snap_allotment')!;
    expect(frame).toContain('Citation: 7 USC 2017(a)');
    expect(frame).toContain('snap_allotment (encoded, statute, us/snap)');
    expect(frame).toContain(rule.summary.slice(0, 60));
    expect(frame).toContain('Formula (derived, Money USD; from package us/snap)');
    expect(frame).toContain('if not snap_income_eligible: 0');
    expect(frame).toContain(sources[0].url!);
    expect(frame).toMatch(count('Dependencies', rule.dependencies.length));
    expect(frame).toMatch(count('Dependents', rule.dependents.length));
    expect(selectedLine(frame)).toContain(rule.dependencies[0]);
    ui.unmount();
  });

  it('follows a dependency with Enter, shows the path in the breadcrumb, and goes back with Backspace', async () => {
    const ui = explore(compiled.catalog);
    await openAllotment(ui);
    const { rule } = compiled.catalog.rule('us:statutes/7/2017/a#snap_allotment')!;
    const target = compiled.catalog.rule(rule.dependencies[1])!.rule;
    await ui.press(KEY.down, KEY.enter);
    // the breadcrumb comes with `loading…`, then the rule
    const frame = await ui.until((f) => f.includes(`› snap_allotment › ${target.name}`) && f.includes(target.id));
    expect(frame).toMatch(count('Dependents', target.dependents.length));
    await ui.press(KEY.backspace);
    await ui.until((f) => f.includes('Citation: 7 USC 2017(a)') && !f.includes(`› ${target.name}`));
    // Tab moves to the dependents; Enter follows one
    await ui.press(KEY.tab);
    await ui.until((f) => selectedLine(f).includes(rule.dependents[0]));
    await ui.press(KEY.enter);
    await ui.until(`› snap_allotment › ${rule.dependents[0].split('#')[1]}`);
    ui.unmount();
  });
});
