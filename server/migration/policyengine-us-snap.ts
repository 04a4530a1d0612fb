import type { InputMapping, MappingTable, OutputMapping, UnusedVariable } from './mapping.js';

// PolicyEngine-US (1.8xx) variables onto our state SNAP packages. Entities and definition
// periods are PolicyEngine-US's own: almost every input is a yearly variable, which the
// endpoint divides by 12 for the month it calculates; SNAP outputs are monthly.

const ENGINE = 'policyengine-us';
const ENGINE_VERSION = '1.817.0';

/** Unearned income of a person (7 CFR 273.9(b)(2)); aggregates replace their parts as in PolicyEngine-US. */
const PERSON_UNEARNED: [string, string[]?][] = [
  ['social_security'],
  ['social_security_retirement', ['social_security']],
  ['social_security_disability', ['social_security']],
  ['social_security_survivors', ['social_security']],
  ['social_security_dependents', ['social_security']],
  ['ssi'],
  ['unemployment_compensation', ['total_unemployment_compensation']],
  ['total_unemployment_compensation'],
  ['pension_income'],
  ['taxable_pension_income', ['pension_income']],
  ['tax_exempt_pension_income', ['pension_income']],
  ['veterans_benefits'],
  ['disability_benefits'],
  ['workers_compensation'],
  ['general_assistance'],
  ['child_support_received'],
  ['alimony_income'],
  ['dividend_income'],
  ['qualified_dividend_income', ['dividend_income']],
  ['non_qualified_dividend_income', ['dividend_income']],
  ['interest_income'],
  ['taxable_interest_income', ['interest_income']],
  ['tax_exempt_interest_income', ['interest_income']],
  ['rental_income'],
  ['survivor_benefits'],
  ['retirement_distributions'],
  ['miscellaneous_income'],
];

/** Shelter costs (7 CFR 273.9(d)(6)(ii)): `housing_cost`, when given, is their total. */
const SHELTER: InputMapping[] = [
  { variable: 'housing_cost', entity: 'spm_units', input: 'snap_shelter_costs', combine: 'sum' },
  ...(['rent', 'real_estate_taxes'] as const).map((variable): InputMapping => ({ variable, entity: 'people', input: 'snap_shelter_costs', combine: 'sum', replaced_by: ['housing_cost'] })),
  ...(['mortgage_payments', 'homeowners_insurance', 'homeowners_association_fees'] as const).map(
    (variable): InputMapping => ({ variable, entity: 'spm_units', input: 'snap_shelter_costs', combine: 'sum', replaced_by: ['housing_cost'] }),
  ),
];

/** Medical costs of each member (7 CFR 273.9(d)(3)); the package counts only elderly or disabled members'. */
const MEDICAL: InputMapping[] = [
  { variable: 'other_medical_expenses', entity: 'people', input: 'snap_member_medical_expenses', combine: 'sum' },
  { variable: 'medical_expense_health_insurance_premiums', entity: 'people', input: 'snap_member_medical_expenses', combine: 'sum' },
  { variable: 'health_insurance_premiums', entity: 'people', input: 'snap_member_medical_expenses', combine: 'sum', replaced_by: ['medical_expense_health_insurance_premiums'] },
  ...(['health_insurance_premiums_without_medicare_part_b', 'medicare_part_b_premium'] as const).map(
    (variable): InputMapping => ({
      variable,
      entity: 'people',
      input: 'snap_member_medical_expenses',
      combine: 'sum',
      replaced_by: ['medical_expense_health_insurance_premiums', 'health_insurance_premiums'],
      note: variable === 'medicare_part_b_premium' ? 'a premium the member actually pays; none is imputed' : undefined,
    }),
  ),
];

/** Utility costs decide which standard utility allowance applies; their amounts do not matter. */
const UTILITIES: InputMapping[] = [
  { variable: 'heating_cooling_expense', entity: 'spm_units', input: 'snap_pays_heating_or_cooling_separately', combine: 'any_positive' },
  ...(['electricity_expense', 'gas_expense', 'water_expense', 'trash_expense', 'sewage_expense'] as const).map(
    (variable): InputMapping => ({ variable, entity: 'spm_units', input: 'snap_other_utility_count', combine: 'count_positive' }),
  ),
  { variable: 'phone_expense', entity: 'spm_units', input: 'snap_pays_telephone', combine: 'any_positive' },
];

