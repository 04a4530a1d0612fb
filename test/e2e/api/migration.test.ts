import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCalculation } from '../../../server/calculation.js';
import { mappingIndex } from '../../../server/migration/package-mapping.js';
import { POLICYENGINE_US_SNAP } from '../../../server/migration/policyengine-us-snap.js';
import { runMigration, toMigrationError } from '../../../server/migration/run.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import { HAVE_CORPUS } from '../../support/paths.js';
import { SNAP_STATES, snapCorpusOutput } from '../../support/corpus.js';
import { auth, bundledOutput, KEYS, testApp, type TestApp } from '../../support/app.js';

// POST /v1/household/us/calculate: PolicyEngine-US households through the mapping tables onto
// our state SNAP packages. Each mapping is checked against a hand-derived benefit or against
// /v1/calculate given the same facts in our own conventions; inputs the tables do not use
// must come back in sidecar.ignored_inputs.

type Vars = Record<string, unknown>;
const year = (v: unknown) => ({ '2026': v });

/** A one-unit PolicyEngine-US household: people, SPM unit variables, household variables. */
function situation(people: Record<string, Vars>, unit: Vars, household: Vars, ask: Record<string, string[]> = { snap: ['2026-01'] }) {
  const members = Object.keys(people);
  const asks = Object.fromEntries(Object.entries(ask).map(([v, periods]) => [v, Object.fromEntries(periods.map((p) => [p, null]))]));
  return {
    household: {
      people: Object.fromEntries(Object.entries(people).map(([id, vars]) => [id, Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, year(v)]))])),
      spm_units: { spm: { members, ...Object.fromEntries(Object.entries(unit).map(([k, v]) => [k, year(v)])), ...asks } },
      tax_units: { tax: { members } },
      households: { hh: { members, ...Object.fromEntries(Object.entries(household).map(([k, v]) => [k, year(v)])) } },
    },
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.app.close();
});

async function migrate(body: unknown, key = KEYS.all) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/household/us/calculate', headers: auth(key), payload: body as object });
  return { status: res.statusCode, body: res.json() };
}

async function native(jurisdiction: string, household: Vars, variables = ['snap_allotment']) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.all), payload: { program_id: `${jurisdiction.slice(3)}-snap`, jurisdiction, household, variables } });
  expect(res.statusCode).toBe(200);
  return res.json().data.outputs as Vars;
}

const snapOf = (body: { result: { spm_units: { spm: { snap: Record<string, unknown> } } } }, period = '2026-01') => body.result.spm_units.spm.snap[period];
const ignored = (body: { sidecar: { ignored_inputs: { variable: string; reason: string }[] } }) => Object.fromEntries(body.sidecar.ignored_inputs.map((i) => [i.variable, i.reason]));

