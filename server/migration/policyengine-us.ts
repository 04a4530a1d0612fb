import type { Combine, Condition, InputMapping, OutputMapping, UnusedVariable } from './mapping.js';

// What PolicyEngine-US (1.8xx) says about a household, whatever corpus its variables feed: its
// variables grouped by what they are for SNAP, their entities and definition periods (almost
// every input is a yearly variable, which the endpoint divides by 12 for the month it
// calculates; SNAP outputs are monthly), the aggregates that replace their components, and the
// variables it has that SNAP deliberately does not read. Each corpus's tables
// (policyengine-us-snap*.ts) say which package inputs these feed.

export const ENGINE = 'policyengine-us';
export const ENGINE_VERSION = '1.817.0';

type Row = Omit<InputMapping, 'input' | 'combine'>;

/** Earned income of a person (7 CFR 273.9(b)(1)). */
export const PERSON_EARNED: Row[] = [
  { variable: 'employment_income', entity: 'people' },
  { variable: 'self_employment_income', entity: 'people', note: 'net of the costs of producing it (7 CFR 273.11(a))' },
  { variable: 'farm_income', entity: 'people', note: 'farm self-employment income counts (7 CFR 273.11(a)); PolicyEngine-US leaves it out of SNAP' },
];

/** Unearned income of a person (7 CFR 273.9(b)(2)); aggregates replace their parts as in PolicyEngine-US. */
export const PERSON_UNEARNED: Row[] = (
  [
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
  ] as [string, string[]?][]
).map(([variable, replaced_by]) => ({ variable, entity: 'people', ...(replaced_by ? { replaced_by } : {}) }));

/** TANF is paid to the whole unit (7 CFR 273.2(j)(2)(i)). */
export const UNIT_UNEARNED: Row[] = [{ variable: 'tanf', entity: 'spm_units' }];

/** Shelter costs other than utilities (7 CFR 273.9(d)(6)(ii)(A)-(B)): `housing_cost`, when given, is their total. */
export const SHELTER: Row[] = [
  { variable: 'housing_cost', entity: 'spm_units' },
  ...['rent', 'real_estate_taxes'].map((variable): Row => ({ variable, entity: 'people', replaced_by: ['housing_cost'] })),
  ...['mortgage_payments', 'homeowners_insurance', 'homeowners_association_fees'].map((variable): Row => ({ variable, entity: 'spm_units', replaced_by: ['housing_cost'] })),
];

/** Medical costs of each member (7 CFR 273.9(d)(3)). */
export const MEDICAL: Row[] = [
  { variable: 'other_medical_expenses', entity: 'people' },
  { variable: 'medical_expense_health_insurance_premiums', entity: 'people' },
  { variable: 'health_insurance_premiums', entity: 'people', replaced_by: ['medical_expense_health_insurance_premiums'] },
  ...['health_insurance_premiums_without_medicare_part_b', 'medicare_part_b_premium'].map(
    (variable): Row => ({
      variable,
      entity: 'people',
      replaced_by: ['medical_expense_health_insurance_premiums', 'health_insurance_premiums'],
      ...(variable === 'medicare_part_b_premium' ? { note: 'a premium the member actually pays; none is imputed' } : {}),
    }),
  ),
];

/** Dependent care costs (7 CFR 273.9(d)(4)). */
export const DEPENDENT_CARE: Row[] = [
  { variable: 'childcare_expenses', entity: 'spm_units' },
  { variable: 'care_expenses', entity: 'spm_units' },
];

/** Utility bills other than heating or cooling, each counted once (7 CFR 273.9(d)(6)(iii)(C)). */
export const OTHER_UTILITIES = ['electricity_expense', 'gas_expense', 'water_expense', 'trash_expense', 'sewage_expense'] as const;

/** Receipt-based disability (7 USC 2012(j)): the payments and statuses PolicyEngine-US carries. */
export const DISABILITY_PAYMENTS = ['ssi', 'social_security_disability'] as const;
export const DISABLED_VETERAN_STATUSES = ['is_permanently_disabled_veteran', 'is_surviving_spouse_of_disabled_veteran', 'is_surviving_child_of_disabled_veteran'] as const;

/** An elderly or disabled member (7 USC 2012(j)): 60 or older, or receiving a listed disability payment. */
export const ELDERLY_AGE = 60;
export const ELDERLY_OR_DISABLED: Condition[] = [
  { variable: 'age', at_least: ELDERLY_AGE },
  ...DISABILITY_PAYMENTS.map((variable) => ({ variable, above: 0 })),
  ...DISABLED_VETERAN_STATUSES.map((variable) => ({ variable, equals: true })),
];

