import { describe, expect, test } from 'vitest';
import { POLICYENGINE_DEPARTURES, type Departure } from '../../../cli/validate/departures.js';
import type { WireHousehold } from '../../../server/migration/wire.js';

// Each departure's counterfactual, on households small enough to check by hand: what it changes
// in the household (or recomputes from our values), and when it leaves a household alone.

const MONTH = '2026-01';
const departure = (id: string): Departure => POLICYENGINE_DEPARTURES.find((d) => d.id === id)!;
const year = (v: unknown) => ({ '2026': v });

function household(people: Record<string, Record<string, unknown>>, unit: Record<string, unknown> = {}, state = 'CO'): WireHousehold {
  const members = Object.keys(people);
  return {
    people: Object.fromEntries(Object.entries(people).map(([id, vars]) => [id, Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, year(v)]))])),
    spm_units: { spm: { members, ...Object.fromEntries(Object.entries(unit).map(([k, v]) => [k, year(v)])) } },
    households: { hh: { members, state_code: year(state) } },
  };
}

function applied(id: string, s: WireHousehold): { changed: boolean; situation: WireHousehold } {
  const cf = departure(id).counterfactual;
  if (cf.via !== 'household') throw new Error(`${id} recomputes`);
  const situation = structuredClone(s);
  return { changed: cf.apply(situation, MONTH), situation };
}

function recomputed(id: string, values: Record<string, unknown>, s: WireHousehold = household({ a: { age: 30 } })) {
  const cf = departure(id).counterfactual;
  if (cf.via !== 'recompute') throw new Error(`${id} changes the household`);
  return cf.apply(values, s, MONTH);
}

describe('benefit-not-rounded: max allotment - 0.3 x floor(net income), from our values', () => {
  test.each([
    // net 330.60: ours 1,789 - ceil(99.18) = 1,689; its 1,789 - 0.3 x 330 = 1,690.00 (the $1.00 gap)
    [1789, 330.6, 1689, 1690],
    // net 1,236.70: ours 1,183 - ceil(371.01) = 811; its 1,183 - 370.80 = 812.20 (the $1.20 gap)
    [1183, 1236.7, 811, 812.2],
    // net 2,081: ours 1,421 - ceil(624.30) = 796; its 1,421 - 624.30 = 796.70
    [1421, 2081, 796, 796.7],
  ])('max %d, net %d: ours %d, recomputed %d', (max, net, ours, theirs) => {
    expect(recomputed('benefit-not-rounded', { snap: ours, snap_max_allotment: max, snap_net_income: net })).toMatchObject({ snap: theirs });
  });

  test('nothing to recompute: no benefit, a whole 30 percent, or the minimum allotment that both keep', () => {
    expect(recomputed('benefit-not-rounded', { snap: 0, snap_max_allotment: 546, snap_net_income: 5000 })).toBeUndefined();
    expect(recomputed('benefit-not-rounded', { snap: 745, snap_max_allotment: 994, snap_net_income: 830 })).toBeUndefined(); // 994 - 0.3 x 830 = 745 either way
    // one person, net 1,000: 298 - 300 < 0, so the minimum 24 applies in both engines
    expect(recomputed('benefit-not-rounded', { snap: 24, snap_max_allotment: 298, snap_net_income: 1000 })).toBeUndefined();
  });
});

describe('negative-gross-income', () => {
  test('earned + unearned - child support paid, below 0, where our gross income stopped at 0', () => {
    const s = household({ a: { age: 28, child_support_expense: 1644 }, b: { age: 27 } });
    expect(recomputed('negative-gross-income', { snap_gross_income: 0, snap_earned_income: 0, snap_unearned_income: 0, snap_child_support_deduction: 0 }, s)).toMatchObject({ snap_gross_income: -137 });
    // deducted rather than excluded (New York, California), or income above the support: nothing to recompute
    expect(recomputed('negative-gross-income', { snap_gross_income: 0, snap_earned_income: 0, snap_unearned_income: 0, snap_child_support_deduction: 137 }, s)).toBeUndefined();
    expect(recomputed('negative-gross-income', { snap_gross_income: 63, snap_earned_income: 200, snap_unearned_income: 0, snap_child_support_deduction: 0 }, s)).toBeUndefined();
  });
});

