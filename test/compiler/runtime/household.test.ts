import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { calculate, OutputError } from '../../../compiler/runtime/calculate.js';
import { HouseholdError } from '../../../compiler/runtime/household.js';
import { builtPackage, buildWorkspace, calc, loadSerialized, thrown } from '../bundled.js';

// The household adapter conventions documented in compiler/runtime/household.ts, exercised
// through calculate() on the serialized federal (us/snap) and New York (us-ny/ny-snap) packages.
//
// FY 2026 amounts (48 states and DC): standard deduction 209 for 1-3 people, shelter cap 744,
// maximum allotments 298 (1), 546 (2), 785 (3), 994 (4); gross limits 1,696 (1), 2,888 (3);
// net limits 1,305 (1), 2,221 (3); medical threshold 35; elderly from age 60.

/** Warnings other than the ones every answer resting on defaults or the default period carries (tested in assumptions.test.ts). */
function unrelated(result: { warnings: string[] }): string[] {
  return result.warnings.filter((w) => !w.startsWith('assumed ') && !w.startsWith('household.period'));
}

/** The household error a calculation throws. */
function householdError(household: unknown, pkg: 'us/snap' | 'us-ny/ny-snap' = 'us/snap', variables?: string[]): HouseholdError {
  const err = thrown(() => calc(pkg, household, variables));
  expect(err).toBeInstanceOf(HouseholdError);
  return err as HouseholdError;
}

// Family of three (7 USC 2014(e) and 2017(a) tests): gross 1,500; 1,500 - 209 - 300 (20% of
// earnings) = 991; shelter 900 + 500 = 1,400, minus half of 991 (495.50) = 904.50, capped at
// 744; net 991 - 744 = 247 <= 2,221; 30% of 247 = 74.10, rounded up 75; 785 - 75 = 710.
const FAMILY_OF_THREE = { household_size: 3, snap_earned_income: 1500, snap_shelter_costs: 900, snap_utility_allowance: 500 };
const FAMILY_OF_THREE_RESULT = { snap_allotment: 710, snap_income_eligible: true, snap_net_income: 247, snap_gross_income: 1500 };

describe('facts', () => {
  test('by input name', () => {
    const result = calc('us/snap', { facts: FAMILY_OF_THREE });
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
    expect(unrelated(result)).toEqual([]);
  });

  test('by household alias (`size`, `earned_income`, …)', () => {
    const aliases = builtPackage('us/snap').pkg.household_aliases;
    expect(aliases).toMatchObject({ size: 'household_size', earned_income: 'snap_earned_income', shelter_costs: 'snap_shelter_costs', utility_allowance: 'snap_utility_allowance' });
    const result = calc('us/snap', { facts: { size: 3, earned_income: 1500, shelter_costs: 900, utility_allowance: 500 } });
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
  });

  test('by legal id (`<module>#input.<name>`)', () => {
    const sizeId = builtPackage('us/snap').pkg.entities[0].inputs.find((i) => i.name === 'household_size')!.legal_id;
    const result = calc('us/snap', {
      facts: {
        [sizeId]: 3,
        'us:statutes/7/2014/e#input.snap_earned_income': 1500,
        'us:statutes/7/2014/e#input.snap_shelter_costs': 900,
        'us:statutes/7/2014/e#input.snap_utility_allowance': 500,
      },
    });
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
  });

  test('names, aliases and legal ids mix in one household', () => {
    const result = calc('us/snap', { facts: { size: 3, snap_earned_income: 1500, 'us:statutes/7/2014/e#input.snap_shelter_costs': 900, utility_allowance: 500 } });
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
  });

  test('numeric text is read as a number, with a warning naming the field', () => {
    const result = calc('us/snap', { facts: { ...FAMILY_OF_THREE, snap_earned_income: '1500.00' } });
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
    expect(unrelated(result)).toEqual(['household.facts.snap_earned_income: the number was given as text ("1500.00"); read as 1500']);
  });
});

