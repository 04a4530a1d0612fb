import { describe, expect, it } from 'vitest';
import type { CalculateRequest } from '../../../../compiler/4-package/package-types.js';
import { runCalculation } from '../../../../server/calculation.js';
import { bundledForTests, explore, KEY, selectedLine } from '../helpers.js';

const compiled = bundledForTests();

/** What the API answers for co-snap's sample household with some of its Household inputs changed. */
function expected(changes: Record<string, unknown>) {
  const sample = structuredClone(compiled.catalog.package('us-co', 'co-snap')!.pkg.sample_request) as CalculateRequest;
  const household = sample.household as { entities: { Household: { household: Record<string, unknown> } } };
  Object.assign(household.entities.Household.household, changes);
  return runCalculation(compiled.catalog, sample, 10_000).outputs;
}

async function openHousehold() {
  const ui = explore(compiled.catalog);
  await ui.until('Runtime packages');
  await ui.press('j', 'j', 'c');
  await ui.until((f) => f.includes('Programs › co-snap household') && /trace steps/.test(f));
  return ui;
}

describe('Household screen', () => {
  it('opens the sample household of a package as a form beside its outputs', async () => {
    const ui = await openHousehold();
    const frame = ui.frame();
    const outputs = expected({});
    for (const [name, value] of Object.entries(outputs)) expect(frame).toContain(`▸ ${name} = ${JSON.stringify(value)}`);
    expect(selectedLine(frame)).toContain('household.household_size = 3');
    expect(frame).toContain('enter edit · +/- step · x clear · r reset · tab outputs');
    ui.unmount();
  });

  it('recalculates as numbers step and are typed, and as booleans toggle', async () => {
    const ui = await openHousehold();
    await ui.press('j', 'j', 'j', 'j');
    await ui.until((f) => selectedLine(f).includes('household.snap_earned_income = 1500 USD'));
    // + steps a dollar amount by 100
    await ui.press('+');
    let outputs = expected({ snap_earned_income: 1600 });
    let frame = await ui.until(`snap_allotment = ${outputs.snap_allotment}`);
    expect(frame).toContain('household.snap_earned_income = 1600 USD');
    expect(frame).toContain(`snap_net_income = ${outputs.snap_net_income}  (was ${expected({}).snap_net_income})`);
    // Enter edits the number; the typed value replaces it (typing and Enter may come in one read)
    await ui.press(KEY.enter, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, '29', '00\r');
    outputs = expected({ snap_earned_income: 2900 });
    frame = await ui.until('household.snap_earned_income = 2900 USD');
    await ui.until(`snap_allotment = ${outputs.snap_allotment}`);
    expect(outputs.snap_allotment).not.toBe(expected({}).snap_allotment);
    // backspaces read together (a terminal may deliver them in one read) each erase a character
    await ui.press(KEY.enter, KEY.backspace.repeat(4) + '31');
    await ui.until('household.snap_earned_income = 31▏');
    await ui.press(KEY.backspace.repeat(2) + '2900\r');
    await ui.until('household.snap_earned_income = 2900 USD');
    // a boolean toggles with Enter
    await ui.press('j', 'j', 'j', 'j');
    await ui.until((f) => selectedLine(f).includes('household.snap_pays_telephone = false'));
    await ui.press(KEY.enter);
    outputs = expected({ snap_earned_income: 2900, snap_pays_telephone: true });
    frame = await ui.until('household.snap_pays_telephone = true');
    await ui.until(`snap_utility_allowance = ${outputs.snap_utility_allowance}`);
    expect(outputs.snap_utility_allowance).not.toBe(expected({ snap_earned_income: 2900 }).snap_utility_allowance);
    ui.unmount();
  });

  it('refuses a value that is not a number, and shows the API refusing one it rejects', async () => {
    const ui = await openHousehold();
    await ui.press('j', 'j', 'j', 'j', KEY.enter, 'x', KEY.enter);
    await ui.until('snap_earned_income is Money: "1500x" is not a number');
    expect(ui.frame()).toContain('household.snap_earned_income = 1500 USD');
    // a negative amount is the API's to refuse: the message comes from the calculation
    await ui.press(KEY.enter, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, '-', '5', KEY.enter);
    await ui.until('must not be negative');
    ui.unmount();
  });

  it('opens an output into its trace: each rule with its value and legal source, down to the inputs', async () => {
    const ui = await openHousehold();
    await ui.press(KEY.tab, KEY.enter);
    const frame = await ui.until('▾ snap_allotment');
    const trace = runCalculation(compiled.catalog, compiled.catalog.package('us-co', 'co-snap')!.pkg.sample_request, 10_000).trace as { variable: string; value: unknown; sources: string[] }[];
    const eligible = trace.find((t) => t.variable === 'snap_income_eligible')!;
    expect(frame).toContain(`snap_income_eligible = ${eligible.value}  ${eligible.sources[0].slice(0, 20)}`);
    expect(frame).toContain('enter open trace · w why · o open rule · tab inputs');
    // o opens the rule of the selected line; coming back keeps the form and the open trace
    await ui.press('j', 'o');
    await ui.until('› co-snap household › snap_income_eligible');
    await ui.press(KEY.escape);
    await ui.until((f) => f.includes('▾ snap_allotment') && !f.includes('› snap_income_eligible'));
    // down the tree to the inputs, with the household's values
    for (let i = 0; i < 60 && !/snap_earned_income = 1500 {2}input/.test(ui.frame()); i++) await ui.press('j');
    expect(ui.frame()).toMatch(/snap_earned_income = 1500 {2}input/);
    ui.unmount();
  });

  it('marks the inputs the answer assumed, fills the next one with a, and shows why an output came out so with w', async () => {
    const ui = await openHousehold();
    // clear the shelter costs (the 12th input): the household no longer gives them, so the answer assumes 0
    for (let i = 0; i < 11; i++) await ui.press('j');
    await ui.until((f) => selectedLine(f).includes('household.snap_shelter_costs = 900 USD'));
    await ui.press('x');
    await ui.until((f) => f.includes('? household.snap_shelter_costs = —  assumed 0') && f.includes('· 1 assumed'));
    // from the top, `a` goes to it and opens it for typing
    for (let i = 0; i < 11; i++) await ui.press('k');
    await ui.until((f) => selectedLine(f).includes('household.household_size = 3'));
    await ui.press('a');
    await ui.until('household.snap_shelter_costs = ▏');
    await ui.press('900\r');
    await ui.until((f) => f.includes('household.snap_shelter_costs = 900 USD') && !f.includes('assumed'));
    // the first output, opened in the why view: its formula and the branch it took
    await ui.press(KEY.tab, 'w', KEY.enter);
    const frame = await ui.until('took the else branch'); // 3 people: past the minimum allotment's sizes
    expect(frame).toContain('= if not snap_income_eligible: 0');
    expect(frame).toContain('enter open why · w trace · o open rule · tab inputs');
    ui.unmount();
  });

  it('cycles an enum through its values and recalculates', async () => {
    const ui = explore(compiled.catalog);
    await ui.until('Runtime packages');
    await ui.press('j', 'j', 'j', 'c');
    await ui.until((f) => f.includes('ny-snap household') && /trace steps/.test(f));
    await ui.press('j');
    await ui.until((f) => selectedLine(f).includes('household.ny_snap_utility_region = nassau_suffolk'));
    expect(ui.frame()).toContain('enter/space next value');
    await ui.press(KEY.enter);
    await ui.until('household.ny_snap_utility_region = new_york_city');
    const sample = structuredClone(compiled.catalog.package('us-ny', 'ny-snap')!.pkg.sample_request) as CalculateRequest;
    (sample.household as { entities: { Household: { household: Record<string, unknown> } } }).entities.Household.household.ny_snap_utility_region = 'new_york_city';
    const outputs = runCalculation(compiled.catalog, sample, 10_000).outputs;
    await ui.until(`snap_utility_allowance = ${outputs.snap_utility_allowance}`);
    await ui.press(' ', ' ');
    await ui.until('household.ny_snap_utility_region = nassau_suffolk');
    ui.unmount();
  });
});
