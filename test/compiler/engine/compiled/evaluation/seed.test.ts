import { afterAll, describe, expect, test } from 'vitest';
import { CompiledEvaluation } from '../../../../../compiler/engine/compiled/evaluation.js';
import { parseOverride, withOverrides } from '../../../../../compiler/diff/overrides.js';
import { ProgramSide } from '../../../../../compiler/diff/program-side.js';
import { sharedRules } from '../../../../../compiler/diff/sharing.js';
import { prepareHousehold } from '../../../../../compiler/runtime/household.js';
import { removeTempTrees } from '../../../demo.js';
import { DEMO, demoSide } from '../../../diff/demo-program.js';

// The compiled engine's Seed: an evaluation takes another evaluation's values of the rules it is
// told are the same, without computing them, and computes the rest (demo-program.ts: income 100
// counts 100, reduces by 50, the benefit 100 − 50 = 50; with an amount of 120, 70).

afterAll(removeTempTrees);

describe('an evaluation seeded with another', () => {
  const base = demoSide().package;
  const reform = withOverrides(base, [parseOverride(`${DEMO}#demo_standard_amount=120`)]);
  const shared = sharedRules(new ProgramSide({ package: base }), new ProgramSide({ package: reform }));
  const prepared = prepareHousehold(base, { period: '2026-01', facts: { demo_earned_income: 100 } });
  const index = (name: string) => base.executable.ruleByName.get(name)!;
  const json = (ev: CompiledEvaluation, name: string) => ev.json(ev.rule(index(name), 'household'), false);

  test('computes only the rules not taken from the seed, and gives the same values as computing them', () => {
    const first = new CompiledEvaluation(base.executable, prepared.dataset, prepared.period, { trace: true });
    expect(json(first, 'demo_benefit')).toBe(50);
    expect(first.trace!.map((s) => base.executable.rules[s.rule].name)).toEqual(['demo_countable_income', 'demo_reduction', 'demo_benefit']);

    const seeded = new CompiledEvaluation(reform.executable, prepared.dataset, prepared.period, { trace: true, seed: { evaluation: first, from: shared } });
    expect(json(seeded, 'demo_benefit')).toBe(70);
    // the reduction (and the countable income under it) came from the seed: only the benefit was computed
    expect(seeded.trace!.map((s) => reform.executable.rules[s.rule].name)).toEqual(['demo_benefit']);
    expect(seeded.computed(index('demo_reduction'), 'household')).toBe(first.computed(index('demo_reduction'), 'household'));
    // nothing of the countable income was needed once the reduction was taken whole
    expect(seeded.computed(index('demo_countable_income'), 'household')).toBeUndefined();

    const alone = new CompiledEvaluation(reform.executable, prepared.dataset, prepared.period);
    expect(json(alone, 'demo_benefit')).toBe(70);
  });

  test('a rule the seed did not compute is computed', () => {
    const first = new CompiledEvaluation(base.executable, prepared.dataset, prepared.period);
    const seeded = new CompiledEvaluation(reform.executable, prepared.dataset, prepared.period, { trace: true, seed: { evaluation: first, from: shared } });
    expect(json(seeded, 'demo_reduction')).toBe(50);
    expect(seeded.trace!.map((s) => reform.executable.rules[s.rule].name)).toEqual(['demo_countable_income', 'demo_reduction']);
  });
});