describe('spm_units', () => {
  // Single adult (7 USC 2014(e) tests): unearned 1,000; 1,000 - 209 = 791; shelter 400 - 395.50
  // = 4.50; net 786.50; 30% = 235.95 -> 236; 298 - 236 = 62.
  const single = { household_size: 1, snap_unearned_income: 1000, snap_shelter_costs: 400 };

  test('the first unit feeds the main entity like facts', () => {
    const result = calc('us/snap', { spm_units: { unit_a: single } });
    expect(result.outputs).toMatchObject({ snap_net_income: 786.5, snap_allotment: 62 });
    expect(unrelated(result)).toEqual([]);
  });

  test('a second unit is ignored, with a warning naming it', () => {
    // were the second unit used, a household of 5 with no income would get 1,183
    const result = calc('us/snap', { spm_units: { unit_a: single, unit_b: { household_size: 5, snap_unearned_income: 0 } } });
    expect(result.outputs).toMatchObject({ snap_net_income: 786.5, snap_allotment: 62 });
    expect(unrelated(result)).toHaveLength(1);
    expect(unrelated(result)[0]).toContain('household.spm_units');
    expect(unrelated(result)[0]).toContain('unit_b');
  });

  test('a unit that is not an object is an error naming it', () => {
    expect(householdError({ spm_units: { unit_a: 3 } }).field).toBe('household.spm_units.unit_a');
    expect(householdError({ spm_units: [single] }).field).toBe('household.spm_units');
  });
});

describe('people', () => {
  const household = (ages: number[]) => ({
    facts: { snap_earned_income: 1500, snap_shelter_costs: 900, snap_utility_allowance: 500 },
    people: Object.fromEntries(ages.map((age, i) => [`p${i + 1}`, { age }])),
  });

  test('household_size defaults to the number of people', () => {
    // two people, no income: maximum allotment for 2 = 546, standard deduction 209
    const result = calc('us/snap', { people: { a: { age: 30 }, b: { age: 40 } } }, ['snap_allotment', 'snap_maximum_allotment', 'snap_standard_deduction']);
    expect(result.outputs).toEqual({ snap_allotment: 546, snap_maximum_allotment: 546, snap_standard_deduction: 209 });
    // three people and the family's figures: the family-of-three result
    expect(calc('us/snap', household([34, 31, 6])).outputs).toEqual(FAMILY_OF_THREE_RESULT);
  });

  test('an explicit household_size wins over the number of people', () => {
    // four people by size, one listed: maximum allotment for 4 = 994
    expect(calc('us/snap', { facts: { household_size: 4 }, people: { a: { age: 30 } } }).outputs.snap_allotment).toBe(994);
  });

  test('a member aged 60 or over makes the household elderly: the shelter cap no longer applies', () => {
    // same family, one member 60: excess shelter 904.50 uncapped; net 991 - 904.50 = 86.50;
    // 30% = 25.95 -> 26; 785 - 26 = 759 (instead of 710)
    const elderly = calc('us/snap', household([34, 60, 6]), ['snap_household_has_elderly_or_disabled_member', 'snap_excess_shelter_deduction', 'snap_net_income', 'snap_allotment']);
    expect(elderly.outputs).toEqual({ snap_household_has_elderly_or_disabled_member: true, snap_excess_shelter_deduction: 904.5, snap_net_income: 86.5, snap_allotment: 759 });
    // 59 is not elderly: the cap applies
    const younger = calc('us/snap', household([34, 59, 6]), ['snap_household_has_elderly_or_disabled_member', 'snap_excess_shelter_deduction', 'snap_allotment']);
    expect(younger.outputs).toEqual({ snap_household_has_elderly_or_disabled_member: false, snap_excess_shelter_deduction: 744, snap_allotment: 710 });
  });

  test('person inputs take aliases and legal ids too', () => {
    // a disabled 40-year-old is as good as an elderly member: 759
    const byAlias = calc('us/snap', { facts: FAMILY_OF_THREE, people: { a: { age: 40, member_is_disabled: true }, b: { age: 10 }, c: { age: 8 } } });
    expect(byAlias.outputs.snap_allotment).toBe(759);
    const byId = calc('us/snap', { facts: FAMILY_OF_THREE, people: { a: { 'us:statutes/7/2012/j#input.age': 70 } } });
    expect(byId.outputs.snap_allotment).toBe(759);
  });

  test('a person without `age` is an error naming household.people.<id>.age', () => {
    const err = householdError({ facts: FAMILY_OF_THREE, people: { p1: { age: 30 }, p2: { snap_member_is_disabled: false } } });
    expect(err.field).toBe('household.people.p2.age');
    expect(err.message).toContain('age');
  });

  test('people that is not an object, or a person that is not an object, is an error naming it', () => {
    expect(householdError({ people: [{ age: 30 }] }).field).toBe('household.people');
    expect(householdError({ people: { p1: 30 } }).field).toBe('household.people.p1');
  });

  test('an unknown person input is an error naming it', () => {
    expect(householdError({ facts: FAMILY_OF_THREE, people: { p1: { age: 30, height: 180 } } }).field).toBe('household.people.p1.height');
  });
});

