import { describe, expect, test } from 'vitest';
import { runCalculation } from '../../../server/calculation.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import type { TableFamily } from '../../../server/migration/mapping.js';
import { mappingIndex, TABLE_FAMILIES, type PackageMapping } from '../../../server/migration/package-mapping.js';
import { POLICYENGINE_US_SNAP_RULESPEC_US } from '../../../server/migration/policyengine-us-snap-rulespec-us.js';
import { runMigration } from '../../../server/migration/run.js';
import type { CalculateRequest } from '../../../compiler/4-package/package-types.js';
import { SNAP_STATES, snapCorpusOutput } from '../../support/corpus.js';
import { HAVE_CORPUS } from '../../support/paths.js';

// The mapping tables resolved against the public US corpus's state SNAP packages: the federal
// table reaches the same federal inputs in every state's package (by legal id, or through the
// rule a state binds a federal name with), a state's table adds its own, a package of a state no
// table knows gets the federal table alone and the sidecar names what nothing fed, and a legal id
// the served corpus lacks is a warning.

type Vars = Record<string, unknown>;
const year = (v: unknown) => ({ '2026': v });

/** A one-unit PolicyEngine-US household asking for `ask` for January 2026. */
function household(state: string, people: Record<string, Vars>, unit: Vars = {}, place: Vars = {}, ask = ['snap']) {
  const members = Object.keys(people);
  const wrap = (vars: Vars) => Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, year(v)]));
  return {
    household: {
      people: Object.fromEntries(Object.entries(people).map(([id, vars]) => [id, wrap(vars)])),
      spm_units: { spm: { members, ...wrap(unit), ...Object.fromEntries(ask.map((v) => [v, { '2026-01': null }])) } },
      households: { hh: { members, state_code: year(state), ...wrap(place) } },
    },
  };
}

/** The migration of one household on a catalog, with the package request it was calculated from. */
function migrate(catalog: Catalog, body: unknown) {
  const requests: CalculateRequest[] = [];
  const out = runMigration(body, catalog, { calculate: (r) => (requests.push(r), runCalculation(catalog, r, 30_000)) });
  const value = (variable: string) => out.computed.find((c) => c.variable === variable)?.value;
  return { out, value, request: requests[0] };
}

const fed = (m: PackageMapping, variable: string) => m.inputs.filter((r) => r.row.variable === variable);

