import { afterAll, describe, expect, test } from 'vitest';
import { planDiff } from '../../../compiler/diff/plan.js';
import type { DiffSide } from '../../../compiler/diff/program-side.js';
import { HouseholdComparer, type SideError } from '../../../compiler/diff/household.js';
import { calculate } from '../../../compiler/runtime/calculate.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { generateHouseholds } from '../../../bench/households.mjs';
import { builtPackage } from '../bundled.js';
import { removeTempTrees } from '../demo.js';
import { DEMO, DEMO_MODULE, demoSide } from './demo-program.js';

// Root causes on the hand-built demo program, where each answer follows from the formulas by
// hand (see demo-program.ts), and the shared evaluation checked against independent ones.

afterAll(removeTempTrees);

const errorOf = (): SideError => ({ code: 'runtime_error', message: 'failed' });

function comparer(base: DiffSide, reform: DiffSide, set: string[] = []): HouseholdComparer {
  const plan = planDiff(base, reform, { set });
  return new HouseholdComparer(plan.base, plan.reform, plan.variables, 10_000, errorOf);
}

const household = (income: number, expenses = 0) => ({ period: '2026-01', facts: { demo_earned_income: income, demo_work_expenses: expenses } });
const causeIds = (c: HouseholdComparer, income: number, expenses = 0) => c.compare(household(income, expenses), 1).root_causes.map((r) => r.legal_id);