describe('a hand-derived Colorado household', () => {
  // 10 CCR 2506-1 4.407.31 and 7 USC 2014/2017, FY 2026: earned 14,400 / 12 = 1,200; gross 1,200
  // <= 2,610 (expanded categorical eligibility). 1,200 - 209 - 240 = 751. Shelter: rent
  // 8,400 / 12 = 700 + heating and cooling allowance 594 = 1,294 - 375.50 = 918.50, capped at
  // 744. Net 7; 30% = 2.10, rounded up to 3; 298 - 3 = 295 a month, 3,540 a year.
  const body = situation({ adult: { age: 35, employment_income: 14_400, rent: 8_400, ssi: 0 } }, { heating_cooling_expense: 600, tanf: 0 }, { state_code: 'CO' }, { snap: ['2026-01', '2026'] });

  test('monthly and yearly period keys', async () => {
    const { status, body: out } = await migrate(body);
    expect(status).toBe(200);
    expect(out.status).toBe('ok');
    expect(snapOf(out)).toBe(295);
    expect(snapOf(out, '2026')).toBe(3540);
    expect(out.sidecar.computed).toEqual(
      expect.arrayContaining([
        { entity_group: 'spm_units', entity_id: 'spm', variable: 'snap', period: '2026-01', value: 295, rule: 'us:statutes/7/2017/a#snap_allotment' },
        { entity_group: 'spm_units', entity_id: 'spm', variable: 'snap', period: '2026', value: 3540, rule: 'us:statutes/7/2017/a#snap_allotment' },
      ]),
    );
    expect(out.sidecar.package).toEqual({ program_id: 'co-snap', jurisdiction: 'us-co' });
    expect(out.sidecar.ignored_inputs).toEqual([]);
    expect(out.message).toBeNull();
  });

  test('package inputs nothing in the household fed are assumed_inputs, with the variables that would have fed them', async () => {
    const { body: out } = await migrate(body);
    const assumed = out.sidecar.assumed_inputs as { spm_unit: string; period: string; input: string; value: unknown; fed_by: string[] }[];
    // the household gives no childcare and no disability payments: their inputs took the defaults
    const care = assumed.find((a) => a.input === 'snap_dependent_care_costs');
    const disabled = assumed.find((a) => a.input === 'snap_receives_disability_payments');
    expect(care).toMatchObject({ spm_unit: 'spm', period: '2026-01', value: 0, fed_by: expect.arrayContaining(['spm_units.childcare_expenses']) });
    expect(disabled).toMatchObject({ entity: 'Person', entity_id: 'adult', value: false, fed_by: ['people.social_security_disability'] });
    // the time limit has no PolicyEngine-US variable: only the service's own input would feed it
    expect(assumed.find((a) => a.input === 'snap_time_limit_exhausted')).toMatchObject({ fed_by: ['people.snap_time_limit_exhausted'] });
    // what the household gave is not assumed: earned income, rent, the heating expense, the age
    for (const given of ['snap_earned_income', 'snap_shelter_costs', 'age']) expect(assumed.map((a) => a.input)).not.toContain(given);
    // and the calculation's warnings say so too
    expect(out.sidecar.warnings.some((w: string) => w.startsWith('assumed '))).toBe(true);
  });

  test('a monthly value is taken as it is, a yearly one divided by 12', async () => {
    const monthly = structuredClone(body);
    (monthly.household.people.adult as Vars).employment_income = { '2026-01': 1200 };
    expect(snapOf((await migrate(monthly)).body)).toBe(295);
  });

  test('state_name and a full state name place the household too', async () => {
    for (const place of [{ state_name: 'CO' }, { state_name: 'Colorado' }]) {
      const out = (await migrate(situation({ adult: { age: 35, employment_income: 14_400, rent: 8_400 } }, { heating_cooling_expense: 600 }, place))).body;
      expect(snapOf(out)).toBe(295);
    }
  });

  test('intermediates are answered on request', async () => {
    const out = (await migrate(situation({ adult: { age: 35, employment_income: 14_400, rent: 8_400 } }, { heating_cooling_expense: 600 }, { state_code: 'CO' }, {
      snap_gross_income: ['2026-01'],
      snap_utility_allowance: ['2026-01'],
      snap_excess_shelter_expense_deduction: ['2026-01'],
      snap_net_income: ['2026-01'],
      snap_unit_size: ['2026-01'],
      is_snap_eligible: ['2026-01'],
      snap_earned_income: ['2026-01'],
    }))).body;
    const unit = out.result.spm_units.spm;
    expect(Object.fromEntries(Object.entries(unit).filter(([k]) => k !== 'members').map(([k, v]) => [k, (v as Vars)['2026-01'] ?? (v as Vars)['2026']]))).toMatchObject({
      snap_gross_income: 1200,
      snap_utility_allowance: 594,
      snap_excess_shelter_expense_deduction: 744,
      snap_net_income: 7,
      snap_unit_size: 1,
      is_snap_eligible: true,
      snap_earned_income: 1200,
    });
  });
});

