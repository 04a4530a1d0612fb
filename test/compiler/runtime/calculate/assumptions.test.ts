import { describe, expect, test } from 'vitest';
import { type Assumption, AssumptionsRefused, calculate } from '../../../../compiler/runtime/calculate.js';
import { HouseholdError } from '../../../../compiler/runtime/household.js';
import { builtPackage, calc, loaded, PACKAGE_IDS, thrown } from '../../bundled.js';

// Every answer says what it assumed: each input a requested output read that the household did
// not give (absent, or null) took its package default, and is listed in `assumptions` (in the
// order first read) and named in one warning; a missing or invalid period is one too. With
// `assumptions: "refuse"` such an answer is an AssumptionsRefused error listing them instead.

/** The household of the issue: a Colorado screening with the facts a person has at hand. */
const SCREENING = { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 } } };

const inputs = (assumptions: Assumption[]) => assumptions.map((a) => (a.entity_id === 'household' ? a.input : `${a.input}@${a.entity_id}`));

describe('a Colorado screening household with one fact', () => {
  // 7 USC 2014(e) and 2017(a), FY 2026: one person, earned 1,200: standard deduction 209, earned
  // income deduction 20 % = 240, net 1,200 - 209 - 240 = 751; no shelter costs assumed; 30 % of
  // 751 = 225.30, rounded up to 226 (7 CFR 273.10(e)(2)(ii)(A)); 298 - 226 = 72. Gross 1,200 is
  // within Colorado's expanded categorical eligibility limit (10 CCR 2506-1 section 4.206).
  const result = calculate(loaded('us-co/co-snap'), { household: SCREENING });

  test('answers 72, and lists the facts it assumed: shelter, utilities, the time limit, each with the value used', () => {
    expect(result.outputs.snap_allotment).toBe(72);
    const listed = inputs(result.assumptions);
    for (const input of ['snap_shelter_costs', 'snap_pays_heating_or_cooling_separately', 'snap_other_utility_count', 'snap_pays_telephone', 'snap_unearned_income', 'snap_dependent_care_costs', 'snap_time_limit_exhausted@a']) {
      expect(listed).toContain(input);
    }
    expect(result.assumptions.find((a) => a.input === 'snap_shelter_costs')).toEqual({
      input: 'snap_shelter_costs',
      legal_id: 'us:statutes/7/2014/e#input.snap_shelter_costs',
      entity: 'Household',
      entity_id: 'household',
      value: 0,
      reason: 'not_given',
      field: 'household.entities.Household.household.snap_shelter_costs',
    });
    expect(result.assumptions.find((a) => a.input === 'snap_time_limit_exhausted')).toMatchObject({ entity: 'Person', entity_id: 'a', value: false, field: 'household.entities.Person.a.snap_time_limit_exhausted' });
  });

  test('never lists what it was given, by alias or by people', () => {
    const listed = inputs(result.assumptions);
    expect(listed).not.toContain('snap_earned_income');
    expect(listed).not.toContain('age@a');
    expect(listed).not.toContain('household_size'); // counted from people
    expect(listed).not.toContain('period');
  });

  test('one warning names how many inputs were assumed and which', () => {
    const warning = result.warnings.filter((w) => w.startsWith('assumed '));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain(`assumed ${result.assumptions.length} inputs`);
    for (const a of result.assumptions) expect(warning[0]).toContain(a.input);
  });

  test('with assumptions refused, the answer is an error listing the same facts; filling them in turn ends in an answer without any', () => {
    const pkg = loaded('us-co/co-snap');
    const household = structuredClone(SCREENING) as { period: string; facts: Record<string, unknown>; people: Record<string, unknown>; entities?: Record<string, Record<string, Record<string, unknown>>> };
    const err = thrown(() => calculate(pkg, { household }, { assumptions: 'refuse' }));
    expect(err).toBeInstanceOf(AssumptionsRefused);
    expect(err).toBeInstanceOf(HouseholdError);
    expect((err as AssumptionsRefused).assumptions).toEqual(result.assumptions);
    expect(err.message).toContain('snap_shelter_costs');
    let rounds = 0;
    for (;;) {
      let refused: AssumptionsRefused | undefined;
      try {
        const answer = calculate(pkg, { household }, { assumptions: 'refuse' });
        expect(answer.assumptions).toEqual([]);
        expect(answer.warnings).toEqual([]);
        break;
      } catch (e) {
        if (!(e instanceof AssumptionsRefused)) throw e;
        refused = e;
      }
      expect(++rounds).toBeLessThan(10);
      // answer each question where the assumption says it goes: a person with rent of 700 who pays for heating
      for (const a of refused.assumptions) {
        household.entities ??= {};
        const answer = a.input === 'snap_shelter_costs' ? 700 : a.input === 'snap_pays_heating_or_cooling_separately' ? true : a.value;
        ((household.entities[a.entity!] ??= {})[a.entity_id!] ??= {})[a.input] = answer;
      }
    }
    expect(rounds).toBeGreaterThanOrEqual(1);
  });
});