/** The rows that make an input true for an elderly or disabled member (person inputs), or for a unit with one (household inputs). */
export function elderlyOrDisabledRows(input: string): InputMapping[] {
  return [
    { variable: 'age', entity: 'people', input, combine: 'at_least', threshold: ELDERLY_AGE },
    ...DISABILITY_PAYMENTS.map((variable): InputMapping => ({ variable, entity: 'people', input, combine: 'any_positive' })),
    ...DISABLED_VETERAN_STATUSES.map((variable): InputMapping => ({ variable, entity: 'people', input, combine: 'flag' })),
  ];
}

/** Rows of a group, all feeding one input the same way. */
export const feeding = (rows: Row[], input: string, combine: Combine, extra: Partial<InputMapping> = {}): InputMapping[] => rows.map((r) => ({ ...r, input, combine, ...extra, ...(r.note && extra.note ? { note: `${r.note}; ${extra.note}` } : {}) }));

/**
 * The time limit for able-bodied adults without dependents (7 USC 2015(o)(2); 7 CFR 273.24(b)):
 * a member is ineligible once three countable months in 36 are used without meeting the work
 * requirement. PolicyEngine-US keeps no count of months (it simulates one period at a time);
 * its work-requirement variables (below, in UNUSED) decide whether a member complies this
 * month, and it removes a non-complying member at once. No PolicyEngine-US variable says that
 * a member has used up the three months, so none can feed the package: the endpoint takes
 * `snap_time_limit_exhausted` on a person under this service's own name, and the sidecar reports it.
 */
export const TIME_LIMIT_NOTE =
  "this service's own input (PolicyEngine-US has no variable for a used-up time limit): true for a member who has received benefits for three countable months in 36 without meeting the work requirement (7 CFR 273.24(b))";

/** PolicyEngine-US's work-requirement variables: this month's compliance, not a used-up time limit. */
const WORK_REQUIREMENT_STATUS =
  "a work-requirement status for this month under PolicyEngine-US's model, which removes a non-complying adult at once; the time limit makes a member ineligible only after three countable months in 36 (7 USC 2015(o)(2); 7 CFR 273.24(b)), which no PolicyEngine-US variable counts. Give snap_time_limit_exhausted (this endpoint's own input) for a member who has used them up";

export const UNUSED: UnusedVariable[] = [
  {
    variable: 'is_disabled',
    entity: 'people',
    reason:
      "a general disability status; SNAP counts a member as disabled only under 7 USC 2012(j) (SSI, Social Security disability or blindness payments, the veterans' and other listed benefits), which social_security_disability, ssi and the disabled-veteran variables carry",
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

/** Work hours, where a package does not read them. */
export const HOURS_UNUSED: UnusedVariable = {
  variable: 'weekly_hours_worked_before_lsr',
  entity: 'people',
  reason:
    "hours decide whether a member meets the work requirement this month (7 CFR 273.7, 273.24(a)); the time limit turns on three countable months in 36 (7 CFR 273.24(b)), which this package takes as a fact (snap_time_limit_exhausted, this endpoint's own input), not from hours",
};

/** PolicyEngine-US's SNAP outputs, from the benefit down to what it is computed from (so the last one that differs is the deepest cause), with their kinds. */
export const SNAP_OUTPUTS: Pick<OutputMapping, 'variable' | 'kind'>[] = [
  { variable: 'snap', kind: 'amount' },
  { variable: 'is_snap_eligible', kind: 'flag' },
  { variable: 'meets_snap_categorical_eligibility', kind: 'flag' },
  { variable: 'meets_snap_net_income_test', kind: 'flag' },
  { variable: 'meets_snap_gross_income_test', kind: 'flag' },
  { variable: 'snap_max_allotment', kind: 'amount' },
  { variable: 'snap_net_income', kind: 'amount' },
  { variable: 'snap_excess_shelter_expense_deduction', kind: 'amount' },
  { variable: 'snap_utility_allowance', kind: 'amount' },
  { variable: 'snap_excess_medical_expense_deduction', kind: 'amount' },
  { variable: 'snap_standard_deduction', kind: 'amount' },
  { variable: 'snap_earned_income_deduction', kind: 'amount' },
  { variable: 'snap_dependent_care_deduction', kind: 'amount' },
  { variable: 'snap_child_support_deduction', kind: 'amount' },
  { variable: 'snap_gross_income', kind: 'amount' },
  { variable: 'snap_earned_income', kind: 'amount' },
  { variable: 'snap_unearned_income', kind: 'amount' },
  { variable: 'snap_unit_size', kind: 'count' },
];

/** Outputs in SNAP_OUTPUTS' order, each answered by the rule (or input) named. */
export function outputs(names: Record<string, string | { name: string; from?: 'input'; note?: string }>): OutputMapping[] {
  return SNAP_OUTPUTS.filter((o) => o.variable in names).map((o) => {
    const target = names[o.variable];
    return { ...o, entity: 'spm_units', ...(typeof target === 'string' ? { name: target } : target) };
  });
}