/**
 * The time limit for able-bodied adults without dependents (7 USC 2015(o)(2); 7 CFR 273.24(b)):
 * a member is ineligible once three countable months in 36 are used without meeting the work
 * requirement. PolicyEngine-US keeps no count of months (it simulates one period at a time);
 * its work-requirement variables (below, in UNUSED) decide whether a member complies this
 * month, and it removes a non-complying member at once. No PolicyEngine-US variable says that
 * a member has used up the three months, so none can feed `snap_time_limit_exhausted`: the
 * endpoint takes the package input under its own name on a person, and the sidecar reports it.
 */
const TIME_LIMIT: InputMapping = {
  variable: 'snap_time_limit_exhausted',
  entity: 'people',
  input: 'snap_time_limit_exhausted',
  combine: 'flag',
  own: true,
  note: 'this service\'s own input (PolicyEngine-US has no variable for a used-up time limit): true for a member who has received benefits for three countable months in 36 without meeting the work requirement (7 CFR 273.24(b))',
};

/** PolicyEngine-US's work-requirement variables: this month's compliance, not a used-up time limit. */
const WORK_REQUIREMENT_STATUS = 'a work-requirement status for this month under PolicyEngine-US\'s model, which removes a non-complying adult at once; the time limit makes a member ineligible only after three countable months in 36 (7 USC 2015(o)(2); 7 CFR 273.24(b)), which no PolicyEngine-US variable counts. Give snap_time_limit_exhausted (this endpoint\'s own input) for a member who has used them up';

const FEDERAL_INPUTS: InputMapping[] = [
  { variable: 'age', entity: 'people', input: 'age', combine: 'value' },
  { variable: 'employment_income', entity: 'people', input: 'snap_earned_income', combine: 'sum' },
  { variable: 'self_employment_income', entity: 'people', input: 'snap_earned_income', combine: 'sum', note: 'net of the costs of producing it (7 CFR 273.11(a))' },
  { variable: 'farm_income', entity: 'people', input: 'snap_earned_income', combine: 'sum', note: 'farm self-employment income counts (7 CFR 273.11(a)); PolicyEngine-US leaves it out of SNAP' },
  ...PERSON_UNEARNED.map(([variable, replaced_by]): InputMapping => ({ variable, entity: 'people', input: 'snap_unearned_income', combine: 'sum', ...(replaced_by ? { replaced_by } : {}) })),
  { variable: 'tanf', entity: 'spm_units', input: 'snap_unearned_income', combine: 'sum' },
  { variable: 'tanf', entity: 'spm_units', input: 'snap_receives_tanf_or_ssi', combine: 'any_positive', note: 'TANF is paid to the whole unit (7 CFR 273.2(j)(2)(i))' },
  { variable: 'ssi', entity: 'people', input: 'snap_receives_tanf_or_ssi', combine: 'all_members_positive', note: 'basic categorical eligibility when every member receives SSI' },
  { variable: 'ssi', entity: 'people', input: 'snap_receives_ssi', combine: 'any_positive' },
  { variable: 'social_security_disability', entity: 'people', input: 'snap_receives_disability_payments', combine: 'any_positive' },
  ...(['is_permanently_disabled_veteran', 'is_surviving_spouse_of_disabled_veteran', 'is_surviving_child_of_disabled_veteran'] as const).map(
    (variable): InputMapping => ({ variable, entity: 'people', input: 'snap_member_is_disabled', combine: 'flag' }),
  ),
  { variable: 'child_support_expense', entity: 'people', input: 'snap_child_support_paid', combine: 'sum' },
  { variable: 'childcare_expenses', entity: 'spm_units', input: 'snap_dependent_care_costs', combine: 'sum' },
  { variable: 'care_expenses', entity: 'spm_units', input: 'snap_dependent_care_costs', combine: 'sum' },
  ...MEDICAL,
  ...SHELTER,
  ...UTILITIES,
  TIME_LIMIT,
];