describe('root causes', () => {
  const base = demoSide();

  test('a changed parameter: the rule reading it, with both values, both citations and the parameter', () => {
    // 100 → 120: income 100 gives a reduction of 50 either way, the benefit 50 → 70
    const c = comparer(base, demoSide(DEMO_MODULE.replace("formula: '100'", "formula: '120'")));
    const h = c.compare(household(100), 7);
    expect(h.changed).toBe(true);
    expect(h.outputs.demo_benefit).toEqual({ baseline: 50, reform: 70, difference: 20, changed: true });
    expect(h.outputs.demo_eligible).toEqual({ baseline: true, reform: true, difference: null, changed: false });
    expect(h.root_causes).toEqual([
      {
        legal_id: `${DEMO}#demo_benefit`,
        name: 'demo_benefit',
        kind: 'rule',
        entity: 'household',
        baseline: 50,
        reform: 70,
        baseline_sources: ['Demo Act 2(b)'],
        reform_sources: ['Demo Act 2(b)'],
        because: ['parameter'],
        parameters: [{ legal_id: `${DEMO}#demo_standard_amount`, name: 'demo_standard_amount', baseline: '100', reform: '120', baseline_sources: ['Demo Act 1(a)'], reform_sources: ['Demo Act 1(a)'] }],
      },
    ]);
    // income 300: a reduction of 150 leaves no benefit either way: unchanged, no cause
    const none = c.compare(household(300), 8);
    expect(none.changed).toBe(false);
    expect(none.root_causes).toEqual([]);
  });

  test('a changed formula: that rule, not what it reads nor what reads it', () => {
    // half → a quarter of countable income: income 100 reduces by 25, the benefit 50 → 75
    const c = comparer(base, demoSide(DEMO_MODULE.replace('demo_countable_income / 2', 'demo_countable_income / 4')));
    const h = c.compare(household(100), 1);
    expect(h.outputs.demo_benefit.difference).toBe(25);
    expect(h.root_causes).toMatchObject([{ legal_id: `${DEMO}#demo_reduction`, baseline: 50, reform: 25, because: ['formula'], parameters: [] }]);
  });

  test('an added rule: the new rule (no baseline value), not the formula that now reads it', () => {
    // an earnings disregard of up to 20 subtracted from countable income: income 100 counts 80,
    // reduces by 40, the benefit 50 → 60
    const reform = DEMO_MODULE.replace('max(0, demo_earned_income - demo_work_expenses)', 'max(0, demo_earned_income - demo_work_expenses - demo_earnings_disregard)').replace(
      '  - name: demo_reduction',
      `  - name: demo_earnings_disregard
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    source: Demo Act 1(c)
    versions:
      - effective_from: '2025-01-01'
        formula: min(demo_earned_income, 20)
  - name: demo_reduction`,
    );
    const c = comparer(base, demoSide(reform));
    const h = c.compare(household(100), 1);
    expect(h.outputs.demo_benefit).toMatchObject({ baseline: 50, reform: 60, difference: 10 });
    expect(h.root_causes).toMatchObject([{ legal_id: `${DEMO}#demo_earnings_disregard`, baseline: null, reform: 20, because: ['added'], baseline_sources: [], reform_sources: ['Demo Act 1(c)'] }]);
  });

  test('an added rule the household never reaches is no cause of its change', () => {
    // the reduction becomes a third of countable income up to earnings of 1,000 (above that, half
    // plus a new fee): income 100 reduces by 33.33…, not 50, and never evaluates the fee
    const reform = DEMO_MODULE.replace('formula: demo_countable_income / 2', "formula: 'if demo_earned_income > 1000: demo_countable_income / 2 + demo_new_fee else: demo_countable_income / 3'").replace(
      '  - name: demo_benefit',
      `  - name: demo_new_fee
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    versions:
      - effective_from: '2025-01-01'
        formula: '5'
  - name: demo_benefit`,
    );
    const h = comparer(base, demoSide(reform)).compare(household(100), 1);
    expect(h.changed).toBe(true);
    expect(h.root_causes.map((c) => [c.name, c.because])).toEqual([['demo_reduction', ['formula']]]);
  });

  test('a removed input: the formula that read it, and the household keeps calculating on both sides', () => {
    // work expenses no longer count: income 100 with expenses 40 counts 100 instead of 60,
    // reduces by 50 instead of 30, the benefit 70 → 50
    const reform = DEMO_MODULE.replace('max(0, demo_earned_income - demo_work_expenses)', 'max(0, demo_earned_income)').replace(
      `  - name: demo_work_expenses
    entity: Household
    dtype: Money
    unit: USD
    default: 0
`,
      '',
    );
    const plan = planDiff(base, demoSide(reform));
    expect(plan.rules.inputs).toMatchObject([{ name: 'demo_work_expenses', change: 'removed', entity: 'Household' }]);
    const c = new HouseholdComparer(plan.base, plan.reform, plan.variables, 10_000, errorOf);
    const h = c.compare(household(100, 40), 1);
    expect(h.errors).toEqual({});
    expect(h.outputs.demo_benefit).toMatchObject({ baseline: 70, reform: 50, difference: -20 });
    expect(h.root_causes).toMatchObject([{ legal_id: `${DEMO}#demo_countable_income`, baseline: 60, reform: 100, because: ['formula'] }]);
    expect(h.warnings).toEqual(['household.facts.demo_work_expenses: not an input of the reform (only the baseline reads it); left out there']);
  });

  test('an input whose default changed: the input itself', () => {
    // the default of work expenses 0 → 30: income 100 with no expenses given counts 70, reduces
    // by 35, the benefit 50 → 65
    const reform = DEMO_MODULE.replace(/(name: demo_work_expenses[\s\S]*?default: )0/, '$130');
    const c = comparer(base, demoSide(reform));
    const h = c.compare({ period: '2026-01', facts: { demo_earned_income: 100 } }, 1);
    expect(h.outputs.demo_benefit).toMatchObject({ baseline: 50, reform: 65 });
    expect(h.root_causes).toMatchObject([{ legal_id: `${DEMO}#input.demo_work_expenses`, name: 'demo_work_expenses', kind: 'input', baseline: 0, reform: 30, because: ['input'] }]);
  });

  test('--set on the parameter gives what editing it gives', () => {
    const edited = comparer(base, demoSide(DEMO_MODULE.replace("formula: '100'", "formula: '120'")));
    const set = comparer(base, base, [`${DEMO}#demo_standard_amount=120`]);
    for (const income of [0, 50, 100, 199, 240, 300]) {
      const [a, b] = [edited.compare(household(income), 1), set.compare(household(income), 1)];
      expect(b.outputs).toEqual(a.outputs);
      expect(b.root_causes.map((r) => [r.legal_id, r.baseline, r.reform])).toEqual(a.root_causes.map((r) => [r.legal_id, r.baseline, r.reform]));
    }
    expect(causeIds(set, 100)).toEqual([`${DEMO}#demo_benefit`]);
  });

  test('a parameter asked for as an output is its own root cause', () => {
    const plan = planDiff(base, base, { set: [`${DEMO}#demo_standard_amount=120`], variables: ['demo_standard_amount', 'demo_benefit'] });
    const c = new HouseholdComparer(plan.base, plan.reform, plan.variables, 10_000, errorOf);
    const h = c.compare(household(300), 1);
    // income 300: the benefit stays 0 (a reduction of 150 exceeds either amount); the parameter moves
    expect(h.outputs).toEqual({ demo_standard_amount: { baseline: 100, reform: 120, difference: 20, changed: true }, demo_benefit: { baseline: 0, reform: 0, difference: 0, changed: false } });
    expect(h.root_causes).toMatchObject([{ legal_id: `${DEMO}#demo_standard_amount`, kind: 'parameter', baseline: 100, reform: 120, because: ['parameter'] }]);
  });

  test('one side failing where the other calculates is a change; failing alike is not', () => {
    // the reform's formula divides by the earned income: zero income fails there only
    const c = comparer(base, demoSide(DEMO_MODULE.replace('demo_countable_income / 2', 'demo_countable_income / demo_earned_income')));
    const h = c.compare(household(0), 3);
    expect(h.changed).toBe(true);
    expect(h.errors).toEqual({ reform: { code: 'runtime_error', message: 'failed' } });
    expect(h.root_causes).toEqual([]);
  });
});

