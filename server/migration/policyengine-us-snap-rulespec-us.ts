import type { InputMapping, MappingTable, OutputMapping, Presumption, TableFamily } from './mapping.js';
import {
  DEPENDENT_CARE,
  ELDERLY_AGE,
  ELDERLY_OR_DISABLED,
  elderlyOrDisabledRows,
  ENGINE,
  ENGINE_VERSION,
  feeding,
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

// PolicyEngine-US variables onto the public US RuleSpec corpus (TheAxiomFoundation/rulespec-us):
// its state SNAP programs compose the same federal modules (7 CFR 273.3-273.10 and 273.24, 7 USC
// 2012(j), the FY 2026 cost-of-living figures), so one federal table feeds every state's
// package by the federal inputs' legal ids; a state's table adds the inputs and rules its own
// modules declare (utility allowances, categorical eligibility, regions). A state no table
// here knows gets the federal table alone, and the sidecar lists every input of its package
// that nothing fed (`assumed_inputs` with no `fed_by`).

/** PolicyEngine-US deducts reported childcare without asking whether it is needed (its notes on the reference set). */
const DEPENDENT_CARE_NEEDED = 'PolicyEngine-US deducts all reported childcare without asking whether it is needed for work or training (7 CFR 273.9(d)(4)): the table takes reported care as needed';

/** 29 USC 206(a)(1)(C). */
const FEDERAL_MINIMUM_WAGE = 7.25;

const CORPUS = { repo: 'TheAxiomFoundation/rulespec-us', commit: 'c55778119c0dd208a5ea3366092a17d0b0392c8b' };

const cfr273 = (section: string, name: string) => `us:regulations/7-cfr/273/${section}#input.${name}`;
const DEDUCTIONS = (name: string) => cfr273('10', name);

/** PolicyEngine-US's immigration statuses that make a member eligible under 7 CFR 273.4(a), each feeding its input. */
const IMMIGRATION: [string, string][] = [
  ['CITIZEN', 'member_is_us_citizen'],
  ['REFUGEE', 'member_is_refugee'],
  ['ASYLEE', 'member_is_asylee'],
  ['DEPORTATION_WITHHELD', 'member_has_deportation_or_removal_withheld'],
  ['CUBAN_HAITIAN_ENTRANT', 'member_is_cuban_or_haitian_entrant'],
];

/**
 * The duties of a work registrant (7 CFR 273.7(a)(1)): registering, taking part in E&T or
 * workfare when assigned, reporting, accepting suitable work. PolicyEngine-US treats every member
 * as complying (is_snap_work_registration_noncompliant, false unless given).
 */
const WORK_REGISTRANT_DUTIES = [
  'member_registered_for_work_or_registered_by_state',
  'member_participated_in_snap_et_if_assigned',
  'member_participated_in_workfare_if_assigned',
  'member_provided_employment_status_or_availability_information',
  'member_reported_to_referred_suitable_employer_if_referred',
  'member_accepted_bona_fide_suitable_employment_offer_if_offered',
];

const FEDERAL: MappingTable = {
  name: 'rulespec-us federal',
  engine: ENGINE,
  engine_version: ENGINE_VERSION,
  corpus: CORPUS,
  scope: 'federal',
  inputs: [
    // the household lives in the state whose package calculates it (7 CFR 273.3)
    ...['state_code', 'state_name'].map(
      (variable): InputMapping => ({ variable, entity: 'households', input: cfr273('3', 'household_lives_in_application_state'), combine: 'map', otherwise: { value: true }, note: 'the state whose package is calculated' }),
    ),
    // each member: age, immigration status, work, elderly or disabled status
    { variable: 'age', entity: 'people', input: cfr273('7', 'member_age'), combine: 'value' },
    { variable: 'age', entity: 'people', input: cfr273('5', 'student_age'), combine: 'value' },
    { variable: 'age', entity: 'people', input: 'us:statutes/7/2014/d#input.person_age', combine: 'value' },
    { variable: 'age', entity: 'people', input: 'us:statutes/7/2015/e#input.person_age_years', combine: 'value' },
    ...IMMIGRATION.map(
      ([status, input]): InputMapping => ({ variable: 'immigration_status', entity: 'people', input: cfr273('4', input), combine: 'map', values: { [status]: true }, otherwise: { value: false }, engine_default: 'CITIZEN' }),
    ),
    ...WORK_REGISTRANT_DUTIES.map((input): InputMapping => ({ variable: 'is_snap_work_registration_noncompliant', entity: 'people', input: cfr273('7', input), combine: 'not', engine_default: false })),
    { variable: 'weekly_hours_worked_before_lsr', entity: 'people', input: cfr273('7', 'member_weekly_work_hours'), combine: 'value' },
    { variable: 'weekly_hours_worked_before_lsr', entity: 'people', input: cfr273('24', 'member_abawd_weekly_work_hours'), combine: 'value' },
    { variable: 'weekly_hours_worked_before_lsr', entity: 'people', input: 'us:statutes/7/2015/e#input.employed_hours_per_week', combine: 'value' },
    ...feeding(PERSON_EARNED, cfr273('7', 'member_weekly_wages'), 'sum', { per: 'week' }),
    { variable: 'unemployment_compensation', entity: 'people', input: cfr273('7', 'member_receiving_or_applying_for_unemployment_compensation_and_complying'), combine: 'any_positive', note: 'a member receiving unemployment compensation is exempt from work registration (7 CFR 273.7(b)(1)(v))' },
    ...['member_physically_or_mentally_unfit_for_employment', 'member_medically_certified_physically_or_mentally_unfit_for_employment'].map(
      (name): InputMapping => ({
        variable: 'is_disabled',
        entity: 'people',
        input: cfr273(name.startsWith('member_medically') ? '24' : '7', name),
        combine: 'flag',
        note: 'PolicyEngine-US exempts a disabled member from the work requirements (7 CFR 273.7(b)(1)(ii), 273.24(c)(2)); for the elderly or disabled status of 7 USC 2012(j) it counts only the payments that status rests on',
      }),
    ),
    { variable: 'is_pregnant', entity: 'people', input: cfr273('24', 'member_is_pregnant'), combine: 'flag' },
    {
      variable: 'snap_time_limit_exhausted',
      entity: 'people',
      input: cfr273('24', 'snap_abawd_countable_months_in_three_year_period'),
      combine: 'flag',
      as: 4,
      own: true,
      note: `${TIME_LIMIT_NOTE}; the package counts the months used, so a member past the limit is given four (7 CFR 273.24(b)(1): three countable months in 36)`,
    },
    ...elderlyOrDisabledRows('us:statutes/7/2012/j#input.snap_member_is_elderly_or_disabled'),
    // the unit's income and deductions (7 CFR 273.10(e)(1))
    ...feeding(PERSON_EARNED, DEDUCTIONS('snap_gross_monthly_earned_income'), 'sum'),
    ...feeding([...PERSON_UNEARNED, ...UNIT_UNEARNED], DEDUCTIONS('snap_total_monthly_unearned_income'), 'sum'),
    ...feeding(MEDICAL, DEDUCTIONS('snap_total_medical_expenses'), 'sum', { when: ELDERLY_OR_DISABLED, note: 'an elderly or disabled member\'s costs only (7 CFR 273.9(d)(3))' }),
    ...elderlyOrDisabledRows(DEDUCTIONS('household_entitled_to_excess_medical_deduction')),
    ...feeding(DEPENDENT_CARE, DEDUCTIONS('snap_allowable_monthly_dependent_care_expenses'), 'sum'),
    { variable: 'child_support_expense', entity: 'people', input: DEDUCTIONS('snap_allowable_monthly_child_support_payments'), combine: 'sum' },
    // shelter costs other than utilities, where the state binds the federal slot to its own input
    ...feeding(SHELTER, DEDUCTIONS('snap_total_allowable_shelter_expenses'), 'sum'),
    // which standard utility allowance applies (7 CFR 273.9(d)(6)(iii))
    { variable: 'heating_cooling_expense', entity: 'spm_units', input: cfr273('9/d/6/iii', 'household_incurs_heating_or_cooling_expenses_separately_from_rent_or_mortgage'), combine: 'any_positive' },
    ...[...OTHER_UTILITIES, 'phone_expense'].map((variable): InputMapping => ({ variable, entity: 'spm_units', input: cfr273('9/d/6/iii', 'limited_utility_allowance_utility_count'), combine: 'count_positive' })),
  ],
  presumed: [
    ...[cfr273('7', 'federal_or_state_minimum_wage'), cfr273('5', 'federal_minimum_wage')].map((input) => ({
      input,
      value: FEDERAL_MINIMUM_WAGE,
      reason:
        'the federal minimum wage, $7.25 an hour (29 USC 206(a)(1)(C)), which a work registrant earning 30 times it a week is exempt at (7 CFR 273.7(b)(1)(vii), 273.5(b)(5)); the package reads it as an input, 0 unless given. Where a state\'s minimum wage is higher, the exemption is reached at lower earnings here than under that state\'s',
    })),
  ],
  size_excludes: {
    variable: 'snap_time_limit_exhausted',
    reason: 'a member past the time limit is not counted in the household size (7 CFR 273.11(c)(1)), which the package takes as given',
  },
  outputs: outputs({
    snap: 'snap_benefit',
    is_snap_eligible: 'snap_eligible',
    meets_snap_net_income_test: 'us:regulations/7-cfr/273/9#snap_standard_net_income_eligible',
    meets_snap_gross_income_test: 'us:regulations/7-cfr/273/9#snap_standard_gross_income_eligible',
    snap_max_allotment: 'us:policies/usda/snap/fy-2026-cola/maximum-allotments#snap_maximum_allotment',
    snap_net_income: 'us:regulations/7-cfr/273/10#snap_net_monthly_income',
    snap_excess_shelter_expense_deduction: 'us:regulations/7-cfr/273/10#snap_excess_shelter_deduction_for_net_income',
    snap_excess_medical_expense_deduction: 'us:regulations/7-cfr/273/10#snap_excess_medical_deduction_for_net_income',
    snap_standard_deduction: 'us:policies/usda/snap/fy-2026-cola/deductions#snap_standard_deduction',
    snap_earned_income_deduction: 'us:regulations/7-cfr/273/10#snap_earned_income_deduction_for_net_income',
    snap_dependent_care_deduction: 'snap_allowable_monthly_dependent_care_expenses',
    snap_child_support_deduction: 'snap_allowable_monthly_child_support_payments',
    snap_gross_income: 'us:regulations/7-cfr/273/10#snap_total_gross_income',
    snap_earned_income: 'snap_gross_monthly_earned_income',
    snap_unearned_income: 'snap_total_monthly_unearned_income',
    snap_unit_size: { name: 'household_size', from: 'input' },
  }),
  unused: UNUSED.filter((u) => u.variable !== 'is_disabled'),
};

/** A state's table: the inputs, presumptions and rules its own modules add to the federal table's. */
function stateTable(state: string, parts: { inputs?: InputMapping[]; presumed?: Presumption[]; outputs?: Parameters<typeof outputs>[0] }): MappingTable {
  return {
    name: `rulespec-us ${state}`,
    engine: ENGINE,
    engine_version: ENGINE_VERSION,
    corpus: CORPUS,
    scope: state,
    inputs: parts.inputs ?? [],
    presumed: parts.presumed ?? [],
    outputs: parts.outputs ? outputs(parts.outputs) : ([] as OutputMapping[]),
    unused: [],
  };
}

/** Each other utility bill feeding one yes/no input (paid separately from rent or mortgage). */
const utilities = (input: string, variables: readonly string[] = OTHER_UTILITIES): InputMapping[] => variables.map((variable) => ({ variable, entity: 'spm_units', input, combine: 'any_positive' }));

/** Child support paid excluded from income (7 CFR 273.9(c)(17)) instead of deducted (273.9(d)(5)), in a state that takes the option. */
const childSupportExcluded = (citation: string): InputMapping => ({
  variable: 'child_support_expense',
  entity: 'people',
  input: DEDUCTIONS('snap_income_exclusions'),
  combine: 'sum',
  instead_of: DEDUCTIONS('snap_allowable_monthly_child_support_payments'),
  note: `the state excludes legally obligated child support paid from income (7 CFR 273.9(c)(17); ${citation})`,
});

// ---- California: the CDSS CalFresh composition ------------------------------------------------

const CDSS = 'us-ca:policies/cdss/snap';
const CA = stateTable('CA', {
  inputs: [
    { variable: 'heating_cooling_expense', entity: 'spm_units', input: `${CDSS}/standard-utility-allowance#input.household_has_heating_and_cooling_costs_separate_from_rent_or_mortgage`, combine: 'any_positive' },
    childSupportExcluded('CDSS ACL 06-31; MPP 63-502.2(p)'),
  ],
  presumed: [
    {
      input: `${CDSS}/modified-categorical-eligibility#input.household_was_issued_pub_275`,
      value: true,
      reason:
        "California confers modified categorical eligibility through the PUB 275 notice it gives applicant households (WIC 18901.5; CDSS ACL 14-56); PolicyEngine-US applies California's broad-based categorical eligibility to every household",
    },
  ],
  outputs: {
    meets_snap_categorical_eligibility: `${CDSS}/modified-categorical-eligibility#calfresh_mce_status_conferred`,
    snap_utility_allowance: `${CDSS}/standard-utility-allowance#snap_standard_utility_allowance`,
  },
});

// ---- Colorado: 10 CCR 2506-1 and the CDHS composition ----------------------------------------

const CCR = (section: string, name: string) => `us-co:regulations/10-ccr-2506-1/${section}#input.${name}`;
const CDHS = (name: string) => `us-co:policies/cdhs/snap/fy-2026-benefit-calculation#input.${name}`;
/** Unearned income by the heads of 10 CCR 2506-1 4.404. */
const CO_UNEARNED: [string, string[]][] = [
  ['assistance_payments', ['ssi', 'general_assistance']],
  ['retirement_disability_payments', ['social_security', 'social_security_retirement', 'social_security_disability', 'social_security_survivors', 'social_security_dependents', 'pension_income', 'taxable_pension_income', 'tax_exempt_pension_income', 'veterans_benefits', 'disability_benefits', 'workers_compensation', 'retirement_distributions', 'survivor_benefits']],
  ['direct_support_and_alimony_payments', ['child_support_received', 'alimony_income']],
  ['other_gain_or_benefit_payments', ['unemployment_compensation', 'total_unemployment_compensation', 'dividend_income', 'qualified_dividend_income', 'non_qualified_dividend_income', 'interest_income', 'taxable_interest_income', 'tax_exempt_interest_income', 'rental_income', 'miscellaneous_income']],
];
const CO = stateTable('CO', {
  inputs: [
    ...feeding(PERSON_EARNED, CDHS('snap_countable_earned_income'), 'sum'),
    ...CO_UNEARNED.flatMap(([input, variables]) => feeding(PERSON_UNEARNED.filter((r) => variables.includes(r.variable)), CCR('4.404', input), 'sum')),
    ...feeding(UNIT_UNEARNED, CCR('4.404', 'assistance_payments'), 'sum'),
    ...feeding(MEDICAL, CDHS('total_medical_expenses'), 'sum', { when: ELDERLY_OR_DISABLED, note: "an elderly or disabled member's costs only (7 CFR 273.9(d)(3))" }),
    ...feeding(SHELTER, CDHS('household_shelter_costs_incurred'), 'sum'),
    ...feeding(DEPENDENT_CARE, CCR('4.407.4', 'dependent_care_expenses_paid'), 'sum'),
    ...DEPENDENT_CARE.map((r): InputMapping => ({ ...r, input: CCR('4.407.4', 'dependent_care_expense_necessary_for_work_or_training'), combine: 'any_positive', note: DEPENDENT_CARE_NEEDED })),
    { variable: 'child_support_expense', entity: 'people', input: CCR('4.407.5', 'estimated_monthly_child_support_paid'), combine: 'sum' },
    { variable: 'child_support_expense', entity: 'people', input: CCR('4.407.5', 'child_support_payment_verified'), combine: 'any_positive', note: 'PolicyEngine-US takes a reported payment as verified' },
    { variable: 'heating_cooling_expense', entity: 'spm_units', input: CCR('4.407.31', 'household_incurred_or_anticipated_heating_or_cooling_costs_separate_from_rent_or_mortgage'), combine: 'any_positive' },
    ...utilities(CCR('4.407.31', 'household_pays_electricity_utility_cost'), ['electricity_expense']),
    ...utilities(CCR('4.407.31', 'household_pays_cooking_fuel_utility_cost'), ['gas_expense']),
    ...utilities(CCR('4.407.31', 'household_pays_water_utility_cost'), ['water_expense']),
    ...utilities(CCR('4.407.31', 'household_pays_sewer_utility_cost'), ['sewage_expense']),
    ...utilities(CCR('4.407.31', 'household_pays_trash_utility_cost'), ['trash_expense']),
    ...utilities(CCR('4.407.31', 'household_pays_telephone_service_cost'), ['phone_expense']),
    { variable: 'tanf', entity: 'spm_units', input: CCR('4.401', 'snap_basic_categorical_eligible'), combine: 'any_positive', note: 'TANF is paid to the whole unit (7 CFR 273.2(j)(2)(i))' },
    { variable: 'ssi', entity: 'people', input: CCR('4.401', 'snap_basic_categorical_eligible'), combine: 'all_members_positive', note: 'basic categorical eligibility when every member receives SSI' },
  ],
  presumed: [
    {
      input: CCR('4.401', 'snap_expanded_categorical_eligible'),
      value: true,
      reason: "Colorado extends categorical eligibility to households that receive its TANF-funded benefit (10 CCR 2506-1 4.206, 4.401.1), within its gross income limit; PolicyEngine-US applies Colorado's broad-based categorical eligibility to every household",
    },
    {
      input: CCR('4.408.1', 'real_property_actual_value_reported_by_county_assessor'),
      value: true,
      reason:
        "PolicyEngine-US counts no real property among a household's resources; at its defaults the package divides a real property's assessed valuation by an assessment rate, both 0 (10 CCR 2506-1 4.408.1(B)), so the county assessor's actual value (0 unless given) is used instead",
    },
  ],
  outputs: {
    snap_unearned_income: 'us-co:regulations/10-ccr-2506-1/4.404#snap_countable_unearned_income',
  },
});

// ---- New York: 18 NYCRR 387 and the OTDA composition ------------------------------------------

const NYCRR = (section: string, name: string) => `us-ny:regulations/18-nycrr/387/${section}#input.${name}`;
const NYC_COUNTIES = ['BRONX_COUNTY_NY', 'KINGS_COUNTY_NY', 'NEW_YORK_COUNTY_NY', 'QUEENS_COUNTY_NY', 'RICHMOND_COUNTY_NY'];
/** New York's utility standards differ by region (18 NYCRR 387.12(f)(3)(v)): New York City, Nassau/Suffolk, the rest of the state. */
const region = (input: string, counties: string[]): InputMapping => ({
  variable: 'county',
  entity: 'households',
  input,
  combine: 'map',
  values: Object.fromEntries(counties.map((c) => [c, true])),
  otherwise: { suffix: '_NY', value: false },
});
const NY = stateTable('NY', {
  inputs: [
    ...feeding(SHELTER, 'us-ny:policies/otda/snap/fy-2026-benefit-calculation#input.household_shelter_costs_incurred', 'sum'),
    region(NYCRR('12/f/3/v/a', 'household_resides_in_new_york_city'), NYC_COUNTIES),
    region(NYCRR('12/f/3/v/a', 'household_resides_in_nassau_or_suffolk_county'), ['NASSAU_COUNTY_NY', 'SUFFOLK_COUNTY_NY']),
    { variable: 'heating_cooling_expense', entity: 'spm_units', input: NYCRR('12/f/3/v/a', 'household_incurred_or_anticipated_heating_or_cooling_costs_separate_from_rent_or_mortgage'), combine: 'any_positive' },
    ...utilities(NYCRR('12/f/3/v/b', 'household_billed_separately_for_non_telephone_standard_utility')),
    ...utilities(NYCRR('12/f/3/v/c', 'household_incurred_or_anticipated_basic_service_cost_for_one_telephone'), ['phone_expense']),
    // the routes to categorical eligibility (18 NYCRR 387.14(a)(5))
    ...PERSON_EARNED.map((r): InputMapping => ({ ...r, input: NYCRR('14/a/5', 'household_has_earned_income_budgeted_for_snap'), combine: 'any_positive' })),
    ...DEPENDENT_CARE.map((r): InputMapping => ({ ...r, input: NYCRR('14/a/5', 'household_has_out_of_pocket_dependent_care_expenses'), combine: 'any_positive' })),
    ...['ssi', 'general_assistance'].map((variable): InputMapping => ({ variable, entity: 'people', input: NYCRR('14/a/5', 'member_receives_family_assistance_nonemergency_safety_net_or_ssi_benefits'), combine: 'any_positive' })),
    childSupportExcluded('18 NYCRR 387.9(a); SNAP State Options Report, 17th edition'),
  ],
  outputs: {
    meets_snap_categorical_eligibility: 'us-ny:regulations/18-nycrr/387/14/a/5#ny_snap_categorically_eligible',
  },
});

// ---- Arizona: DES FAA5 (Nutrition Assistance) -------------------------------------------------

const FAA5 = (path: string, name: string) => `us-az:policies/des/faa5/${path}#input.${name}`;
const AZ_UTILITY = 'na-utility-expenses-and-allowances/utility-allowance-eligibility';
const AZ_CARE = 'dependent-care-expense/na-dependent-care';
const AZ = stateTable('AZ', {
  inputs: [
    // utilities: billed separately and obligated to pay them (FAA5 NA Utility Expenses and Allowances)
    ...['heating_cooling_expense', ...OTHER_UTILITIES, 'phone_expense'].flatMap((variable) =>
      ['budgetary_unit_billed_separately_for_utility_expenses', 'budgetary_unit_obligated_to_pay_allowable_utility_expenses', 'budgetary_unit_has_verified_allowable_utility_expenses'].map(
        (input): InputMapping => ({ variable, entity: 'spm_units', input: FAA5(AZ_UTILITY, input), combine: 'any_positive', ...(input.includes('verified') ? { note: 'PolicyEngine-US takes reported bills as verified' } : {}) }),
      ),
    ),
    { variable: 'heating_cooling_expense', entity: 'spm_units', input: FAA5(AZ_UTILITY, 'budgetary_unit_obligated_to_pay_heating_or_cooling_expense_separately_from_rent_or_mortgage_on_regular_basis'), combine: 'any_positive' },
    ...OTHER_UTILITIES.map((variable): InputMapping => ({ variable, entity: 'spm_units', input: FAA5(AZ_UTILITY, 'budgetary_unit_obligated_to_pay_at_least_two_non_heating_or_non_cooling_utility_expenses'), combine: 'count_at_least', threshold: 2 })),
    // dependent care paid for a child (FAA5 dependent care expense)
    ...feeding(DEPENDENT_CARE, FAA5(AZ_CARE, 'billed_dependent_care_expense_amount'), 'sum'),
    ...['billed_for_dependent_care', 'care_recipient_is_dependent_child', 'necessary_to_seek_accept_or_continue_employment'].flatMap((input) =>
      DEPENDENT_CARE.map((r): InputMapping => ({ ...r, input: FAA5(AZ_CARE, input), combine: 'any_positive', engine_default: 0, ...(input.startsWith('necessary') ? { note: DEPENDENT_CARE_NEEDED } : {}) })),
    ),
    { variable: 'age', entity: 'people', input: FAA5('na-utility-expenses-and-allowances/utility-allowance-eligibility', 'budgetary_unit_has_participant_who_is_elderly_or_has_disability'), combine: 'at_least', threshold: ELDERLY_AGE },
  ],
});

// ---- Massachusetts: 106 CMR 360-366 -----------------------------------------------------------

const MA = stateTable('MA', {
  inputs: [childSupportExcluded('106 CMR 363.230(O)')],
});

// ---- Georgia: DFCS SNAP policy manual ---------------------------------------------------------

const DFCS = (section: string, name: string) => `us-ga:policies/dfcs/snap/${section}#input.${name}`;
const GA = stateTable('GA', {
  inputs: [
    // dependent care (DFCS 3615): the cost, for a child, needed to work
    ...feeding(DEPENDENT_CARE, DFCS('3615', 'monthly_dependent_care_costs_incurred_or_billed_to_au'), 'sum'),
    ...['dependent_care_recipient_is_child', 'expense_is_dependent_care_cost', 'necessary_for_au_member_to_search_for_accept_or_continue_employment'].flatMap((input) =>
      DEPENDENT_CARE.map((r): InputMapping => ({ ...r, input: DFCS('3615', input), combine: 'any_positive', ...(input.startsWith('necessary') ? { note: DEPENDENT_CARE_NEEDED } : {}) })),
    ),
  ],
});

/** PolicyEngine-US onto the public US corpus. */
export const POLICYENGINE_US_SNAP_RULESPEC_US: TableFamily = {
  name: 'rulespec-us',
  corpus: CORPUS,
  federal: FEDERAL,
  states: [AZ, CA, CO, GA, MA, NY],
};