describe('period', () => {
  const household = { facts: FAMILY_OF_THREE };

  test('without a period, the package default period 2026-01 is used, and said to be assumed', () => {
    expect(builtPackage('us/snap').pkg.default_period).toBe('2026-01');
    const result = calc('us/snap', household);
    expect(result.period).toBe('2026-01');
    expect(result.warnings).toContain("household.period is not given; assumed the package's default period 2026-01");
    expect(result.assumptions[0]).toEqual({ input: 'period', legal_id: null, entity: null, entity_id: null, value: '2026-01', reason: 'not_given', field: 'household.period' });
  });

  test('a valid YYYY-MM is used', () => {
    // November 2025 is in FY 2026: the same amounts apply
    const result = calc('us/snap', { ...household, period: '2025-11' });
    expect(result.period).toBe('2025-11');
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
    expect(unrelated(result)).toEqual([]);
    expect(result.assumptions.map((a) => a.input)).not.toContain('period');
  });

  test.each([['2026-13'], ['2026-1'], ['January 2026'], [202601]])('%j falls back to 2026-01 with a warning and an assumption', (period) => {
    const result = calc('us/snap', { ...household, period });
    expect(result.period).toBe('2026-01');
    expect(result.outputs).toEqual(FAMILY_OF_THREE_RESULT);
    const about = result.warnings.filter((w) => w.includes('household.period'));
    expect(about).toHaveLength(1);
    expect(about[0]).toContain(JSON.stringify(period));
    expect(about[0]).toContain('2026-01');
    expect(result.assumptions[0]).toMatchObject({ input: 'period', value: '2026-01', reason: 'invalid', field: 'household.period' });
  });
});

describe('period outside the encodings', () => {
  test('a valid month before FY 2026 is a HouseholdError naming household.period, not an engine failure', () => {
    // 2020-01 is a well-formed month, but no FY 2026 table has a value in effect then: a
    // problem of the request, not an engine failure
    const err = thrown(() => calc('us/snap', { period: '2020-01', facts: FAMILY_OF_THREE }));
    expect(err).toBeInstanceOf(HouseholdError);
    expect((err as HouseholdError).field).toBe('household.period');
  });
});