describe('what a short-circuit makes irrelevant is never read, so never assumed', () => {
  // Gross 5,200 for one person is far above both the federal gross limit (130 % of poverty, 1,696;
  // 7 CFR 273.9(a)(1)) and Colorado's expanded categorical eligibility limit (2,610): income
  // eligibility fails before any deduction is read.
  const failing = { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } };

  test('asking only for eligibility lists none of the deductions\' inputs', () => {
    const result = calculate(loaded('us-co/co-snap'), { household: failing, variables: ['snap_income_eligible'] });
    expect(result.outputs.snap_income_eligible).toBe(false);
    const listed = inputs(result.assumptions);
    for (const deduction of ['snap_shelter_costs', 'snap_dependent_care_costs', 'snap_elderly_or_disabled_medical_expenses', 'snap_pays_telephone', 'snap_other_utility_count', 'snap_pays_heating_or_cooling_separately']) {
      expect(listed).not.toContain(deduction);
    }
  });
});

describe('every bundled package', () => {
  test.each(PACKAGE_IDS)('%s: its own sample_request gives every input read, so assumes nothing', (id) => {
    const { pkg } = builtPackage(id);
    const result = calc(id, pkg.sample_request.household);
    expect(result.assumptions).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  test.each(PACKAGE_IDS)('%s: a household giving nothing but the period assumes every input it reads, in the order read', (id) => {
    const { pkg } = builtPackage(id);
    const sizeOnly = { period: pkg.default_period, facts: { household_size: 2 } };
    let result;
    try {
      result = calc(id, sizeOnly);
    } catch (err) {
      // a package that needs a text input with no default (New York's region) says which
      expect(err).toBeInstanceOf(HouseholdError);
      return;
    }
    const keys = result.assumptions.map((a) => `${a.input}@${a.entity_id}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const a of result.assumptions) {
      expect(a.reason).toBe('not_given');
      const input = pkg.entities.find((e) => e.entity === a.entity)!.inputs.find((i) => i.name === a.input)!;
      expect(input.default).toEqual(a.value);
    }
  });
});

describe('assumptions through the interpreter', () => {
  test('the reference engine lists the same assumptions in the same order', () => {
    const pkg = loaded('us-co/co-snap');
    const compiled = calculate(pkg, { household: SCREENING });
    const interpreted = calculate(pkg, { household: SCREENING }, { engine: 'interpreter' });
    expect(interpreted.assumptions).toEqual(compiled.assumptions);
  });
});

describe('assumptions are shared between answers', () => {
  test('the same assumption is one frozen object in every answer, so a reader of one answer cannot change the next', () => {
    const first = calculate(loaded('us-co/co-snap'), { household: SCREENING });
    const second = calculate(loaded('us-co/co-snap'), { household: SCREENING });
    const shelter = (r: typeof first) => r.assumptions.find((a) => a.input === 'snap_shelter_costs')!;
    expect(shelter(second)).toBe(shelter(first));
    expect(Object.isFrozen(shelter(first))).toBe(true);
    expect(() => {
      (shelter(first) as { value: unknown }).value = 5;
    }).toThrow(TypeError);
    expect(shelter(calculate(loaded('us-co/co-snap'), { household: SCREENING })).value).toBe(0);
  });
});

describe('shared assumptions do not grow with the clients’ entity ids', () => {
  test('past the kept limit, an assumption for a new person id is made for its answer alone (same content, not kept)', () => {
    const pkg = loaded('us-co/co-snap');
    const personAssumptions = (id: string) => calculate(pkg, { household: { period: '2026-03', facts: { earned_income: 1200 }, people: { [id]: { age: 35 } } } }).assumptions.filter((a) => a.entity_id === id);
    const first = personAssumptions('kept-person');
    expect(first.length).toBeGreaterThan(0);
    expect(personAssumptions('kept-person')[0]).toBe(first[0]); // kept: the same object
    // every new id adds its person's assumptions (the household's own are kept already) until the limit, 50,000, is reached
    for (let i = 0; i < Math.ceil(50_000 / first.length) + 10; i++) personAssumptions(`person-${i}`);
    const late = personAssumptions('late-person');
    const again = personAssumptions('late-person');
    expect(again).toEqual(late);
    expect(again[0]).not.toBe(late[0]); // not kept
    expect(personAssumptions('kept-person')[0]).toBe(first[0]); // what was kept stays
  }, 60_000);
});
