import { MEDICAL, PERSON_EARNED, PERSON_UNEARNED, SHELTER } from '../../server/migration/policyengine-us.js';
import { isObj, valueIn, type WireHousehold } from '../../server/migration/wire.js';

// Where PolicyEngine-US deliberately departs from the statute (its documented modelling
// choices, noted in the reference set), each with the rule of law we follow instead and, as
// data beside the citation, its counterfactual: the change that makes our law-following
// engine do what PolicyEngine-US does for one household. `rules validate` applies the
// counterfactuals of the departures a difference may come from and calls the difference
// explained only when our recomputed values land on PolicyEngine-US's (prove.ts): a departure
// is never taken on trust from the shape of a difference.

/** Our values of the compared variables for one household, by external variable name. */
export type Values = Record<string, unknown>;

export type Counterfactual =
  | {
      /**
       * The household itself is changed, in the external engine's wire format, and calculated
       * again through the migration tables (in-process or on a daemon alike).
       */
      via: 'household';
      /** What is changed, for the report. */
      change: string;
      /**
       * Package inputs set under their own names because no external variable carries the
       * fact (the endpoint accepts them and lists them in `sidecar.own_inputs`).
       */
      own_inputs?: string[];
      /** Changes `situation` in place; false when it does not concern the household. */
      apply(situation: WireHousehold, month: string): boolean;
    }
  | {
      /**
       * A formula of the external engine, not an input: no change to a household reproduces
       * it, so the external formula is recomputed from our own intermediates.
       */
      via: 'recompute';
      change: string;
      /** The values with the external formula applied; undefined when it changes nothing. */
      apply(values: Values, situation: WireHousehold, month: string): Values | undefined;
    };

export interface Departure {
  id: string;
  /** The variables it moves. */
  variables: string[];
  engine: string;
  law: string;
  counterfactual: Counterfactual;
}

// ---- reading and changing a wire household -------------------------------------------------

type Entity = Record<string, unknown>;

const unitOf = (s: WireHousehold): Entity => Object.values(s.spm_units ?? {})[0] ?? {};
const memberIds = (s: WireHousehold): string[] => {
  const unit = unitOf(s);
  return Array.isArray(unit.members) ? unit.members.map(String) : Object.keys(s.people ?? {});
};
const stateOf = (s: WireHousehold, month: string): unknown => {
  const household = Object.values(s.households ?? {})[0];
  return household ? valueIn(household.state_code, month)?.value ?? valueIn(household.state_name, month)?.value : undefined;
};
/** A number given for `month` (a yearly value as given; callers compare or scale it). */
const given = (entity: Entity | undefined, variable: string, month: string): number | undefined => {
  const found = entity ? valueIn(entity[variable], month) : undefined;
  return typeof found?.value === 'number' ? found.value : undefined;
};
const flag = (entity: Entity | undefined, variable: string, month: string): boolean => (entity ? valueIn(entity[variable], month)?.value === true : false);
const monthly = (entity: Entity | undefined, variable: string, month: string): number => {
  const found = entity ? valueIn(entity[variable], month) : undefined;
  return typeof found?.value === 'number' ? (found.yearly ? found.value / 12 : found.value) : 0;
};
/** Multiplies every value a variable is given for. */
function scale(entity: Entity, variable: string, factor: number): void {
  const values = entity[variable];
  if (typeof values === 'number') entity[variable] = values * factor;
  else if (isObj(values)) for (const [period, v] of Object.entries(values)) if (typeof v === 'number') values[period] = v * factor;
}
const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);
const cents = (n: number) => Math.round(n * 100) / 100;

/** The amounts each member carries that the tables add up (incomes and expenses), and the unit's shelter costs. */
const PERSON_AMOUNTS = [...PERSON_EARNED, ...PERSON_UNEARNED, ...MEDICAL, ...SHELTER, { variable: 'child_support_expense', entity: 'people' }].filter((r) => r.entity === 'people').map((r) => r.variable);
const UNIT_SHELTER = SHELTER.filter((r) => r.entity === 'spm_units').map((r) => r.variable);

// ---- PolicyEngine-US 1.817's time-limit test --------------------------------------------------