describe('entities', () => {
  // Elderly single (7 USC 2014(e) tests): unearned 1,200, medical 100 - 35 = 65;
  // 1,200 - 209 - 65 = 926; shelter 1,500 - 463 = 1,037 uncapped; net 0; allotment 298.
  const main = { household_size: 1, snap_unearned_income: 1200, snap_elderly_or_disabled_medical_expenses: 100, snap_shelter_costs: 1500 };

  test('{Household: {household: …}} and {Person: {p1: {age: 70}}} set inputs directly', () => {
    const result = calc('us/snap', { entities: { Household: { household: main }, Person: { p1: { age: 70 } } } }, ['snap_medical_deduction', 'snap_excess_shelter_deduction', 'snap_net_income', 'snap_allotment']);
    expect(result.outputs).toEqual({ snap_medical_deduction: 65, snap_excess_shelter_deduction: 1037, snap_net_income: 0, snap_allotment: 298 });
  });

  test('without the elderly person the same household is capped', () => {
    // no medical deduction: 1,200 - 209 = 991; shelter 1,500 - 495.50 = 1,004.50, capped at 744;
    // net 247; 30% -> 75; 298 - 75 = 223
    const result = calc('us/snap', { entities: { Household: { household: main } } }, ['snap_medical_deduction', 'snap_net_income', 'snap_allotment']);
    expect(result.outputs).toEqual({ snap_medical_deduction: 0, snap_net_income: 247, snap_allotment: 223 });
  });

  test('an unknown entity is an error naming it', () => {
    expect(householdError({ facts: main, entities: { Pet: { rex: { age: 3 } } } }).field).toBe('household.entities.Pet');
  });

  test('a main-entity id other than `household` is an error naming it', () => {
    const err = householdError({ entities: { Household: { home: main } } });
    expect(err.field).toBe('household.entities.Household.home');
    expect(err.message).toContain('`household`');
  });

  test('an unknown input of an entity is an error naming it', () => {
    expect(householdError({ entities: { Household: { household: { ...main, rent: 5 } } } }).field).toBe('household.entities.Household.household.rent');
  });

  test('a Person given only in entities is a member: it counts as household size and its age matters', () => {
    const result = calc('us/snap', { entities: { Household: { household: { snap_unearned_income: 1200, snap_elderly_or_disabled_medical_expenses: 100, snap_shelter_costs: 1500 } }, Person: { 'person-1': { age: 70 } } } }, ['snap_allotment']);
    expect(result.outputs.snap_allotment).toBe(298);
    expect(unrelated(result)).toEqual([]);
  });
});

describe('relations', () => {
  // the capped single household of the entities tests (allotment 223), made elderly (298) by p9
  const facts = { household_size: 1, snap_unearned_income: 1200, snap_elderly_or_disabled_medical_expenses: 100, snap_shelter_costs: 1500 };

  test('explicit tuples with entities.Person inputs count as members', () => {
    const result = calc('us/snap', { facts, entities: { Person: { p9: { age: 70 } } }, relations: { member_of_household: [['p9', 'household']] } });
    expect(result.outputs.snap_allotment).toBe(298);
  });

  test('the relation may be named by its legal id', () => {
    const result = calc('us/snap', { facts, entities: { Person: { p9: { age: 70 } } }, relations: { 'us:statutes/7/2012/j#relation.member_of_household': [['p9', 'household']] } });
    expect(result.outputs.snap_allotment).toBe(298);
  });

  test.each([
    ['a one-element tuple', { member_of_household: [['p9']] }, 'household.relations.member_of_household[0]'],
    ['a three-element tuple', { member_of_household: [['p9', 'household', 'x']] }, 'household.relations.member_of_household[0]'],
    ['a number in a tuple', { member_of_household: [['p9', 'household'], ['p8', 7]] }, 'household.relations.member_of_household[1]'],
    ['a tuple that is a string', { member_of_household: ['p9'] }, 'household.relations.member_of_household[0]'],
    ['a list that is not a list', { member_of_household: 'p9' }, 'household.relations.member_of_household'],
    ['an unknown relation', { lives_with: [['p9', 'household']] }, 'household.relations.lives_with'],
  ])('%s is an error naming it', (_, relations, field) => {
    expect(householdError({ facts, entities: { Person: { p9: { age: 70 } } }, relations }).field).toBe(field);
  });

  test('relations that is not an object is an error', () => {
    expect(householdError({ facts, relations: [['p9', 'household']] }).field).toBe('household.relations');
  });

  test('a member known only from a tuple, missing its inputs, is an error naming a field where the input can be given', () => {
    // p9 is a member (the tuple) but nobody gave its inputs: the field must be one the caller
    // can fill in (an earlier version answered `household.entities.?.p9.age`). Eligibility reads
    // the unit size first, so the first input missing is p9's time-limit status, else its age.
    const err = householdError({ facts, relations: { member_of_household: [['p9', 'household']] } });
    expect(err.field).toMatch(/^household\.(people|entities\.Person)\.p9\.(age|snap_time_limit_exhausted)$/);
  });
});

