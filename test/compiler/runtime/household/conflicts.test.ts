import { describe, expect, test } from 'vitest';
import { HouseholdError } from '../../../../compiler/runtime/household.js';
import { calc, thrown } from '../../bundled.js';

// One input, one value. Two names for one input in one object (an alias, the canonical name, the
// legal id) with different values are refused naming both; the same value twice is fine. Across
// conventions the specification's precedence holds (facts override entities, which override people
// and spm_units), with a warning naming both fields and the value used. Values a dtype makes
// meaningless are refused with the client's own field.

const PERIOD = '2026-01';
const refused = (household: unknown): HouseholdError => {
  const err = thrown(() => calc('us/snap', household));
  expect(err).toBeInstanceOf(HouseholdError);
  return err as HouseholdError;
};

describe('the same level: refused when the values differ', () => {
  test('an alias and its canonical name in facts', () => {
    const err = refused({ period: PERIOD, facts: { household_size: 1, earned_income: 100, snap_earned_income: 5000 } });
    expect(err.message).toContain('household.facts.earned_income (100)');
    expect(err.message).toContain('household.facts.snap_earned_income (5000)');
    // the other order is refused the same way, not answered by whichever key came last
    const swapped = refused({ period: PERIOD, facts: { household_size: 1, snap_earned_income: 5000, earned_income: 100 } });
    expect(swapped.message).toContain('household.facts.earned_income (100)');
  });

  test('a name and its legal id in facts', () => {
    const err = refused({ period: PERIOD, facts: { household_size: 1, snap_shelter_costs: 900, 'us:statutes/7/2014/e#input.snap_shelter_costs': 950 } });
    expect(err.message).toContain('household.facts.snap_shelter_costs (900)');
    expect(err.message).toContain('household.facts.us:statutes/7/2014/e#input.snap_shelter_costs (950)');
  });

  test("in one person's object", () => {
    const err = refused({ period: PERIOD, people: { a: { age: 30, 'us:statutes/7/2012/j#input.age': 70 } } });
    expect(err.message).toContain('household.people.a.age (30)');
    expect(err.message).toContain('household.people.a.us:statutes/7/2012/j#input.age (70)');
  });

  test('the same value twice is fine and says nothing', () => {
    const result = calc('us/snap', { period: PERIOD, facts: { household_size: 1, earned_income: 100, snap_earned_income: 100 } });
    expect(result.outputs.snap_gross_income).toBe(100);
    expect(result.warnings.filter((w) => w.includes('overrides'))).toEqual([]);
  });
});

describe('across levels: the precedence holds, and says so', () => {
  test('facts override entities, with a warning naming both fields and the value used', () => {
    const result = calc('us/snap', { period: PERIOD, facts: { household_size: 1, earned_income: 100 }, entities: { Household: { household: { snap_earned_income: 5000 } } } });
    expect(result.outputs.snap_gross_income).toBe(100);
    expect(result.warnings).toContain('household.facts.earned_income (100) overrides household.entities.Household.household.snap_earned_income (5000), the same input `snap_earned_income`: the calculation uses 100');
  });

  test('entities override people', () => {
    // a person of 30 in people and of 70 in entities: 70 is used, so the member is elderly
    const result = calc('us/snap', { period: PERIOD, facts: { household_size: 1 }, people: { a: { age: 30 } }, entities: { Person: { a: { age: 70 } } } }, ['snap_household_has_elderly_or_disabled_member']);
    expect(result.outputs.snap_household_has_elderly_or_disabled_member).toBe(true);
    expect(result.warnings).toContain('household.entities.Person.a.age (70) overrides household.people.a.age (30), the same input `age`: the calculation uses 70');
  });

  test('facts override spm_units', () => {
    const result = calc('us/snap', { period: PERIOD, spm_units: { u: { household_size: 1, snap_unearned_income: 50 } }, facts: { unearned_income: 60 } });
    expect(result.outputs.snap_gross_income).toBe(60);
    expect(result.warnings.some((w) => w.startsWith('household.facts.unearned_income (60) overrides household.spm_units.u.snap_unearned_income (50)'))).toBe(true);
  });
});

describe('values a dtype makes meaningless', () => {
  test.each([
    ['a negative age', { people: { a: { age: -5 } } }, 'household.people.a.age', 'must not be negative'],
    ['an age of a billion years', { people: { a: { age: 1e9 } } }, 'household.people.a.age', 'must be at most 130'],
    ['an age of a billion years given by legal id', { people: { a: { 'us:statutes/7/2012/j#input.age': 1e9 } } }, 'household.people.a.us:statutes/7/2012/j#input.age', 'must be at most 130'],
    ['a number too large to represent (JSON 1e309)', { facts: { household_size: 1, earned_income: Number.POSITIVE_INFINITY } }, 'household.facts.earned_income', 'a number too large to represent'],
  ])('%s is refused naming the field as sent', (_, household, field, why) => {
    const err = refused({ period: PERIOD, ...household });
    expect(err.field).toBe(field);
    expect(err.message).toContain(why);
    expect(err.message).not.toContain('got null');
  });

  test('a negative count is refused', () => {
    const err = thrown(() => calc('us-co/co-snap', { period: PERIOD, facts: { household_size: 1, other_utility_count: -1 } }));
    expect(err).toBeInstanceOf(HouseholdError);
    expect((err as HouseholdError).field).toBe('household.facts.other_utility_count');
    expect(err.message).toContain('must not be negative');
  });

  test('a message never names a field the client did not send', () => {
    const err = refused({ period: PERIOD, facts: { household_size: 1, earned_income: -1 } });
    expect(err.message).toContain('household.facts.earned_income');
    expect(err.message).not.toContain('snap_earned_income');
  });
});