/** States whose time limit PolicyEngine-US waives statewide in the month (California through 2026-01-31). */
const WAIVED: Record<string, string> = { CA: '2026-01' };
const ABAWD_AGES = [18, 64] as const; // 7 USC 2015(o)(3)(A) as amended by P.L. 119-21 section 10102
const CHILD_UNDER = 14; // ibid.: a household member under 14 exempts the adults
const WORK_HOURS = 20; // 7 USC 2015(o)(2): 20 hours a week

/**
 * The members PolicyEngine-US removes at once: adults 18 to 64, in a unit with no member under
 * 14, neither disabled (is_disabled, SSI, Social Security disability) nor pregnant nor receiving
 * unemployment compensation, working (with work-program hours) under 20 hours a week, outside a
 * waived state.
 */
function timeLimited(s: WireHousehold, month: string): string[] {
  const ids = memberIds(s);
  const people = (id: string) => s.people?.[id] as Entity | undefined;
  const state = String(stateOf(s, month) ?? '').toUpperCase();
  if (WAIVED[state] && month <= WAIVED[state]) return [];
  if (ids.some((id) => (given(people(id), 'age', month) ?? 0) < CHILD_UNDER)) return [];
  return ids.filter((id) => {
    const p = people(id);
    const age = given(p, 'age', month);
    if (age === undefined || age < ABAWD_AGES[0] || age > ABAWD_AGES[1]) return false;
    if (flag(p, 'is_disabled', month) || flag(p, 'is_pregnant', month)) return false;
    if (['ssi', 'social_security_disability', 'unemployment_compensation'].some((v) => (given(p, v, month) ?? 0) > 0)) return false;
    return (given(p, 'weekly_hours_worked_before_lsr', month) ?? 0) + (given(p, 'weekly_snap_work_program_hours', month) ?? 0) < WORK_HOURS;
  });
}

// ---- the departures ----------------------------------------------------------------------------

/** States where PolicyEngine-US 1.817 excludes child support paid from gross income (its snap_child_support_gross_income_deduction). */
const PE_EXCLUDES = new Set(['AL', 'AZ', 'CO', 'FL', 'GA', 'MA']);

/** States where PolicyEngine-US 1.817 always gives the heating and cooling allowance (gov.usda.snap.income.deductions.utility.always_standard). */
const HEAT_AND_EAT = new Set(['CO', 'NY', 'CA', 'MA']);

/** The 2026 standard Medicare Part B premium PolicyEngine-US imputes (CMS, 2026 Part B premium). */
const PART_B_PREMIUM_2026 = 202.9;
const ELDERLY_AGE = 60; // 7 USC 2012(j)(1)