describe('defaults', () => {
  test('omitted inputs take the package defaults: household_size alone computes', () => {
    // one person, no income, no costs: the maximum allotment 298; not categorically eligible
    // but 0 passes both income tests
    const result = calc('us/snap', { facts: { household_size: 1 } });
    expect(result.outputs).toEqual({ snap_allotment: 298, snap_income_eligible: true, snap_net_income: 0, snap_gross_income: 0 });
    expect(unrelated(result)).toEqual([]);
    expect(result.assumptions.map((a) => a.input)).toEqual(expect.arrayContaining(['snap_earned_income', 'snap_unearned_income', 'snap_shelter_costs']));
  });

  test('an explicit null takes the default, and is an assumption', () => {
    const result = calc('us/snap', { facts: { household_size: 1, snap_earned_income: null } });
    expect(result.outputs.snap_gross_income).toBe(0);
    expect(result.assumptions).toContainEqual(expect.objectContaining({ input: 'snap_earned_income', value: 0, reason: 'null' }));
  });

  test('every input with a default is not required, and every required input has no default', () => {
    for (const entity of builtPackage('us/snap').pkg.entities) {
      for (const input of entity.inputs) expect(input.required, `${entity.entity}.${input.name}`).toBe(input.default === undefined);
    }
  });
});

