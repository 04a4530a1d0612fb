import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { compare, type Validation } from '../../../cli/validate/compare.js';
import { POLICYENGINE_DEPARTURES, type Departure } from '../../../cli/validate/departures.js';
import { localRunner, type Runner } from '../../../cli/validate/runner.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import { SNAP_OUTPUTS } from '../../../server/migration/policyengine-us.js';
import { loadReferences, type ReferenceSet } from '../../../server/migration/reference.js';
import { bundledOutput } from '../../support/app.js';
import { PROJECT } from '../../support/paths.js';

// The counterfactual proof on bundled reference households, calculated by the bundled
// packages: a difference is explained only when the departures applied to the household land on
// the reference values, by the fewest departures that do; a departure that does not reproduce
// the difference leaves it to be located: a finding in the rule whose value differs first, or,
// when it starts in a value the mapping tables fed, unexplained with that diagnosis.

const all = loadReferences([path.join(PROJECT, 'fixtures', 'validation', 'policyengine-snap-2026-01.json')]);
let runner: Runner;
beforeAll(() => {
  runner = localRunner(Catalog.load(bundledOutput(), 'compiled'), 'the bundled encodings');
});

async function validate(ids: string[], options: { tolerance?: number; departures?: Departure[]; change?: (expected: Record<string, unknown>) => void } = {}): Promise<Validation> {
  const refs: ReferenceSet = { ...all, cases: structuredClone(all.cases.filter((c) => ids.includes(c.id))) };
  refs.cases.forEach((c) => options.change?.(c.expected));
  const variables = SNAP_OUTPUTS.map((o) => o.variable);
  const outcomes = await Promise.all(refs.cases.map((c) => runner.run(c, variables, refs.period)));
  return compare(refs, outcomes, { tolerance: options.tolerance ?? 2, departures: options.departures ?? POLICYENGINE_DEPARTURES, runner, period: refs.period });
}

describe('explained: the counterfactual lands on every compared variable', () => {
  test('a Colorado household without heating costs (pe-g0019) differs only in its utility allowance', async () => {
    const [c] = (await validate(['pe-g0019'])).cases;
    expect(c.differences.map((d) => d.variable)).toEqual(['snap_utility_allowance']);
    expect(c.proof).toMatchObject({ class: 'explained', attributed: ['always-standard-utility-allowance'], proved_by: ['always-standard-utility-allowance'] });
    expect(c.proof!.attempts).toEqual([{ departures: ['always-standard-utility-allowance'], differences: [] }]);
    expect(c.reference).toBeUndefined();
  });

  test('a New York household of one past the time limit (pe-g0005): ineligible, $0, through our own input', async () => {
    const v = await validate(['pe-g0005']);
    expect(v.cases[0].values).toMatchObject({ snap_unit_size: 1, is_snap_eligible: true });
    expect(v.cases[0].proof).toMatchObject({ class: 'explained', proved_by: ['always-standard-utility-allowance', 'time-limit-applied-at-once'] });
    // each alone leaves something; all three together land, and so do the two without the rounding
    const attempts = v.cases[0].proof!.attempts;
    expect(v.cases[0].proof!.attributed).toEqual(['always-standard-utility-allowance', 'time-limit-applied-at-once', 'benefit-not-rounded']);
    expect(attempts.filter((a) => a.departures.length === 1).every((a) => a.differences.length > 0)).toBe(true);
    expect(attempts.filter((a) => a.differences.length === 0).map((a) => a.departures.length)).toEqual([3, 2]);
    expect(v.by_departure.find((d) => d.id === 'time-limit-applied-at-once')).toEqual({ id: 'time-limit-applied-at-once', explained: 1, unexplained: 0 });
  });

  test('--tolerance 0: the $1.00 rounding gap (pe-c0023, net income 330.60) is a difference, proved by benefit-not-rounded', async () => {
    const loose = await validate(['pe-c0023']);
    expect(loose.cases[0].status).toBe('match');
    const [c] = (await validate(['pe-c0023'], { tolerance: 0 })).cases;
    expect(c.differences).toEqual([{ variable: 'snap', ours: 1689, reference: 1690, delta: -1 }]);
    expect(c.proof).toMatchObject({ class: 'explained', proved_by: ['benefit-not-rounded'] });
  });

  test('the proof is the fewest departures: rounding joins the utility allowance only at --tolerance 0 (pe-g0007)', async () => {
    const at2 = (await validate(['pe-g0007'])).cases[0].proof!;
    const at0 = (await validate(['pe-g0007'], { tolerance: 0 })).cases[0].proof!;
    expect(at2.proved_by).toEqual(['always-standard-utility-allowance']);
    expect(at0.proved_by).toEqual(['always-standard-utility-allowance', 'benefit-not-rounded']);
  });
});