describe('each mapping gives what /v1/calculate gives for the same facts', () => {
  test('person incomes over the unit, TANF on the unit, child support and dependent care (New York City)', async () => {
    const out = (
      await migrate(
        situation(
          {
            a: { age: 41, employment_income: 18_000, child_support_expense: 1_200, ssi: 0 },
            b: { age: 39, social_security_survivors: 2_400, unemployment_compensation: 1_200, ssi: 0 },
            c: { age: 8, ssi: 0 },
          },
          { tanf: 1_200, childcare_expenses: 2_400, housing_cost: 14_400, electricity_expense: 900, phone_expense: 480 },
          { state_code: 'NY', county: 'KINGS_COUNTY_NY' },
        ),
      )
    ).body;
    const facts = {
      household_size: 3,
      snap_earned_income: 1500,
      snap_unearned_income: 200 + 100 + 100,
      snap_child_support_paid: 100,
      snap_dependent_care_costs: 200,
      snap_shelter_costs: 1200,
      snap_other_utility_count: 1,
      snap_pays_telephone: true,
      snap_receives_tanf_or_ssi: true,
      ny_snap_utility_region: 'new_york_city',
    };
    const expected = await native('us-ny', { facts, people: { a: { age: 41 }, b: { age: 39 }, c: { age: 8 } } });
    expect(snapOf(out)).toBe(expected.snap_allotment);
    expect(out.sidecar.ignored_inputs).toEqual([]);
  });

  test.each([
    ['BRONX_COUNTY_NY', 'new_york_city'],
    ['NEW_YORK_COUNTY_NY', 'new_york_city'],
    ['NASSAU_COUNTY_NY', 'nassau_suffolk'],
    ['SUFFOLK_COUNTY_NY', 'nassau_suffolk'],
    ['ALBANY_COUNTY_NY', 'rest_of_state'],
    ['ST_LAWRENCE_COUNTY_NY', 'rest_of_state'],
  ])('the New York county %s is the %s utility region', async (county, region) => {
    const out = (await migrate(situation({ a: { age: 50, employment_income: 12_000 } }, { heating_cooling_expense: 1_000, housing_cost: 9_600 }, { state_code: 'NY', county }, { snap_utility_allowance: ['2026-01'] }))).body;
    const expected = await native('us-ny', { facts: { household_size: 1, snap_earned_income: 1000, snap_shelter_costs: 800, snap_pays_heating_or_cooling_separately: true, ny_snap_utility_region: region }, people: { a: { age: 50 } } }, ['snap_utility_allowance']);
    expect(out.result.spm_units.spm.snap_utility_allowance['2026-01']).toBe(expected.snap_utility_allowance);
  });

  test('a New York household with utility costs but no county is not answered, and the reason names the variable', async () => {
    const out = (await migrate(situation({ a: { age: 50, employment_income: 12_000 } }, { heating_cooling_expense: 900 }, { state_code: 'NY' }))).body;
    expect(snapOf(out)).toBeNull();
    expect(out.sidecar.unsupported).toEqual([expect.objectContaining({ variable: 'snap', period: '2026-01', reason: expect.stringContaining('households.county') })]);
    expect(out.message).toMatch(/could not be computed/);
  });

  test('utility costs choose the allowance: heating, two others, one other, a telephone only (Colorado)', async () => {
    const cases: [Vars, Vars][] = [
      [{ heating_cooling_expense: 100 }, { snap_pays_heating_or_cooling_separately: true }],
      [{ water_expense: 300, trash_expense: 200 }, { snap_other_utility_count: 2 }],
      [{ sewage_expense: 300, phone_expense: 200 }, { snap_other_utility_count: 1, snap_pays_telephone: true }],
      [{ gas_expense: 300 }, { snap_other_utility_count: 1 }],
      [{ phone_expense: 200 }, { snap_pays_telephone: true }],
      [{ electricity_expense: 0 }, {}],
    ];
    for (const [unit, facts] of cases) {
      const out = (await migrate(situation({ a: { age: 30 } }, unit, { state_code: 'CO' }, { snap_utility_allowance: ['2026-01'] }))).body;
      const expected = await native('us-co', { facts: { household_size: 1, ...facts }, people: { a: { age: 30 } } }, ['snap_utility_allowance']);
      expect(out.result.spm_units.spm.snap_utility_allowance['2026-01'], JSON.stringify(unit)).toBe(expected.snap_utility_allowance);
    }
  });

  test('homeowners: mortgage, insurance, association fees on the unit, real estate taxes per person (California)', async () => {
    const out = (await migrate(situation({ a: { age: 45, employment_income: 24_000, real_estate_taxes: 1_200 } }, { mortgage_payments: 12_000, homeowners_insurance: 600, homeowners_association_fees: 1_200 }, { state_code: 'CA' }, { snap: ['2026-01'], snap_excess_shelter_expense_deduction: ['2026-01'] }))).body;
    const expected = await native('us-ca', { facts: { household_size: 1, snap_earned_income: 2000, snap_shelter_costs: 100 + 1000 + 50 + 100 }, people: { a: { age: 45 } } }, ['snap_allotment', 'snap_excess_shelter_deduction']);
    expect(snapOf(out)).toBe(expected.snap_allotment);
    expect(out.result.spm_units.spm.snap_excess_shelter_expense_deduction['2026-01']).toBe(expected.snap_excess_shelter_deduction);
  });

  test('medical costs of elderly and SNAP-disabled members count; is_disabled alone does not (Colorado standard medical deduction)', async () => {
    const out = (
      await migrate(
        situation(
          {
            elder: { age: 70, social_security: 12_000, other_medical_expenses: 600, medicare_part_b_premium: 2_400 },
            ssdi: { age: 45, social_security_disability: 9_600, is_disabled: true, other_medical_expenses: 1_200 },
            other: { age: 40, is_disabled: true, other_medical_expenses: 6_000 },
          },
          { housing_cost: 12_000, heating_cooling_expense: 500 },
          { state_code: 'CO' },
          { snap: ['2026-01'], snap_excess_medical_expense_deduction: ['2026-01'] },
        ),
      )
    ).body;
    // elder 50 + 200 premium, SSDI recipient 100 (7 USC 2012(j)(2)); the third member's 500 is not allowable
    const expected = await native(
      'us-co',
      {
        facts: { household_size: 3, snap_unearned_income: 1000 + 800, snap_shelter_costs: 1000, snap_pays_heating_or_cooling_separately: true },
        people: { elder: { age: 70, snap_member_medical_expenses: 250 }, ssdi: { age: 45, snap_receives_disability_payments: true, snap_member_medical_expenses: 100 }, other: { age: 40, snap_member_medical_expenses: 500 } },
      },
      ['snap_allotment', 'snap_medical_deduction'],
    );
    expect(expected.snap_medical_deduction).toBe(350 - 35);
    expect(out.result.spm_units.spm.snap_excess_medical_expense_deduction['2026-01']).toBe(expected.snap_medical_deduction);
    expect(snapOf(out)).toBe(expected.snap_allotment);
    expect(ignored(out)).toEqual({ is_disabled: expect.stringContaining('7 USC 2012(j)') });
    expect(out.sidecar.ignored_inputs.filter((i: { variable: string }) => i.variable === 'is_disabled').map((i: { entity_id: string }) => i.entity_id).sort()).toEqual(['other', 'ssdi']);
  });

  test('Colorado excludes child support paid from gross income; New York deducts it', async () => {
    const people = { a: { age: 33, employment_income: 30_000, child_support_expense: 4_800 } };
    const ask = { snap_gross_income: ['2026-01'], snap_child_support_deduction: ['2026-01'] };
    const co = (await migrate(situation(people, {}, { state_code: 'CO' }, ask))).body.result.spm_units.spm;
    expect([co.snap_gross_income['2026-01'], co.snap_child_support_deduction['2026-01']]).toEqual([2500 - 400, 0]);
    const ny = (await migrate(situation(people, {}, { state_code: 'NY', county: 'ERIE_COUNTY_NY' }, ask))).body.result.spm_units.spm;
    expect([ny.snap_gross_income['2026-01'], ny.snap_child_support_deduction['2026-01']]).toEqual([2500, 400]);
  });
});