describe('invalid households', () => {
  test('no household size (no facts, no people) is an error naming household.facts.household_size', () => {
    const err = householdError({});
    expect(err.field).toBe('household.facts.household_size');
    expect(err.message).toContain('household_size');
    expect(householdError({ facts: { snap_earned_income: 100 } }).field).toBe('household.facts.household_size');
  });

  test('negative income is an error naming the field as given', () => {
    const err = householdError({ facts: { household_size: 1, snap_earned_income: -5 } });
    expect(err.field).toBe('household.facts.snap_earned_income');
    expect(err.message).toContain('negative');
    expect(householdError({ facts: { household_size: 1, unearned_income: -0.01 } }).field).toBe('household.facts.unearned_income');
  });

  test('a negative household size is an error', () => {
    expect(householdError({ facts: { household_size: -1 } }).field).toBe('household.facts.household_size');
  });

  test('a household size of 0 is a HouseholdError naming it, not an engine failure', () => {
    // the size tables start at 1, so 0 is rejected by the adapter like a negative size
    expect(householdError({ facts: { household_size: 0 } }).field).toBe('household.facts.household_size');
  });

  test('a misspelled top-level key is not silently ignored', () => {
    // `peopel` instead of `people`: the member aged 70 is dropped without a word and the
    // allotment silently changes from 759 to 710
    let result: ReturnType<typeof calc> | undefined;
    let error: unknown;
    try {
      result = calc('us/snap', { facts: FAMILY_OF_THREE, peopel: { a: { age: 70 } } });
    } catch (err) {
      error = err;
    }
    if (error) expect((error as HouseholdError).field).toBe('household.peopel');
    else expect(result!.warnings.join('\n')).toContain('peopel');
  });

  test('a fractional household size is an error', () => {
    expect(householdError({ facts: { household_size: 2.5 } }).field).toBe('household.facts.household_size');
  });

  test('a string where a number is expected is an error naming the field', () => {
    const err = householdError({ facts: { household_size: 1, snap_shelter_costs: 'nine hundred' } });
    expect(err.field).toBe('household.facts.snap_shelter_costs');
    expect(err.message).toContain('number');
  });

  test('a number where a boolean is expected is an error naming the field', () => {
    const err = householdError({ facts: { household_size: 1, snap_categorically_eligible: 1 } });
    expect(err.field).toBe('household.facts.snap_categorically_eligible');
    expect(err.message).toContain('true or false');
    expect(householdError({ facts: FAMILY_OF_THREE, people: { a: { age: 30, snap_member_is_disabled: 'yes' } } }).field).toBe('household.people.a.snap_member_is_disabled');
  });

  test('an unknown input name is an error naming the field, with a "did you mean" when it is a near miss', () => {
    const err = householdError({ facts: { household_size: 1, snap_earned_incom: 100 } });
    expect(err.field).toBe('household.facts.snap_earned_incom');
    expect(err.message).toContain('did you mean `snap_earned_income`');
    const far = householdError({ facts: { household_size: 1, zzz: 1 } });
    expect(far.field).toBe('household.facts.zzz');
    expect(far.message).not.toContain('did you mean');
  });

  test('a one-letter typo inside an input name gets a "did you mean"', () => {
    // `snap_earnd_income` is one letter away from snap_earned_income, but the suggestion only
    // looks for substrings
    const err = householdError({ facts: { household_size: 1, snap_earnd_income: 100 } });
    expect(err.message).toContain('did you mean `snap_earned_income`');
  });

  test('a New York region outside its allowed values is an error naming the field and the allowed values', () => {
    const err = householdError({ facts: { household_size: 1, ny_snap_utility_region: 'brooklyn', snap_other_utility_count: 1 } }, 'us-ny/ny-snap');
    expect(err.field).toBe('household.facts.ny_snap_utility_region');
    for (const v of ['new_york_city', 'nassau_suffolk', 'rest_of_state', 'brooklyn']) expect(err.message).toContain(v);
  });

  test('a New York household that needs a region and gives none is an error naming the region', () => {
    // one separately billed utility: the utilities allowance depends on the region
    expect(householdError({ facts: { household_size: 1, snap_other_utility_count: 1 } }, 'us-ny/ny-snap').field).toBe('household.facts.ny_snap_utility_region');
  });

  test('New York computes the utility allowance: giving it is an unknown input', () => {
    expect(householdError({ facts: { household_size: 1, snap_utility_allowance: 500 } }, 'us-ny/ny-snap').field).toBe('household.facts.snap_utility_allowance');
  });

  test.each([['a string', 'household'], ['an array', []], ['null', null], ['a number', 3]])('a household that is %s is an error naming `household`', (_, household) => {
    expect(householdError(household).field).toBe('household');
  });

  test.each([['facts', 'household.facts'], ['entities', 'household.entities']])('%s that is not an object is an error naming it', (key, field) => {
    expect(householdError({ [key]: ['x'] }).field).toBe(field);
  });

  test('the error message starts with the field', () => {
    const err = householdError({ facts: { household_size: 1, snap_earned_income: -5 } });
    expect(err.message.startsWith(`${err.field}: `)).toBe(true);
    expect(err.name).toBe('HouseholdError');
  });
});

describe('outputs on other entities', () => {
  test('a person-level output is computed per person, keyed by person id', () => {
    // snap_member_is_elderly_or_disabled is a Person rule: it is evaluated for each person, never
    // on the main entity id (which has no age)
    const result = calc('us/snap', { facts: FAMILY_OF_THREE, people: { a: { age: 70 }, b: { age: 30 } } }, ['snap_allotment', 'snap_member_is_elderly_or_disabled']);
    expect(result.outputs.snap_member_is_elderly_or_disabled).toEqual({ a: true, b: false });
    expect(typeof result.outputs.snap_allotment).toBe('number');
  });
});