export const POLICYENGINE_DEPARTURES: Departure[] = [
  {
    id: 'always-standard-utility-allowance',
    variables: ['snap_utility_allowance', 'snap_excess_shelter_expense_deduction', 'snap_net_income', 'meets_snap_net_income_test', 'meets_snap_categorical_eligibility', 'is_snap_eligible', 'snap'],
    engine: 'PolicyEngine-US gives every Colorado, New York, California and Massachusetts household the full heating and cooling standard utility allowance ("heat and eat"), whatever its bills; elsewhere the allowance follows the bills reported.',
    law:
      'Since Pub. L. 119-21 section 10103 (7 USC 2014(e)(6)(C)(iv)(I)), an energy assistance payment confers that standard only on a household with an elderly or disabled member; other households need a heating or cooling cost of their own (10 CCR 2506-1 4.407.31; 18 NYCRR 387.12(f)(3)(v); CDSS ACIN I-46-25; 106 CMR 364.400(G)).',
    counterfactual: {
      via: 'household',
      change: 'the SPM unit reports a heating or cooling cost (heating_cooling_expense $1 a month) when it reports none, in a state where PolicyEngine-US always gives the allowance',
      apply(s, month) {
        if (!HEAT_AND_EAT.has(String(stateOf(s, month) ?? '').toUpperCase())) return false;
        const unit = unitOf(s);
        if ((given(unit, 'heating_cooling_expense', month) ?? 0) > 0) return false;
        unit.heating_cooling_expense = { [month]: 1 };
        return true;
      },
    },
  },
  {
    id: 'time-limit-applied-at-once',
    variables: [
      'snap_unit_size', 'snap_max_allotment', 'snap_gross_income', 'snap_earned_income', 'snap_unearned_income', 'snap_standard_deduction', 'snap_child_support_deduction',
      'snap_excess_shelter_expense_deduction', 'snap_excess_medical_expense_deduction', 'snap_net_income', 'meets_snap_gross_income_test', 'meets_snap_net_income_test',
      'meets_snap_categorical_eligibility', 'is_snap_eligible', 'snap',
    ],
    engine:
      'PolicyEngine-US removes at once every adult 18 to 64 without a member under 14 in the unit who is not disabled, pregnant or receiving unemployment compensation and works under 20 hours a week (California waived through January 2026). Of k removed members in a unit of n, it counts their incomes and expenses at (n - k)/n, the unit\'s shelter costs at 1 - k/n² (none when nobody remains), and no longer counts them as elderly.',
    law:
      'The time limit applies only after 3 countable months in 36 (7 USC 2015(o)(2); 7 CFR 273.24(b)), which the household states with snap_time_limit_exhausted; an ineligible member\'s income still counts in full and its shelter costs are the household\'s (7 CFR 273.11(c)(1)); a unit whose members are all excluded is not eligible.',
    counterfactual: {
      via: 'household',
      change:
        'each member PolicyEngine-US removes is marked snap_time_limit_exhausted; their incomes and expenses are multiplied by (n - k)/n, the unit\'s shelter costs by 1 - k/n² (by 0 when nobody remains), and a removed member aged 60 to 64 is given as 59 so that it no longer makes the unit elderly',
      own_inputs: ['snap_time_limit_exhausted'],
      apply(s, month) {
        const removed = timeLimited(s, month);
        if (!removed.length) return false;
        const n = memberIds(s).length;
        const k = removed.length;
        for (const id of removed) {
          const person = s.people![id] as Entity;
          person.snap_time_limit_exhausted = { [month]: true };
          for (const v of PERSON_AMOUNTS) if (v in person) scale(person, v, (n - k) / n);
          if ((given(person, 'age', month) ?? 0) >= ELDERLY_AGE) person.age = { [month]: ELDERLY_AGE - 1 };
        }
        const unit = unitOf(s);
        for (const v of UNIT_SHELTER) if (v in unit) scale(unit, v, k === n ? 0 : 1 - k / n ** 2);
        return true;
      },
    },
  },
  {
    id: 'imputed-medicare-part-b-premium',
    variables: ['snap_excess_medical_expense_deduction', 'snap_excess_shelter_expense_deduction', 'snap_net_income', 'meets_snap_net_income_test', 'meets_snap_categorical_eligibility', 'is_snap_eligible', 'snap'],
    engine: `PolicyEngine-US imputes the Medicare Part B premium ($${PART_B_PREMIUM_2026.toFixed(2)} a month in 2026) for every member 65 or older whose premium is not given, and counts it as a medical cost.`,
    law: 'Only medical costs the household actually incurs count (7 USC 2014(e)(5); 7 CFR 273.9(d)(3)); a premium not reported is not deducted.',
    counterfactual: {
      via: 'household',
      change: `each member 65 or older without a medicare_part_b_premium pays $${PART_B_PREMIUM_2026.toFixed(2)} a month`,
      apply(s, month) {
        let changed = false;
        for (const id of memberIds(s)) {
          const person = s.people?.[id] as Entity | undefined;
          if (!person || (given(person, 'age', month) ?? 0) < 65 || valueIn(person.medicare_part_b_premium, month)) continue;
          person.medicare_part_b_premium = { [month]: PART_B_PREMIUM_2026 };
          changed = true;
        }
        return changed;
      },
    },
  },
  {
    id: 'benefit-not-rounded',
    variables: ['snap'],
    engine:
      'PolicyEngine-US drops the cents of net income and subtracts 30 percent of the whole dollars unrounded: benefit = maximum allotment - 0.3 × floor(net income) (at least the minimum allotment for one or two people), so it carries cents. It is above ours by ceil(0.3 × N) - 0.3 × floor(N) for a net income N: $1.00 for N = 330.60 (ours 100, its 99.00), $1.20 for N = 1,236.70 (ours 372, its 370.80), never $1.30 or more.',
    law:
      'Net income keeps its cents or is rounded to the nearest dollar (7 CFR 273.10(e)(1)(ii)), never cut down; 30 percent of it is rounded up to the next whole dollar before it is subtracted, or the allotment is rounded down (7 CFR 273.10(e)(2)(ii)(A)(1)). Ours rounds the 30 percent up; a gap under the tolerance is shown with --tolerance 0.',
    counterfactual: {
      via: 'recompute',
      change: 'snap recomputed from our maximum allotment and net income as max_allotment - 0.3 × floor(net income), keeping our minimum allotment where it applies',
      apply(values) {
        const [snap, max, net] = [num(values.snap), num(values.snap_max_allotment), num(values.snap_net_income)];
        if (!(snap > 0) || !Number.isFinite(max) || !Number.isFinite(net)) return undefined;
        const ours = Math.max(0, max - Math.ceil(cents(net * 0.3)));
        const theirs = Math.max(0, cents(max - 0.3 * Math.floor(net)));
        // our snap above the regular amount is the minimum allotment, which both engines keep
        const recomputed = snap > ours ? Math.max(snap, theirs) : theirs;
        return recomputed === snap ? undefined : { ...values, snap: recomputed };
      },
    },
  },
  {
    id: 'child-support-treatment',
    variables: ['snap_gross_income', 'snap_child_support_deduction'],
    engine: `PolicyEngine-US 1.817 excludes the child support members pay from gross income in ${[...PE_EXCLUDES].join(', ')} and deducts it from net income in the other states.`,
    law:
      'Each state chooses (7 CFR 273.9(c)(17) or 273.9(d)(5)): Alabama, Arizona, Florida and Georgia deduct it (SNAP State Options Report, 17th edition); California (CDSS ACL 06-31), Colorado (10 CCR 2506-1 4.407.5(A)), Massachusetts (106 CMR 363.230(O)) and New York exclude it. Net income is the same either way; gross income is not.',
    counterfactual: {
      via: 'recompute',
      change: 'where PolicyEngine-US excludes what we deduct, snap_gross_income less our child support deduction and the deduction 0; where it deducts what we exclude, snap_gross_income plus the support the members pay and the deduction that support',
      apply(values, s, month) {
        const state = String(stateOf(s, month) ?? '').toUpperCase();
        const deduction = num(values.snap_child_support_deduction);
        const gross = num(values.snap_gross_income);
        if (!Number.isFinite(gross) || !Number.isFinite(deduction)) return undefined;
        if (PE_EXCLUDES.has(state)) return deduction > 0 ? { ...values, snap_gross_income: cents(gross - deduction), snap_child_support_deduction: 0 } : undefined;
        const paid = cents(memberIds(s).reduce((sum, id) => sum + monthly(s.people?.[id] as Entity | undefined, 'child_support_expense', month), 0));
        return deduction === 0 && paid > 0 ? { ...values, snap_gross_income: cents(gross + paid), snap_child_support_deduction: paid } : undefined;
      },
    },
  },
  {
    id: 'negative-gross-income',
    variables: ['snap_gross_income'],
    engine: 'PolicyEngine-US lets a state\'s child support exclusion (Colorado\'s, Massachusetts\') take gross income below zero.',
    law: 'An exclusion removes income; it cannot make income negative (7 CFR 273.9(c)(17)), so gross income stops at 0.',
    counterfactual: {
      via: 'recompute',
      change: 'snap_gross_income recomputed as earned + unearned income - the child support the members pay (monthly), without stopping at 0, where our gross income is 0 and the support is excluded from it (no child support deduction)',
      apply(values, s, month) {
        if (values.snap_gross_income !== 0 || num(values.snap_child_support_deduction) !== 0) return undefined;
        const paid = memberIds(s).reduce((sum, id) => sum + monthly(s.people?.[id] as Entity | undefined, 'child_support_expense', month), 0);
        const gross = cents(num(values.snap_earned_income) + num(values.snap_unearned_income) - paid);
        return gross < 0 ? { ...values, snap_gross_income: gross } : undefined;
      },
    },
  },
];