describe('the time limit: no PolicyEngine-US variable carries it, so the endpoint takes our own input', () => {
  // 7 USC 2015(o)(2), 7 CFR 273.24(b): both adults have used up the time limit, so the unit has
  // no eligible member (7 CFR 273.11(c)(1)): ineligible, $0, and no table read for a size of 0
  const bothPast = (place: Vars = { state_code: 'CO' }) =>
    situation(
      { a: { age: 25, employment_income: 4_656, snap_time_limit_exhausted: true, meets_snap_abawd_work_requirements: false }, b: { age: 31, snap_time_limit_exhausted: true } },
      { housing_cost: 22_392, heating_cooling_expense: 1_320 },
      place,
      { snap: ['2026-01'], is_snap_eligible: ['2026-01'], snap_unit_size: ['2026-01'], snap_max_allotment: ['2026-01'], snap_standard_deduction: ['2026-01'] },
    );

  test('a unit whose members are all past the time limit: 200, ineligible, $0; the values read under our name in sidecar.own_inputs', async () => {
    const out = await migrate(bothPast());
    expect(out.status).toBe(200);
    expect(out.body.result.spm_units.spm).toMatchObject({ snap: { '2026-01': 0 }, is_snap_eligible: { '2026-01': false }, snap_unit_size: { '2026-01': 0 }, snap_max_allotment: { '2026-01': 0 }, snap_standard_deduction: { '2026-01': 209 } });
    expect(out.body.sidecar.own_inputs).toEqual(
      ['a', 'b'].map((id) => ({ entity_group: 'people', entity_id: id, variable: 'snap_time_limit_exhausted', input: 'snap_time_limit_exhausted', note: expect.stringContaining('273.24(b)') })),
    );
    // PolicyEngine-US's work-requirement outcome is not the time limit: reported, not used
    expect(ignored(out.body).meets_snap_abawd_work_requirements).toMatch(/three countable months in 36.*snap_time_limit_exhausted/);
  });

  test.each([[{ state_code: 'NY', county: 'KINGS_COUNTY_NY' }], [{ state_code: 'CA' }]])('in %j too', async (place) => {
    const out = await migrate(bothPast(place));
    expect(out.status).toBe(200);
    expect(out.body.result.spm_units.spm).toMatchObject({ snap: { '2026-01': 0 }, is_snap_eligible: { '2026-01': false } });
  });

  test('one member past it: what /v1/calculate gives for the same facts', async () => {
    const out = (await migrate(situation({ a: { age: 25, employment_income: 6_000, snap_time_limit_exhausted: true }, b: { age: 31 } }, { housing_cost: 9_600, heating_cooling_expense: 1_000 }, { state_code: 'CO' }))).body;
    const expected = await native('us-co', {
      facts: { household_size: 2, snap_earned_income: 500, snap_shelter_costs: 800, snap_pays_heating_or_cooling_separately: true },
      people: { a: { age: 25, snap_time_limit_exhausted: true }, b: { age: 31 } },
    });
    expect(snapOf(out)).toBe(expected.snap_allotment);
    expect(out.sidecar.own_inputs).toHaveLength(1);
  });

  test('a time-limit value that is not true or false is refused with the field', async () => {
    const out = await migrate(situation({ a: { age: 25, snap_time_limit_exhausted: 'yes' } }, {}, { state_code: 'CO' }));
    expect(out.status).toBe(400);
    expect(out.body.message).toMatch(/people\.a\.snap_time_limit_exhausted: must be true or false/);
  });
});