/** From the benefit down to what it is computed from, so the last one that differs is the deepest cause. */
const OUTPUTS: OutputMapping[] = [
  { variable: 'snap', entity: 'spm_units', name: 'snap_allotment', kind: 'amount' },
  { variable: 'is_snap_eligible', entity: 'spm_units', name: 'snap_income_eligible', kind: 'flag', note: 'income eligibility; resources and non-financial tests are not encoded' },
  { variable: 'meets_snap_categorical_eligibility', entity: 'spm_units', name: 'snap_categorically_eligible', kind: 'flag' },
  { variable: 'meets_snap_net_income_test', entity: 'spm_units', name: 'snap_passes_net_income_test', kind: 'flag' },
  { variable: 'meets_snap_gross_income_test', entity: 'spm_units', name: 'snap_gross_income_test_met', kind: 'flag' },
  { variable: 'snap_max_allotment', entity: 'spm_units', name: 'snap_maximum_allotment', kind: 'amount' },
  { variable: 'snap_net_income', entity: 'spm_units', name: 'snap_net_income', kind: 'amount' },
  { variable: 'snap_excess_shelter_expense_deduction', entity: 'spm_units', name: 'snap_excess_shelter_deduction', kind: 'amount' },
  { variable: 'snap_utility_allowance', entity: 'spm_units', name: 'snap_utility_allowance', kind: 'amount' },
  { variable: 'snap_excess_medical_expense_deduction', entity: 'spm_units', name: 'snap_medical_deduction', kind: 'amount' },
  { variable: 'snap_standard_deduction', entity: 'spm_units', name: 'snap_standard_deduction', kind: 'amount' },
  { variable: 'snap_earned_income_deduction', entity: 'spm_units', name: 'snap_earned_income_deduction', kind: 'amount' },
  { variable: 'snap_dependent_care_deduction', entity: 'spm_units', name: 'snap_dependent_care_costs', from: 'input', kind: 'amount' },
  { variable: 'snap_child_support_deduction', entity: 'spm_units', name: 'snap_child_support_deduction', kind: 'amount' },
  { variable: 'snap_gross_income', entity: 'spm_units', name: 'snap_gross_income', kind: 'amount' },
  { variable: 'snap_earned_income', entity: 'spm_units', name: 'snap_earned_income', from: 'input', kind: 'amount' },
  { variable: 'snap_unearned_income', entity: 'spm_units', name: 'snap_unearned_income', from: 'input', kind: 'amount' },
  { variable: 'snap_unit_size', entity: 'spm_units', name: 'snap_unit_size', kind: 'count' },
];

const UNUSED: UnusedVariable[] = [
  {
    variable: 'is_disabled',
    entity: 'people',
    reason:
      'a general disability status; SNAP counts a member as disabled only under 7 USC 2012(j) (SSI, Social Security disability or blindness payments, the veterans\' and other listed benefits), which social_security_disability, ssi and the disabled-veteran variables carry',
  },
  {
    variable: 'weekly_hours_worked_before_lsr',
    entity: 'people',
    reason: 'hours decide whether a member meets the work requirement this month (7 CFR 273.7, 273.24(a)); the time limit turns on three countable months in 36 (7 CFR 273.24(b)), which this package takes as a fact (snap_time_limit_exhausted, this endpoint\'s own input), not from hours',
  },
  {
    variable: 'over_the_counter_health_expenses',
    entity: 'people',
    reason: 'over-the-counter costs count only when a licensed practitioner prescribes them (7 CFR 273.9(d)(3)(iv)); report those in other_medical_expenses',
  },
  { variable: 'is_blind', entity: 'people', reason: 'blindness counts through the payments it brings (7 USC 2012(j)(2)), which ssi and social_security_disability carry' },
  ...(['meets_snap_abawd_work_requirements', 'meets_snap_work_requirements_person', 'is_snap_abawd_exempt', 'is_subject_to_snap_abawd', 'is_in_snap_abawd_waived_area', 'weekly_snap_work_program_hours', 'is_snap_workfare_participant'] as const).map(
    (variable): UnusedVariable => ({ variable, entity: 'people', reason: WORK_REQUIREMENT_STATUS }),
  ),
];

/** New York's utility standards differ by region (18 NYCRR 387.12(f)(3)(v)): New York City, Nassau/Suffolk, the rest of the state. */
const NY_REGION: InputMapping = {
  variable: 'county',
  entity: 'households',
  input: 'ny_snap_utility_region',
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

function table(state: string, program_id: string, extra: InputMapping[] = []): MappingTable {
  return {
    engine: ENGINE,
    engine_version: ENGINE_VERSION,
    jurisdiction: `us-${state.toLowerCase()}`,
    program_id,
    state,
    inputs: [...FEDERAL_INPUTS, ...extra],
    outputs: OUTPUTS,
    unused: UNUSED,
  };
}

/** One table per state SNAP package. */
export const POLICYENGINE_US_SNAP: MappingTable[] = [table('CO', 'co-snap'), table('NY', 'ny-snap', [NY_REGION]), table('CA', 'ca-snap')];
