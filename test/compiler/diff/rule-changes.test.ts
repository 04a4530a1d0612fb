import { afterAll, describe, expect, test } from 'vitest';
import { ProgramSide } from '../../../compiler/diff/program-side.js';
import { rulesChange } from '../../../compiler/diff/rule-changes.js';
import { removeTempTrees } from '../demo.js';
import { DEMO, DEMO_MODULE, demoSide } from './demo-program.js';

// What changed in the rules between two compilations of the demo program, by legal id, with the
// text of both sides.

afterAll(removeTempTrees);

const change = (reform: string) => rulesChange(new ProgramSide(demoSide()), new ProgramSide(demoSide(reform)));

describe('what changed in the rules', () => {
  test('nothing, when nothing did', () => {
    expect(change(DEMO_MODULE)).toMatchObject({ unchanged: true, rules: [], inputs: [], outputs: { added: [], removed: [] } });
  });

  test('a formula: both versions written back, the encoding text of each side, the citation', () => {
    const r = change(DEMO_MODULE.replace('demo_countable_income / 2', 'demo_countable_income / 4'));
    expect(r.unchanged).toBe(false);
    expect(r.counts).toMatchObject({ changed: 1, added: 0, removed: 0 });
    expect(r.rules).toEqual([
      {
        legal_id: `${DEMO}#demo_reduction`,
        name: 'demo_reduction',
        kind: 'derived',
        change: 'changed',
        aspects: ['formula'],
        baseline: { entity: 'Household', dtype: 'Money', formula: 'demo_countable_income / 2', versions: [{ from: '2025-01-01', to: null, text: 'demo_countable_income / 2' }], sources: ['Demo Act 2(a)'] },
        reform: { entity: 'Household', dtype: 'Money', formula: 'demo_countable_income / 4', versions: [{ from: '2025-01-01', to: null, text: 'demo_countable_income / 4' }], sources: ['Demo Act 2(a)'] },
      },
    ]);
  });

  test("a parameter's values, a rule's dates and a citation", () => {
    const r = change(DEMO_MODULE.replace("formula: '100'", "formula: '120'").replace('source: Demo Act 3', 'source: Demo Act 3, as amended').replace(/(name: demo_benefit[\s\S]*?effective_from: )'2025-01-01'/, "$1'2025-07-01'"));
    expect(r.rules.map((c) => [c.name, c.change, c.aspects])).toEqual([
      ['demo_benefit', 'changed', ['dates']],
      ['demo_eligible', 'changed', ['citation']],
      ['demo_standard_amount', 'changed', ['values']],
    ]);
    const param = r.rules.find((c) => c.name === 'demo_standard_amount')!;
    expect([param.baseline?.versions, param.reform?.versions]).toEqual([[{ from: '2025-01-01', to: null, text: '100' }], [{ from: '2025-01-01', to: null, text: '120' }]]);
    expect(r.rules.find((c) => c.name === 'demo_eligible')!.reform?.sources).toEqual(['Demo Act 3, as amended']);
  });

  test('rules and inputs added and removed', () => {
    const reform = DEMO_MODULE.replace('max(0, demo_earned_income - demo_work_expenses)', 'max(0, demo_earned_income - demo_child_care)')
      .replace('  - name: demo_work_expenses', '  - name: demo_child_care')
      .replace('demo_countable_income / 2', 'demo_countable_income * demo_reduction_rate')
      .replace('rules:\n', "rules:\n  - name: demo_reduction_rate\n    kind: parameter\n    dtype: Rate\n    versions:\n      - effective_from: '2025-01-01'\n        formula: '0.5'\n");
    const r = change(reform);
    expect(r.rules.map((c) => [c.name, c.change])).toEqual([
      ['demo_countable_income', 'changed'],
      ['demo_reduction', 'changed'],
      ['demo_reduction_rate', 'added'],
    ]);
    expect(r.inputs.map((i) => [i.legal_id, i.change])).toEqual([
      [`${DEMO}#input.demo_child_care`, 'added'],
      [`${DEMO}#input.demo_work_expenses`, 'removed'],
    ]);
    expect(r.counts).toEqual({ added: 1, removed: 0, changed: 2, inputs_added: 1, inputs_removed: 1, inputs_changed: 0 });
  });

  test("an input's default", () => {
    const r = change(DEMO_MODULE.replace(/(name: demo_work_expenses[\s\S]*?default: )0/, '$130'));
    expect(r.inputs).toMatchObject([{ name: 'demo_work_expenses', change: 'changed', aspects: ['default'], baseline: { default: 0 }, reform: { default: 30 } }]);
  });
});