describe('the reform reuses the baseline where nothing it reads changed', () => {
  test('only the rules a parameter reaches are not shared', () => {
    const base = demoSide();
    const c = comparer(base, base, [`${DEMO}#demo_standard_amount=120`]);
    // countable income and the reduction are shared; the benefit and eligibility read the parameter
    expect(c.sharedCount).toBe(2);
  });

  test('shared values give the same outputs as calculating each side alone (the bundled Colorado package, 400 households)', () => {
    const pkg = builtPackage('us-co/co-snap').pkg;
    const base = new LoadedPackage(pkg);
    const id = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
    const plan = planDiff(base, base, { set: [`${id}[3]=259`, `${id}[5]=400`] });
    const c = new HouseholdComparer(plan.base, plan.reform, plan.variables, 10_000, errorOf);
    expect(c.sharedCount).toBeGreaterThan(10);
    let changed = 0;
    for (const [k, h] of generateHouseholds(pkg, 400, 11).entries()) {
      const d = c.compare(h, k + 1);
      const alone = (loaded: LoadedPackage) => {
        try {
          return calculate(loaded, { household: h, variables: plan.variables }, { trace: false }).outputs;
        } catch {
          return undefined;
        }
      };
      const [b, r] = [alone(plan.base.loaded), alone(plan.reform.loaded)];
      if (!b || !r) {
        expect(d.errors.baseline !== undefined).toBe(!b);
        expect(d.errors.reform !== undefined).toBe(!r);
        continue;
      }
      expect(Object.fromEntries(Object.entries(d.outputs).map(([n, o]) => [n, o.baseline]))).toEqual(b);
      expect(Object.fromEntries(Object.entries(d.outputs).map(([n, o]) => [n, o.reform]))).toEqual(r);
      if (d.changed) {
        changed++;
        expect(d.root_causes.map((x) => x.name)).toEqual(['snap_standard_deduction']);
      }
    }
    expect(changed).toBeGreaterThan(10);
  });
});