describe('trace', () => {
  const { pkg, graph } = builtPackage('us/snap');
  const result = calc('us/snap', { facts: FAMILY_OF_THREE, people: { a: { age: 34 }, b: { age: 31 }, c: { age: 6 } } });

  test('every entry has rule_id, variable, value and entity', () => {
    expect(result.trace.length).toBeGreaterThan(0);
    for (const entry of result.trace) {
      expect(entry.rule_id).toMatch(/^[a-z-]+:[^#]+#[a-z0-9_]+$/);
      expect(entry.rule_id.endsWith(`#${entry.variable}`)).toBe(true);
      expect(entry.value).not.toBeUndefined();
      expect(typeof entry.entity).toBe('string');
    }
  });

  test('entries of rules that declare a source carry it, with its URL', () => {
    for (const entry of result.trace) {
      const rule = graph.rules.find((r) => r.legalId === entry.rule_id);
      expect(rule, entry.rule_id).toBeDefined();
      if (rule!.source) {
        expect(entry.sources, entry.rule_id).toContain(rule!.source);
        if (rule!.sourceUrl) expect(entry.sources, entry.rule_id).toContain(rule!.sourceUrl);
      }
      // every rule of the federal encodings declares a source
      expect(entry.sources.length, entry.rule_id).toBeGreaterThan(0);
    }
  });

  test("the trace includes the requested outputs' rules, with the values reported", () => {
    for (const name of pkg.default_outputs) {
      const id = pkg.outputs.find((o) => o.name === name && !o.alias_for)!.legal_id;
      const entry = result.trace.find((e) => e.rule_id === id && e.entity === 'household');
      expect(entry, name).toBeDefined();
      expect(entry!.value, name).toEqual(result.outputs[name]);
    }
  });

  test('member-level rules are traced per person', () => {
    const members = result.trace.filter((e) => e.variable === 'snap_member_is_elderly_or_disabled');
    expect(members.map((e) => e.entity).sort()).toEqual(['a', 'b', 'c']);
    expect(members.every((e) => e.value === false)).toBe(true);
  });

  test('values in the trace match the hand computation', () => {
    const value = (name: string) => result.trace.find((e) => e.variable === name)?.value;
    expect(value('snap_income_after_non_shelter_deductions')).toBe(991);
    expect(value('snap_excess_shelter_costs')).toBe(904.5);
    expect(value('snap_excess_shelter_deduction')).toBe(744);
    expect(value('snap_expected_food_contribution')).toBe(75);
  });
});

/** A package built from one module of our own (`us/policies/<name>.yaml`) and a program spec
 *  with `outputs`; built on first use, the folder removed after the file. */
function ownPackage(name: string, module: string, outputs: string[]): () => ReturnType<typeof loadSerialized> {
  const dir = mkdtempSync(path.join(tmpdir(), `rules-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'us/policies'), { recursive: true });
  writeFileSync(path.join(dir, `us/policies/${name}.yaml`), module);
  mkdirSync(path.join(dir, `programs/us/${name}`), { recursive: true });
  writeFileSync(path.join(dir, `programs/us/${name}/2026.yaml`), `program: us/${name}\nperiod: 2026-01\noutputs: [${outputs.join(', ')}]\nscope:\n  federal: [policies/${name}]\n`);
  let built: ReturnType<typeof buildWorkspace> | undefined;
  return () => {
    built ??= buildWorkspace(dir);
    expect(built.failures).toEqual([]);
    return loadSerialized(built.packages[0].pkg);
  };
}

describe('entities no relation links to the household', () => {
  // A Household benefit reading an input declared on Asset (inputs label values; they do not
  // partition evaluation, so the Asset input is read where the Household is), and a Pet whose
  // only relation links it to a Kennel.
  const pkg = ownPackage(
    'benefit',
    `format: rulespec/v1
inputs:
  - {name: asset_value, entity: Asset, dtype: Money, default: 0}
  - {name: pet_weight, entity: Pet, dtype: Decimal, default: 0}
rules:
  - name: benefit
    kind: derived
    entity: Household
    dtype: Money
    period: Month
    versions:
      - effective_from: '2026-01-01'
        formula: income * 2 + asset_value
  - name: pet_of
    kind: data_relation
    data_relation: {arity: 2, arguments: [Pet, Kennel]}
  - name: pet_is_heavy
    kind: derived
    entity: Pet
    dtype: Judgment
    period: Month
    versions:
      - effective_from: '2026-01-01'
        formula: pet_weight > 10
`,
    ['benefit'],
  );

  test('an entity that only labels inputs has the household\'s id, and the sample gives its inputs there', () => {
    const { entities, sample_request } = pkg().pkg;
    expect(entities.find((e) => e.entity === 'Asset')).toMatchObject({ id_template: 'household', count: 1 });
    expect(sample_request.household).toMatchObject({ entities: { Household: { household: { income: 0 } }, Asset: { household: { asset_value: 0 } } } });
  });

  test('its inputs count, and take their defaults when omitted', () => {
    const given = calculate(pkg(), { household: { period: '2026-01', facts: { income: 10 }, entities: { Asset: { household: { asset_value: 5 } } } } });
    expect(given).toMatchObject({ outputs: { benefit: 25 }, warnings: [], assumptions: [] });
    const omitted = calculate(pkg(), { household: { period: '2026-01', facts: { income: 10 } } });
    expect(omitted).toMatchObject({ outputs: { benefit: 20 }, assumptions: [{ input: 'asset_value', entity: 'Asset', entity_id: 'household', value: 0, reason: 'not_given' }] });
  });

  test('its inputs and the household\'s reach the household\'s id in either order (the id\'s columns widen to both)', () => {
    // 10 * 2 + 5 = 25 whichever entity the household's id is given for first
    for (const entities of [{ Asset: { household: { asset_value: 5 } }, Household: { household: { income: 10 } } }, { Household: { household: { income: 10 } }, Asset: { household: { asset_value: 5 } } }]) {
      expect(calculate(pkg(), { household: { period: '2026-01', entities } })).toMatchObject({ outputs: { benefit: 25 }, warnings: [], assumptions: [] });
    }
  });

  test('another id for it is an error naming the field and the id to use', () => {
    const err = thrown(() => calculate(pkg(), { household: { facts: { income: 10 }, entities: { Asset: { 'asset-1': { asset_value: 5 } } } } }));
    expect(err).toBeInstanceOf(HouseholdError);
    expect((err as HouseholdError).field).toBe('household.entities.Asset.asset-1');
    expect(err.message).toContain('the Asset id is `household`');
  });

  test('an instance no tuple links to the household reaches no output: a warning names it', () => {
    const result = calculate(pkg(), { household: { facts: { income: 10 }, entities: { Pet: { rex: { pet_weight: 20 } } } } });
    expect(result.outputs.benefit).toBe(20);
    expect(unrelated(result)).toEqual([expect.stringContaining('household.entities: Pet `rex` is linked to the Household (`household`) by no relation, so its inputs reach no output')]);
  });
});

describe('input dtypes, however an encoding spells them', () => {
  // One decoding (compiler/dtypes.ts): `Count` is a whole number, `BOOL` and `bool` a boolean,
  // `STRING` text, whatever the case.
  const pkg = ownPackage(
    'credit',
    `format: rulespec/v1
inputs:
  - {name: children, entity: Household, dtype: Count, default: 0}
  - {name: is_renting, entity: Household, dtype: BOOL, default: false}
  - {name: county, entity: Household, dtype: STRING, default: ''}
rules:
  - name: credit
    kind: derived
    entity: Household
    dtype: Money
    period: Month
    versions:
      - effective_from: '2026-01-01'
        formula: "if is_renting and county == 'Kings': children * 100 else: 0"
`,
    ['credit'],
  );
  const error = (facts: Record<string, unknown>) => thrown(() => calculate(pkg(), { household: { facts } }));

  test('are read as what they mean', () => {
    expect(calculate(pkg(), { household: { facts: { children: 2, is_renting: true, county: 'Kings' } } }).outputs).toEqual({ credit: 200 });
  });

  test('refuse values of another kind, naming the dtype as written', () => {
    expect(error({ children: 2.5 }).message).toMatch(/children.*must be a whole number \(children is Count\)/);
    expect(error({ is_renting: 'yes' }).message).toMatch(/is_renting.*must be true or false \(is_renting is BOOL\)/);
    expect(error({ county: 7 }).message).toMatch(/county.*must be text \(county is STRING\)/);
  });
});