describe('always-standard-utility-allowance', () => {
  test('a unit without a heating or cooling cost is given one; a unit with one is left alone', () => {
    const { changed, situation } = applied('always-standard-utility-allowance', household({ a: { age: 30 } }, { electricity_expense: 600 }));
    expect(changed).toBe(true);
    expect(situation.spm_units!.spm.heating_cooling_expense).toEqual({ [MONTH]: 1 });
    expect(applied('always-standard-utility-allowance', household({ a: { age: 30 } }, { heating_cooling_expense: 900 })).changed).toBe(false);
  });
});

describe('imputed-medicare-part-b-premium', () => {
  test('$202.90 a month for members 65 or older whose premium is not given', () => {
    const { changed, situation } = applied('imputed-medicare-part-b-premium', household({ a: { age: 70 }, b: { age: 66, medicare_part_b_premium: 0 }, c: { age: 64 } }));
    expect(changed).toBe(true);
    expect(situation.people!.a.medicare_part_b_premium).toEqual({ [MONTH]: 202.9 });
    expect(situation.people!.b.medicare_part_b_premium).toEqual(year(0));
    expect(situation.people!.c.medicare_part_b_premium).toBeUndefined();
  });
});

describe('time-limit-applied-at-once', () => {
  test('both non-working adults of a unit without children: marked, their amounts and the shelter costs gone', () => {
    const { changed, situation } = applied('time-limit-applied-at-once', household({ a: { age: 25, weekly_hours_worked_before_lsr: 8, employment_income: 4656 }, b: { age: 31 } }, { housing_cost: 22392 }));
    expect(changed).toBe(true);
    for (const id of ['a', 'b']) expect(situation.people![id].snap_time_limit_exhausted).toEqual({ [MONTH]: true });
    // k = n = 2: incomes at (2 - 2)/2 = 0, shelter costs at 0 (nobody remains)
    expect(situation.people!.a.employment_income).toEqual(year(0));
    expect(situation.spm_units!.spm.housing_cost).toEqual(year(0));
  });

  test('one of two removed: its income at 1/2, the shelter costs at 1 - 1/4, an age of 60 to 64 given as 59', () => {
    const { situation } = applied('time-limit-applied-at-once', household({ a: { age: 62, weekly_hours_worked_before_lsr: 10, employment_income: 12000, rent: 6000 }, b: { age: 40, weekly_hours_worked_before_lsr: 40, employment_income: 30000 } }, { mortgage_payments: 8000 }));
    expect(situation.people!.a).toMatchObject({ snap_time_limit_exhausted: { [MONTH]: true }, employment_income: year(6000), rent: year(3000), age: { [MONTH]: 59 } });
    expect(situation.people!.b).toEqual(household({ b: { age: 40, weekly_hours_worked_before_lsr: 40, employment_income: 30000 } }).people!.b);
    expect(situation.spm_units!.spm.mortgage_payments).toEqual(year(6000));
  });

  test.each([
    ['a child under 14 in the unit', household({ a: { age: 30 }, b: { age: 13 } })],
    ['20 hours of work a week', household({ a: { age: 30, weekly_hours_worked_before_lsr: 20 } })],
    ['a disability', household({ a: { age: 30, is_disabled: true } })],
    ['unemployment compensation', household({ a: { age: 30, unemployment_compensation: 3000 } })],
    ['an age of 65', household({ a: { age: 65 } })],
    ["California's waiver", household({ a: { age: 30 } }, {}, 'CA')],
  ])('nobody is removed with %s', (_why, s) => {
    expect(applied('time-limit-applied-at-once', s).changed).toBe(false);
  });

  test('the time limit is applied with our own input, which the wire format has no variable for', () => {
    const cf = departure('time-limit-applied-at-once').counterfactual;
    expect(cf.via === 'household' && cf.own_inputs).toEqual(['snap_time_limit_exhausted']);
  });
});
