import { valueIn } from '../../server/migration/wire.js';
import type { ReferenceCase } from '../../server/migration/reference.js';

// Where PolicyEngine-US deliberately departs from the statute (its documented modelling
// choices, noted in the reference set), each with the rule of law we follow instead and a test
// that recognises it in one household's values. A difference with none of these is explained
// by the rule that produced our value (see compare.ts).

export interface Departure {
  id: string;
  /** The variables it moves. */
  variables: string[];
  engine: string;
  law: string;
  applies(c: ReferenceCase, ours: Record<string, unknown>, month: string): boolean;
}

const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);
const unitOf = (c: ReferenceCase) => Object.values(c.situation.spm_units ?? {})[0] ?? {};
const members = (c: ReferenceCase) => {
  const unit = unitOf(c);
  const ids = Array.isArray(unit.members) ? unit.members.map(String) : Object.keys(c.situation.people ?? {});
  return ids.map((id) => c.situation.people?.[id] ?? {});
};
const given = (entity: Record<string, unknown>, variable: string, month: string) => valueIn(entity[variable], month);

export const POLICYENGINE_DEPARTURES: Departure[] = [
  {
    id: 'always-standard-utility-allowance',
    variables: ['snap_utility_allowance', 'snap_excess_shelter_expense_deduction', 'snap_net_income', 'snap'],
    engine: 'PolicyEngine-US gives every Colorado, New York and California household the full heating and cooling standard utility allowance ("heat and eat"), whatever its bills.',
    law:
      'Since Pub. L. 119-21 section 10103 (7 USC 2014(e)(6)(C)(iv)(I)), an energy assistance payment confers that standard only on a household with an elderly or disabled member; other households need a heating or cooling cost of their own (10 CCR 2506-1 4.407.31; 18 NYCRR 387.12(f)(3)(v); CDSS ACIN I-46-25).',
    applies: (c, ours, month) => {
      const heating = given(unitOf(c), 'heating_cooling_expense', month);
      return num(c.expected.snap_utility_allowance) > num(ours.snap_utility_allowance) && !(heating && num(heating.value) > 0);
    },
  },
  {
    id: 'time-limit-applied-at-once',
    variables: ['snap_unit_size', 'snap_max_allotment', 'snap_gross_income', 'snap_earned_income', 'snap_unearned_income', 'snap_net_income', 'is_snap_eligible', 'snap'],
    engine:
      'PolicyEngine-US removes a non-working adult without dependents from the SNAP unit at once and prorates the household\'s income and shelter costs.',
    law:
      'The time limit applies only after 3 countable months in 36 (7 USC 2015(o)(2); 7 CFR 273.24(b)), which the household states with snap_time_limit_exhausted; an ineligible member\'s income still counts in full (7 CFR 273.11(c)(1)).',
    applies: (c, ours) => num(c.expected.snap_unit_size) < num(ours.snap_unit_size),
  },
  {
    id: 'imputed-medicare-part-b-premium',
    variables: ['snap_excess_medical_expense_deduction', 'snap_net_income', 'snap', 'is_snap_eligible', 'meets_snap_net_income_test'],
    engine: 'PolicyEngine-US imputes a Medicare Part B premium (about $202.90 a month) for every member 65 or older whose premium is not given, and counts it as a medical cost.',
    law: 'Only medical costs the household actually incurs count (7 USC 2014(e)(5); 7 CFR 273.9(d)(3)); a premium not reported is not deducted.',
    applies: (c, ours, month) =>
      num(c.expected.snap_excess_medical_expense_deduction) > num(ours.snap_excess_medical_expense_deduction) &&
      members(c).some((p) => num(given(p, 'age', month)?.value) >= 65 && !given(p, 'medicare_part_b_premium', month)),
  },
  {
    id: 'benefit-not-rounded',
    variables: ['snap'],
    engine: 'PolicyEngine-US subtracts 30 percent of net income without rounding, so its benefit can carry cents.',
    law: 'The 30 percent of net income is rounded up to the next whole dollar before it is subtracted (7 CFR 273.10(e)(2)(ii)(A)), which lowers the benefit by less than $1.',
    applies: (c, ours) => {
      const d = num(c.expected.snap) - num(ours.snap);
      return d > 0 && d < 1 && !Number.isInteger(num(c.expected.snap));
    },
  },
  {
    id: 'negative-gross-income',
    variables: ['snap_gross_income'],
    engine: 'PolicyEngine-US lets Colorado\'s child support exclusion take gross income below zero.',
    law: 'An exclusion removes income; it cannot make income negative (7 CFR 273.9(c)(17)), so gross income stops at 0.',
    applies: (c, ours) => num(c.expected.snap_gross_income) < 0 && num(ours.snap_gross_income) === 0,
  },
];