describe('aggregates and their components', () => {
  test('a given social_security replaces its components, which are reported as ignored', async () => {
    const out = (
      await migrate(situation({ a: { age: 67, social_security: 12_000, social_security_retirement: 6_000 } }, { heating_cooling_expense: 100 }, { state_code: 'CO' }, { snap_unearned_income: ['2026-01'] }))
    ).body;
    expect(out.result.spm_units.spm.snap_unearned_income['2026-01']).toBe(1000);
    expect(ignored(out)).toEqual({ social_security_retirement: 'replaced by people.a.social_security, which includes it' });
  });

  test('components add up when the aggregate is not given', async () => {
    const out = (await migrate(situation({ a: { age: 67, social_security_retirement: 6_000, social_security_dependents: 1_200 } }, {}, { state_code: 'CO' }, { snap_unearned_income: ['2026-01'] }))).body;
    expect(out.result.spm_units.spm.snap_unearned_income['2026-01']).toBe(600);
  });

  test('housing_cost replaces rent and the homeowner components', async () => {
    const out = (await migrate(situation({ a: { age: 30, rent: 6_000 } }, { housing_cost: 12_000, mortgage_payments: 3_000 }, { state_code: 'CO' }))).body;
    expect(Object.keys(ignored(out)).sort()).toEqual(['mortgage_payments', 'rent']);
  });
});

