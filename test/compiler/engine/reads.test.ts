import { describe, expect, test } from 'vitest';
import { readsOf } from '../../../compiler/engine/reads.js';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { builtPackage } from '../bundled.js';

// What a formula reads, on the entity it is evaluated for and on related entities, from the
// bundled Colorado package's lowered rules.

const exec = new LoadedPackage(builtPackage('us-co/co-snap').pkg).executable;
const names = (indexes: Set<number>, of: 'rules' | 'parameters') => [...indexes].map((i) => exec[of][i].name).sort();
const reads = (name: string) => {
  const r = readsOf(exec, exec.rules[exec.ruleByName.get(name)!].versions.at(-1)!.expr);
  return { rules: names(r.rules, 'rules'), memberRules: names(r.memberRules, 'rules'), params: names(r.params, 'parameters'), inputs: [...r.inputs].sort(), memberInputs: [...r.memberInputs].sort(), relations: [...r.relations].map((i) => exec.relations[i].name) };
};

describe('what a formula reads', () => {
  test('rules, parameters (with the rules in their keys) and inputs of its own entity', () => {
    expect(reads('snap_standard_deduction')).toEqual({ rules: ['snap_unit_size'], memberRules: [], params: ['snap_standard_deduction_table'], inputs: [], memberInputs: [], relations: [] });
    expect(reads('snap_gross_income')).toEqual({ rules: ['snap_child_support_income_exclusion'], memberRules: [], params: [], inputs: ['snap_earned_income', 'snap_unearned_income'], memberInputs: [], relations: [] });
  });

  test("an aggregation reads its value and condition on the relation's members", () => {
    expect(reads('snap_allowable_medical_expenses')).toEqual({
      rules: [],
      memberRules: ['snap_member_is_elderly_or_disabled'],
      params: [],
      inputs: ['snap_elderly_or_disabled_medical_expenses'],
      memberInputs: ['snap_member_medical_expenses'],
      relations: ['member_of_household'],
    });
    expect(reads('snap_unit_size')).toMatchObject({ inputs: ['household_size'], memberRules: [], memberInputs: ['snap_time_limit_exhausted'] });
  });

  test('conditions in judgment position', () => {
    expect(reads('snap_income_eligible')).toMatchObject({ rules: ['snap_categorically_eligible', 'snap_gross_income_test_met', 'snap_passes_net_income_test', 'snap_unit_has_eligible_member'], inputs: [] });
    expect(reads('snap_categorically_eligible')).toMatchObject({ rules: ['co_snap_expanded_categorical_eligible'], inputs: ['snap_categorical_eligibility_barred', 'snap_receives_tanf_or_ssi'] });
  });
});