describe('not explained: nothing proves a departure that does not reproduce the difference', () => {
  test('a reference value no departure gives (the utility allowance 600, not the standard 594): a finding in the rule that computes it, with what is left', async () => {
    const v = await validate(['pe-g0019'], { change: (e) => (e.snap_utility_allowance = 600) });
    const [c] = v.cases;
    expect(c.proof).toMatchObject({ class: 'finding', attributed: ['always-standard-utility-allowance'], proved_by: [] });
    expect(c.proof!.attempts[0].differences).toEqual([{ variable: 'snap_utility_allowance', ours: 594, reference: 600, delta: -6 }]);
    // located with the departure applied (what it left), in the Colorado rule, with its source and formula
    expect(c.proof!.finding).toMatchObject({
      variable: 'snap_utility_allowance',
      rule: expect.stringMatching(/^us-co:.*#snap_utility_allowance$/),
      source: expect.stringContaining('4.407.31'),
      formula: expect.any(String),
      ours: 594,
      reference: 600,
      departures: ['always-standard-utility-allowance'],
      also: [],
    });
    expect(c.first_difference).toMatchObject({ variable: 'snap_utility_allowance', rule: expect.stringMatching(/^us-co:.*#snap_utility_allowance$/) });
    expect(c.reference).toMatchObject({ snap_utility_allowance: 600 });
    const row = v.rows.find((r) => r.variable === 'snap_utility_allowance')!;
    expect(row).toMatchObject({ different: 1, explained: 0, findings: 1, unexplained: 0 });
    expect(v.by_departure.find((d) => d.id === 'always-standard-utility-allowance')).toMatchObject({ explained: 0, unexplained: 1 });
  });

  test('a wrongly attributed departure (a counterfactual that changes the household but not the cause) is not taken on trust', async () => {
    const wrong: Departure = {
      id: 'telephone',
      variables: ['snap_utility_allowance'],
      engine: 'a made-up departure',
      law: 'none',
      counterfactual: {
        via: 'household',
        change: 'a telephone bill',
        apply(s) {
          Object.values(s.spm_units!)[0].phone_expense = { '2026': 600 };
          return true;
        },
      },
    };
    const [c] = (await validate(['pe-g0019'], { departures: [wrong] })).cases;
    expect(c.proof).toMatchObject({ class: 'finding', attributed: ['telephone'], proved_by: [] });
    expect(c.proof!.attempts[0].differences.map((d) => d.variable)).toEqual(['snap_utility_allowance']);
  });

  test('a difference no departure concerns, in a rule whose compared inputs agree, is a finding without an attempt (pe-c0001, its standard deduction recorded as 123)', async () => {
    const [c] = (await validate(['pe-c0001'], { change: (e) => (e.snap_standard_deduction = 123) })).cases;
    expect(c.proof).toMatchObject({ class: 'finding', attributed: [], proved_by: [], attempts: [] });
    expect(c.proof!.finding).toMatchObject({ rule: 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction', source: expect.stringMatching(/^7 USC 2014\(e\)\(1\)/), ours: 299, reference: 123, departures: [] });
    expect(c.first_difference).toEqual({ variable: 'snap_standard_deduction', rule: 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction', source: expect.stringMatching(/^7 USC 2014\(e\)\(1\)/) });
  });

  test('a difference that starts in a value the tables fed the package is unexplained, with that diagnosis (pe-c0001, its earned income recorded 100 higher)', async () => {
    const [c] = (await validate(['pe-c0001'], { change: (e) => (e.snap_earned_income = Number(e.snap_earned_income) + 100) })).cases;
    expect(c.proof).toMatchObject({ class: 'unexplained', attributed: [], proved_by: [] });
    expect(c.proof!.finding).toBeUndefined();
    expect(c.proof!.diagnosis).toMatch(/^snap_earned_income is the value the mapping tables fed us-co\/co-snap's input snap_earned_income .*the difference starts in the mapping, not in a rule$/);
  });

  test('a finding beneath which another compared rule differs is not the first: the deeper rule is (pe-c0001, standard deduction and net income both off)', async () => {
    const [c] = (await validate(['pe-c0001'], { change: (e) => ((e.snap_standard_deduction = 123), (e.snap_net_income = Number(e.snap_net_income) + 50)) })).cases;
    expect(c.proof!.finding).toMatchObject({ variable: 'snap_standard_deduction', rule: expect.stringMatching(/#snap_standard_deduction$/) });
  });
});