describe('nothing is dropped in silence', () => {
  test('inputs no table reads are listed with the reason', async () => {
    const body = situation({ a: { age: 30, employment_income: 12_000, weekly_hours_worked_before_lsr: 10, favourite_colour: 3 }, outsider: { age: 50, employment_income: 99_000 } }, { snap_net_income: 100 }, { state_code: 'CO' });
    body.household.spm_units.spm.members = ['a'];
    (body.household as Record<string, unknown>).families = { fam: { members: ['a'], family_weight: year(2) } };
    const reasons = ignored((await migrate(body)).body);
    expect(reasons).toMatchObject({
      weekly_hours_worked_before_lsr: expect.stringContaining('273.24'),
      favourite_colour: 'no mapping for people.favourite_colour in the SNAP tables',
      family_weight: 'no mapping for families.family_weight in the SNAP tables',
      snap_net_income: expect.stringMatching(/^an output/),
      employment_income: expect.stringMatching(/not part of a calculated unit/),
    });
  });

  test('nothing requested: every input is reported', async () => {
    const body = situation({ a: { age: 30 } }, {}, { state_code: 'CO' }, {});
    const out = (await migrate(body)).body;
    expect(out.sidecar.computed).toEqual([]);
    expect(out.sidecar.ignored_inputs.map((i: { variable: string }) => i.variable).sort()).toEqual(['age', 'state_code']);
  });

  test('requested variables the service cannot compute keep null with a reason', async () => {
    const body = situation({ a: { age: 30 } }, {}, { state_code: 'CO' }, { wic: ['2026-01'], snap: ['2026-01'] });
    (body.household.people.a as Vars).income_tax = { '2026': null };
    const out = (await migrate(body)).body;
    expect(out.result.spm_units.spm.wic['2026-01']).toBeNull();
    expect(out.sidecar.unsupported.map((u: { variable: string }) => u.variable).sort()).toEqual(['income_tax', 'wic']);
  });
});

describe('errors in the endpoint\'s own shape', () => {
  test.each([
    ['a body without household', { nope: 1 }, 400],
    ['axes', { ...situation({ a: { age: 30 } }, {}, { state_code: 'CO' }), axes: [[{ name: 'employment_income', count: 2 }]] }, 400],
    ['an unknown entity group', { household: { persons: {} } }, 400],
    ['a member missing from people', { household: { people: {}, spm_units: { s: { members: ['ghost'], snap: { '2026-01': null } } }, households: { h: { state_code: year('CO') } } } }, 400],
    ['an amount that is not a number', situation({ a: { age: 30, employment_income: 'lots' } }, {}, { state_code: 'CO' }), 400],
    ['a state without a package', situation({ a: { age: 30 } }, {}, { state_code: 'TX' }), 422],
  ])('%s', async (_name, body, status) => {
    const out = await migrate(body);
    expect(out.status).toBe(status);
    expect(out.body).toMatchObject({ status: 'error', result: null, message: expect.any(String) });
  });

  test('an ordinary key gets 403', async () => {
    expect((await migrate(situation({ a: { age: 30 } }, {}, { state_code: 'CO' }), KEYS.calc)).status).toBe(403);
  });
});

describe('every table of the bundled encodings feeds inputs and outputs its package has', () => {
  test.each(['CO', 'NY', 'CA'])('%s', (state) => {
    const mapping = mappingIndex(Catalog.load(bundledOutput(), 'compiled')).byState.get(state)!;
    expect(mapping.family).toBe(POLICYENGINE_US_SNAP);
    expect(mapping.tables.map((t) => t.name)).toEqual(['bundled federal', `bundled ${state}`]);
    // every row of both tables reaches an input, and every output a rule or input
    expect(mapping.unresolved).toEqual([]);
    expect(mapping.inputs).toHaveLength(POLICYENGINE_US_SNAP.federal.inputs.length + POLICYENGINE_US_SNAP.states.find((t) => t.scope === state)!.inputs.length);
    expect(mapping.unanswered).toEqual([]);
    expect([...mapping.outputs.keys()].sort()).toEqual(POLICYENGINE_US_SNAP.federal.outputs.map((o) => o.variable).sort());
  });
});

