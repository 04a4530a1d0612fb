import type { InputMapping, MappingTable, TableFamily } from './mapping.js';
import {
  DEPENDENT_CARE,
  DISABLED_VETERAN_STATUSES,
  ENGINE,
  ENGINE_VERSION,
  feeding,
  HOURS_UNUSED,
  MEDICAL,
  OTHER_UTILITIES,
  outputs,
  PERSON_EARNED,
  PERSON_UNEARNED,
  SHELTER,
  TIME_LIMIT_NOTE,
  UNIT_UNEARNED,
  UNUSED,
} from './policyengine-us.js';

// PolicyEngine-US variables onto this project's own SNAP encodings (rulespec/): the federal
// table, read for every state package of these encodings, and the tables of Colorado, New
// York and California, which add each state's categorical eligibility and utility inputs.

const CORPUS = { repo: 'bundled', commit: null };
const federalInput = (name: string) => `us:statutes/7/2014/e#input.${name}`;
const memberInput = (name: string) => `us:statutes/7/2012/j#input.${name}`;

const FEDERAL: MappingTable = {
  name: 'bundled federal',
  engine: ENGINE,
  engine_version: ENGINE_VERSION,
  corpus: CORPUS,
  scope: 'federal',
  inputs: [
    { variable: 'age', entity: 'people', input: memberInput('age'), combine: 'value' },
    ...feeding(PERSON_EARNED, federalInput('snap_earned_income'), 'sum'),
    ...feeding([...PERSON_UNEARNED, ...UNIT_UNEARNED], federalInput('snap_unearned_income'), 'sum'),
    { variable: 'ssi', entity: 'people', input: memberInput('snap_receives_ssi'), combine: 'any_positive' },
    { variable: 'social_security_disability', entity: 'people', input: memberInput('snap_receives_disability_payments'), combine: 'any_positive' },
    ...DISABLED_VETERAN_STATUSES.map((variable): InputMapping => ({ variable, entity: 'people', input: memberInput('snap_member_is_disabled'), combine: 'flag' })),
    { variable: 'child_support_expense', entity: 'people', input: federalInput('snap_child_support_paid'), combine: 'sum' },
    ...feeding(DEPENDENT_CARE, federalInput('snap_dependent_care_costs'), 'sum'),
    ...feeding(MEDICAL, federalInput('snap_member_medical_expenses'), 'sum'),
    ...feeding(SHELTER, federalInput('snap_shelter_costs'), 'sum'),
    { variable: 'snap_time_limit_exhausted', entity: 'people', input: 'us:regulations/7-cfr/273/24#input.snap_time_limit_exhausted', combine: 'flag', own: true, note: TIME_LIMIT_NOTE },
  ],
  outputs: outputs({
    snap: 'snap_allotment',
    is_snap_eligible: { name: 'snap_income_eligible', note: 'income eligibility; resources and non-financial tests are not encoded' },
    meets_snap_categorical_eligibility: 'snap_categorically_eligible',
    meets_snap_net_income_test: 'snap_passes_net_income_test',
    meets_snap_gross_income_test: 'snap_gross_income_test_met',
    snap_max_allotment: 'snap_maximum_allotment',
    snap_net_income: 'snap_net_income',
    snap_excess_shelter_expense_deduction: 'snap_excess_shelter_deduction',
    snap_utility_allowance: 'snap_utility_allowance',
    snap_excess_medical_expense_deduction: 'snap_medical_deduction',
    snap_standard_deduction: 'snap_standard_deduction',
    snap_earned_income_deduction: 'snap_earned_income_deduction',
    snap_dependent_care_deduction: { name: 'snap_dependent_care_costs', from: 'input' },
    snap_child_support_deduction: 'snap_child_support_deduction',
    snap_gross_income: 'snap_gross_income',
    snap_earned_income: { name: 'snap_earned_income', from: 'input' },
    snap_unearned_income: { name: 'snap_unearned_income', from: 'input' },
    snap_unit_size: 'snap_unit_size',
  }),
  unused: [...UNUSED, HOURS_UNUSED],
};

/** A state's categorical eligibility and utility inputs, declared by its own module. */
function stateTable(state: string, modules: { categorical: string; utilities: string }, extra: InputMapping[] = []): MappingTable {
  const { categorical, utilities } = modules;
  return {
    name: `bundled ${state}`,
    engine: ENGINE,
    engine_version: ENGINE_VERSION,
    corpus: CORPUS,
    scope: state,
    inputs: [
      { variable: 'tanf', entity: 'spm_units', input: `${categorical}#input.snap_receives_tanf_or_ssi`, combine: 'any_positive', note: 'TANF is paid to the whole unit (7 CFR 273.2(j)(2)(i))' },
      { variable: 'ssi', entity: 'people', input: `${categorical}#input.snap_receives_tanf_or_ssi`, combine: 'all_members_positive', note: 'basic categorical eligibility when every member receives SSI' },
      { variable: 'heating_cooling_expense', entity: 'spm_units', input: `${utilities}#input.snap_pays_heating_or_cooling_separately`, combine: 'any_positive' },
      ...OTHER_UTILITIES.map((variable): InputMapping => ({ variable, entity: 'spm_units', input: `${utilities}#input.snap_other_utility_count`, combine: 'count_positive' })),
      { variable: 'phone_expense', entity: 'spm_units', input: `${utilities}#input.snap_pays_telephone`, combine: 'any_positive' },
      ...extra,
    ],
    outputs: [],
    unused: [],
  };
}

/** New York's utility standards differ by region (18 NYCRR 387.12(f)(3)(v)): New York City, Nassau/Suffolk, the rest of the state. */
const NY_REGION: InputMapping = {
  variable: 'county',
  entity: 'households',
  input: 'us-ny:regulations/18-nycrr/section-387.12#input.ny_snap_utility_region',
  combine: 'map',
  values: {
    BRONX_COUNTY_NY: 'new_york_city',
    KINGS_COUNTY_NY: 'new_york_city',
    NEW_YORK_COUNTY_NY: 'new_york_city',
    QUEENS_COUNTY_NY: 'new_york_city',
    RICHMOND_COUNTY_NY: 'new_york_city',
    NASSAU_COUNTY_NY: 'nassau_suffolk',
    SUFFOLK_COUNTY_NY: 'nassau_suffolk',
  },
  otherwise: { suffix: '_NY', value: 'rest_of_state' },
};

/** PolicyEngine-US onto the bundled encodings. */
export const POLICYENGINE_US_SNAP: TableFamily = {
  name: 'bundled',
  corpus: CORPUS,
  federal: FEDERAL,
  states: [
    stateTable('CO', { categorical: 'us-co:regulations/10-ccr-2506-1/section-4.206', utilities: 'us-co:regulations/10-ccr-2506-1/section-4.407.31' }),
    stateTable('NY', { categorical: 'us-ny:regulations/18-nycrr/section-387.14', utilities: 'us-ny:regulations/18-nycrr/section-387.12' }, [NY_REGION]),
    stateTable('CA', { categorical: 'us-ca:policies/cdss/snap/fy-2026/modified-categorical-eligibility', utilities: 'us-ca:policies/cdss/snap/fy-2026/utility-allowances' }),
  ],
};