describe.runIf(HAVE_CORPUS)('the federal table on each state package of the shared corpus', () => {
  const catalog = () => Catalog.load(snapCorpusOutput(), 'compiled');

  test('every state SNAP package is mapped by the rulespec-us tables, with no legal id missing', () => {
    const index = mappingIndex(catalog());
    expect([...index.byState.keys()].sort()).toEqual(SNAP_STATES);
    for (const m of index.byState.values()) expect(m.family).toBe(POLICYENGINE_US_SNAP_RULESPEC_US);
    expect(index.warnings).toEqual([]);
  });

  test.each(SNAP_STATES)('%s: the federal inputs by legal id, the state bindings followed, the federal rules answering', (state) => {
    const m = mappingIndex(catalog()).byState.get(state)!;
    expect(m.tables[0].name).toBe('rulespec-us federal');
    const federal = (variable: string) => fed(m, variable).filter((r) => r.table === 'rulespec-us federal').map((r) => r.input.name);
    // each member: age, citizenship (from PolicyEngine-US's default), the elderly or disabled status of 7 USC 2012(j)
    expect(federal('age')).toEqual(expect.arrayContaining(['member_age', 'student_age', 'snap_member_is_elderly_or_disabled']));
    expect(federal('immigration_status')).toContain('member_is_us_citizen');
    expect(fed(m, 'immigration_status')[0].row.engine_default).toBe('CITIZEN');
    // the unit's income, medical, dependent care and shelter costs reach an input: federal, or the state's own
    for (const variable of ['employment_income', 'social_security', 'other_medical_expenses', 'childcare_expenses', 'housing_cost']) {
      expect(fed(m, variable).length, `${state} ${variable}`).toBeGreaterThan(0);
    }
    // the benefit, the net income and the maximum allotment from the rules every state composes
    expect(m.outputs.get('snap')).toMatchObject({ rule: expect.stringMatching(/#snap_benefit$/) });
    expect(m.outputs.get('snap_net_income')).toMatchObject({ rule: 'us:regulations/7-cfr/273/10#snap_net_monthly_income' });
    expect(m.outputs.get('snap_max_allotment')).toMatchObject({ rule: 'us:policies/usda/snap/fy-2026-cola/maximum-allotments#snap_maximum_allotment' });
    expect(m.outputs.get('snap_unit_size')).toMatchObject({ input: 'household_size' });
    expect(m.sizeInput).toBe('household_size');
  });

  test('a state that binds the federal shelter slot to an input of its own: the federal rows follow the binding (Alabama, Florida, Georgia)', () => {
    const index = mappingIndex(catalog());
    const shelter = (state: string) => fed(index.byState.get(state)!, 'housing_cost')[0];
    expect(shelter('AL')).toMatchObject({ table: 'rulespec-us federal', input: { name: 'household_shelter_costs_incurred' }, via: 'us-al:programs/snap/2026-01#snap_total_allowable_shelter_expenses' });
    expect(shelter('FL')).toMatchObject({ input: { name: 'household_shelter_costs_incurred' }, via: 'us-fl:programs/snap/2026-01#snap_total_allowable_shelter_expenses' });
    expect(shelter('GA')).toMatchObject({ input: { name: 'monthly_allowable_shelter_costs' }, via: 'us-ga:programs/snap/2026-01#snap_total_allowable_shelter_expenses' });
    // Arizona adds its utility allowance to the household's own costs: the sum is followed to the one input in it
    expect(shelter('AZ')).toMatchObject({ input: { name: 'household_shelter_costs_incurred' }, via: expect.stringMatching(/^us-az:.*#snap_total_allowable_shelter_expenses$/) });
  });

  test('a state table adds its own inputs: New York (county → utility region, child support excluded from income)', () => {
    const c = catalog();
    const m = mappingIndex(c).byState.get('NY')!;
    expect(m.tables.map((t) => t.name)).toEqual(['rulespec-us federal', 'rulespec-us NY']);
    // the state's row takes child support paid from the federal deduction (7 CFR 273.9(c)(17))
    expect(fed(m, 'child_support_expense').map((r) => r.input.name)).toEqual(['snap_income_exclusions']);

    // one adult in Brooklyn: $2,400 a month of wages, $300 of child support paid, rent $1,500 and a heating bill
    const body = household('NY', { a: { age: 40, employment_income: 28_800, child_support_expense: 3_600, weekly_hours_worked_before_lsr: 40 } }, { rent: 0, housing_cost: 18_000, heating_cooling_expense: 1_200 }, { county: 'KINGS_COUNTY_NY' }, [
      'snap',
      'snap_gross_income',
      'snap_child_support_deduction',
    ]);
    const { out, value, request } = migrate(c, body);
    const facts = (request.household.entities as Record<string, Record<string, Vars>>).Household.household;
    expect(facts).toMatchObject({ household_resides_in_new_york_city: true, household_resides_in_nassau_or_suffolk_county: false, household_incurred_or_anticipated_heating_or_cooling_costs_separate_from_rent_or_mortgage: true, household_shelter_costs_incurred: 1500, snap_income_exclusions: 300 });
    // gross income: 2,400 of wages less the 300 excluded; nothing left to deduct
    expect(value('snap_gross_income')).toBe(2100);
    expect(value('snap_child_support_deduction')).toBe(0);
    expect(out.packages).toEqual([{ program_id: 'ny-snap', jurisdiction: 'us-ny', runtime_id: expect.stringMatching(/^us-ny\/ny-snap@/), tables: ['rulespec-us federal', 'rulespec-us NY'], corpus: POLICYENGINE_US_SNAP_RULESPEC_US.corpus }]);
  });

  test('PolicyEngine-US defaults and the tables\' presumptions are assumed inputs, said so; an input nothing feeds has no fed_by', () => {
    const { out } = migrate(catalog(), household('GA', { a: { age: 30, employment_income: 12_000 } }));
    const assumed = out.assumed_inputs;
    expect(assumed).toContainEqual(expect.objectContaining({ input: 'member_is_us_citizen', entity_id: 'a', value: 'CITIZEN', fed_by: ['people.immigration_status'], engine_default: { variable: 'people.immigration_status', value: 'CITIZEN' } }));
    expect(assumed).toContainEqual(expect.objectContaining({ input: 'federal_or_state_minimum_wage', value: 7.25, fed_by: [], presumed: expect.stringContaining('29 USC 206(a)(1)(C)') }));
    expect(assumed.filter((a) => a.fed_by.length === 0 && !a.presumed).length).toBeGreaterThan(0);
  });
});

describe.runIf(HAVE_CORPUS)('a state package no table knows (Wyoming, from the federal modules only)', () => {
  const catalog = () => Catalog.load(snapCorpusOutput({ unseen: true }), 'compiled');

  test('the federal table alone maps it, the state\'s shelter binding followed', () => {
    const m = mappingIndex(catalog()).byState.get('WY')!;
    expect(m).toMatchObject({ jurisdiction: 'us-wy', program_id: 'wy-snap', family: POLICYENGINE_US_SNAP_RULESPEC_US });
    expect(m.tables.map((t) => t.name)).toEqual(['rulespec-us federal']);
    expect(fed(m, 'housing_cost')[0]).toMatchObject({ input: { name: 'wy_household_shelter_costs' }, via: 'us-wy:programs/snap/2026-01#snap_total_allowable_shelter_expenses' });
  });

  test('a household is answered from it; the input of its own nothing feeds is an assumed input with no fed_by', () => {
    // one adult: wages $1,200 a month, rent $700. Gross 1,200; earned income deduction floor(1,200 x 0.2) = 240;
    // standard deduction 209 (one person, FY 2026): 751 before shelter. Excess shelter 700 - 751 x 0.5 = 324.5,
    // rounded to 325 (7 CFR 273.10(e)(1)(i)(H)); net 426. The package's allotment: floor(298 - 0.3 x 426)
    // = floor(170.2) = 170 (the state agency's rounding election at its default), less a recoupment of 0.
    const { out, value } = migrate(catalog(), household('WY', { a: { age: 35, employment_income: 14_400 } }, { housing_cost: 8_400 }, {}, ['snap', 'snap_net_income']));
    expect(value('snap_net_income')).toBe(426);
    expect(value('snap')).toBe(170);
    expect(out.unsupported).toEqual([]);
    expect(out.packages[0]).toMatchObject({ jurisdiction: 'us-wy', program_id: 'wy-snap', tables: ['rulespec-us federal'] });
    expect(out.assumed_inputs).toContainEqual(expect.objectContaining({ input: 'wy_overissuance_recoupment', value: 0, fed_by: [] }));
    expect(out.assumed_inputs).toContainEqual(expect.objectContaining({ input: 'state_agency_rounds_thirty_percent_net_income_up', value: false, fed_by: [] }));
  });
});

describe.runIf(HAVE_CORPUS)('a legal id the served corpus does not have is a warning, never a silent gap', () => {
  const catalog = () => Catalog.load(snapCorpusOutput(), 'compiled');
  const family = POLICYENGINE_US_SNAP_RULESPEC_US;
  const changed = (edit: (f: TableFamily) => void): TableFamily[] => {
    const copy = structuredClone(family);
    edit(copy);
    return [TABLE_FAMILIES[0], copy];
  };

  test('a federal input renamed since the tables were written', () => {
    const families = changed((f) => f.federal.inputs.push({ variable: 'employment_income', entity: 'people', input: 'us:regulations/7-cfr/273/10#input.snap_gross_monthly_wages', combine: 'sum' }));
    expect(mappingIndex(catalog(), families).warnings).toEqual([
      'mapping table rulespec-us federal (written against TheAxiomFoundation/rulespec-us@c55778119c0d): no served state package has us:regulations/7-cfr/273/10#input.snap_gross_monthly_wages; people.employment_income feeds nothing there',
    ]);
  });

  test("a state table's input, rule and presumption its package lacks, and tables written against another commit", () => {
    const families = changed((f) => {
      f.corpus = { ...f.corpus, commit: '0123456789abcdef0123456789abcdef01234567' };
      const ny = f.states.find((t) => t.scope === 'NY')!;
      ny.inputs.push({ variable: 'county', entity: 'households', input: 'us-ny:regulations/18-nycrr/387/12/f/3/v/a#input.household_resides_in_westchester', combine: 'map', values: {} });
      ny.outputs.push({ variable: 'snap_utility_allowance', entity: 'spm_units', name: 'us-ny:regulations/18-nycrr/387/12/f/3/v/a#snap_heating_allowance', kind: 'amount' });
      ny.presumed = [{ input: 'us-ny:regulations/18-nycrr/387/14/a/5#input.household_was_issued_a_notice', value: true, reason: 'none' }];
    });
    const warnings = mappingIndex(catalog(), families).warnings;
    expect(warnings[0]).toMatch(/^the rulespec-us mapping tables were written against TheAxiomFoundation\/rulespec-us@0123456789ab; .*rulespec-us is c55778119c0d/);
    expect(warnings.slice(1)).toEqual([
      'mapping table rulespec-us NY (written against TheAxiomFoundation/rulespec-us@0123456789ab): us-ny/ny-snap has no us-ny:regulations/18-nycrr/387/12/f/3/v/a#input.household_resides_in_westchester; households.county feeds nothing there',
      'mapping table rulespec-us NY (written against TheAxiomFoundation/rulespec-us@0123456789ab): us-ny/ny-snap has no us-ny:regulations/18-nycrr/387/14/a/5#input.household_was_issued_a_notice; the presumption that it is true applies nowhere',
      'mapping table rulespec-us NY (written against TheAxiomFoundation/rulespec-us@0123456789ab): us-ny/ny-snap has no rule us-ny:regulations/18-nycrr/387/12/f/3/v/a#snap_heating_allowance; snap_utility_allowance is not answered there',
    ]);
  });
});