describe.runIf(HAVE_CORPUS)('the shared PolicyEngine-US reference sets', () => {
  type Household = { id: string; state: string; situation: { people: Record<string, Vars>; spm_units: Record<string, Vars> } };
  const households = (file: string) =>
    (JSON.parse(readFileSync(new URL(`../../../../shared/validation/${file}`, import.meta.url), 'utf8')) as { households: Household[] }).households;

  /** A household as recorded, and with every member past the time limit. */
  const variants = (h: Household) => {
    const timeLimited = structuredClone(h.situation);
    for (const person of Object.values(timeLimited.people)) person.snap_time_limit_exhausted = year(true);
    return [['recorded', h.situation], ['time-limited', timeLimited]] as const;
  };

  test('no household of either set, as recorded or with every member past the time limit, is a server error on the migration endpoint or /v1/calculate', () => {
    // in process, through the code both routes run (the HTTP answers of the route are the tests above)
    const catalog = Catalog.load(bundledOutput(), 'compiled');
    const calculate = (r: Parameters<typeof runCalculation>[1]) => runCalculation(catalog, r, 30_000);
    const all = [...households('policyengine-snap-2026-01.json'), ...households('policyengine-snap-2026-01-multistate.json')];
    const statuses: Record<string, number> = {};
    for (const h of all) {
      for (const [variant, household] of variants(h)) {
        let out;
        try {
          out = runMigration({ household }, catalog, { calculate });
        } catch (err) {
          const status = toMigrationError(err).status;
          statuses[status] = (statuses[status] ?? 0) + 1;
          expect(status, `${h.id} ${variant}: ${(err as Error).message}`).toBeLessThan(500);
          continue;
        }
        statuses[200] = (statuses[200] ?? 0) + 1;
        if (variant === 'time-limited') expect(out.computed.find((c) => c.variable === 'snap')?.value, h.id).toBe(0);
        // /v1/calculate with the package request the household maps to
        for (const { request } of out.calculations) expect(() => calculate(request), `${h.id} ${variant} on /v1/calculate`).not.toThrow();
      }
    }
    // Colorado, New York and California answered; the other states have no package (422)
    expect(statuses).toEqual({ 200: 2 * (450 + 150), 422: 2 * 250 });
  });


  test('clean households: snap within $2 of PolicyEngine-US for at least 97 % (the law and PolicyEngine should agree there)', () => {
    const ref = JSON.parse(readFileSync(new URL('../../../../shared/validation/policyengine-snap-2026-01.json', import.meta.url), 'utf8')) as {
      households: { id: string; set: string; situation: { spm_units: Record<string, Vars> }; policyengine: { snap: number } }[];
    };
    const catalog = Catalog.load(bundledOutput(), 'compiled');
    const clean = ref.households.filter((h) => h.set === 'clean');
    const misses = clean.filter((h) => {
      const out = runMigration({ household: h.situation }, catalog, { calculate: (r) => runCalculation(catalog, r, 30_000) });
      const snap = out.computed.find((c) => c.variable === 'snap')?.value;
      return !(typeof snap === 'number' && Math.abs(snap - h.policyengine.snap) <= 2);
    });
    expect(misses.map((h) => h.id)).toEqual([]);
    expect(clean.length).toBe(300);
  });

  test('served from the public US corpus, every household of the multistate set, as recorded or with every member past the time limit, is answered by its state\'s package: no error status, a snap value', () => {
    const catalog = Catalog.load(snapCorpusOutput(), 'compiled');
    const calculate = (r: Parameters<typeof runCalculation>[1]) => runCalculation(catalog, r, 30_000);
    const answered = new Map<string, number>();
    for (const h of households('policyengine-snap-2026-01-multistate.json')) {
      for (const [variant, household] of variants(h)) {
        let out;
        try {
          out = runMigration({ household }, catalog, { calculate });
        } catch (err) {
          throw new Error(`${h.id} ${variant}: ${toMigrationError(err).status} ${(err as Error).message}`);
        }
        const snap = out.computed.find((c) => c.variable === 'snap');
        expect(snap?.value, `${h.id} ${variant}: ${JSON.stringify(out.unsupported)}`).toEqual(expect.any(Number));
        expect(out.packages.map((p) => p.jurisdiction)).toEqual([`us-${h.state.toLowerCase()}`]);
        answered.set(h.state, (answered.get(h.state) ?? 0) + 1);
      }
    }
    expect([...answered.keys()].sort()).toEqual(SNAP_STATES);
    expect([...answered.values()]).toEqual(SNAP_STATES.map(() => 100));
  });
});
