import { afterAll, describe, expect, test } from 'vitest';
import { formulaText } from '../../../compiler/diff/formula-text.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { builtPackage } from '../bundled.js';
import { removeTempTrees } from '../demo.js';
import { DEMO_MODULE, demoSide } from './demo-program.js';

// Lowered formulas written back as RuleSpec text: names for references, operators grouped only
// where the lowered tree needs it.

afterAll(removeTempTrees);

const text = (formula: string, name = 'demo_reduction') => {
  const side = demoSide(DEMO_MODULE.replace('formula: demo_countable_income / 2', `formula: ${JSON.stringify(formula)}`));
  const exec = side.package.executable;
  const rule = exec.rules[exec.ruleByName.get(name)!];
  return formulaText(exec, rule.versions[0].expr);
};

describe('formulas written back', () => {
  test('arithmetic keeps the grouping the tree has, and drops what it does not need', () => {
    expect(text('(demo_countable_income - 1) * 2')).toBe('(demo_countable_income - 1) * 2');
    expect(text('demo_countable_income - (demo_earned_income - 3)')).toBe('demo_countable_income - (demo_earned_income - 3)');
    expect(text('(demo_countable_income - demo_earned_income) - 3')).toBe('demo_countable_income - demo_earned_income - 3');
    expect(text('demo_countable_income / (2 * demo_standard_amount)')).toBe('demo_countable_income / (2 * demo_standard_amount)');
    expect(text('-demo_countable_income + max(1, floor(demo_earned_income))')).toBe('-demo_countable_income + max(1, floor(demo_earned_income))');
  });

  test('conditions and branches', () => {
    expect(text("if demo_earned_income > 10 and not (demo_work_expenses > 0 or demo_earned_income == 3): 1 elif demo_earned_income <= 2: 2 else: 3")).toBe(
      'if demo_earned_income > 10 and not (demo_work_expenses > 0 or demo_earned_income == 3): 1 elif demo_earned_income <= 2: 2 else: 3',
    );
  });

  test('tables, relations and judgments of the bundled Colorado package', () => {
    const exec = new LoadedPackage(builtPackage('us-co/co-snap').pkg).executable;
    const of = (name: string) => formulaText(exec, exec.rules[exec.ruleByName.get(name)!].versions.at(-1)!.expr);
    expect(of('snap_standard_deduction')).toBe('snap_standard_deduction_table[min(snap_unit_size, 6)]');
    expect(of('snap_unit_size')).toBe('household_size - count_where(member_of_household, snap_time_limit_exhausted)');
    expect(of('snap_allowable_medical_expenses')).toBe('snap_elderly_or_disabled_medical_expenses + sum_where(member_of_household, snap_member_medical_expenses, snap_member_is_elderly_or_disabled)');
    expect(of('snap_income_eligible')).toBe('snap_categorically_eligible or snap_gross_income_test_met and snap_passes_net_income_test');
    expect(of('snap_categorically_eligible')).toBe('not snap_categorical_eligibility_barred and (snap_receives_tanf_or_ssi or co_snap_expanded_categorical_eligible)');
  });
});
