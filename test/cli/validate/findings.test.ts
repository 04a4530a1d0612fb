import { describe, expect, test } from 'vitest';
import type { GraphRule, ProgramGraph } from '../../../compiler/4-package/package-types.js';
import { locate } from '../../../cli/validate/findings.js';
import type { CaseOutcome } from '../../../cli/validate/runner.js';

// Where a difference no departure explains starts: the rule that differs first (none of the
// compared rules beneath it differs) is a corpus finding with its source, formula and both
// values; a difference that starts in a value the tables fed, or only in variables the package
// does not compute, is unexplained with that diagnosis.

const rule = (legalId: string, ruleDeps: string[] = [], inputDeps: string[] = [], formula = `f(${[...ruleDeps, ...inputDeps].map((d) => d.split(/#(?:input\.)?/).pop()).join(', ')})`): GraphRule =>
  ({ legalId, name: legalId.split('#')[1], fileLegalId: legalId.split('#')[0], kind: 'derived', entity: 'Household', dtype: 'Money', period: 'Month', unit: null, source: `source of ${legalId.split('#')[1]}`, sourceUrl: null, ruleDeps, inputDeps, relationDeps: [], formula }) as GraphRule;

// benefit ← net income ← (gross income ← earned input, shelter deduction ← shelter input)
const GRAPH: ProgramGraph = {
  rules: [
    rule('us-zz:p#benefit', ['us:r#net']),
    rule('us:r#net', ['us:r#gross', 'us:r#shelter']),
    rule('us:r#gross', [], ['us:r#input.earned']),
    rule('us:r#shelter', [], ['us-zz:p#input.shelter_costs', 'us-zz:p#input.homeless']),
  ],
  inputs: [],
  relations: [],
  ownOutputs: [],
  terminalOutputs: [],
};

const outcome = (assumed: CaseOutcome['assumed'] = []): CaseOutcome => ({
  id: 'h1',
  latency_ms: 1,
  values: {},
  unsupported: [],
  ignored_inputs: [],
  warnings: [],
  runtime_ids: [],
  package: { jurisdiction: 'us-zz', program_id: 'zz-snap' },
  answered_by: { snap: { rule: 'us-zz:p#benefit' }, snap_net_income: { rule: 'us:r#net' }, snap_gross_income: { rule: 'us:r#gross' }, snap_excess_shelter_expense_deduction: { rule: 'us:r#shelter' }, snap_earned_income: { input: 'earned' } },
  assumed,
});
const d = (variable: string, ours: number, reference: number) => ({ variable, ours, reference, delta: ours - reference });

describe('locating a difference in the served corpus', () => {
  test('the rule none of whose compared dependencies differs is the finding, with its source, formula, both values and what it read at defaults', () => {
    const where = locate([d('snap', 100, 150), d('snap_net_income', 500, 333), d('snap_excess_shelter_expense_deduction', 0, 167)], ['imputed-medicare-part-b-premium'], outcome([{ input: 'homeless', fed_by: [] }, { input: 'shelter_costs', fed_by: ['spm_units.housing_cost'] }]), GRAPH);
    expect(where).toEqual({
      finding: {
        variable: 'snap_excess_shelter_expense_deduction',
        rule: 'us:r#shelter',
        source: 'source of shelter',
        formula: 'f(shelter_costs, homeless)',
        ours: 0,
        reference: 167,
        departures: ['imputed-medicare-part-b-premium'],
        also: [],
        unfed: ['homeless'],
      },
    });
  });

  test('two rules that differ on chains of their own: the one nearer the inputs is the finding, the other listed beside it', () => {
    const where = locate([d('snap_gross_income', 900, 800), d('snap_excess_shelter_expense_deduction', 10, 20)], [], outcome(), GRAPH);
    expect(where).toMatchObject({ finding: { variable: 'snap_gross_income', also: [{ variable: 'snap_excess_shelter_expense_deduction', rule: 'us:r#shelter', ours: 10, reference: 20 }] } });
  });

  test('a value the tables fed beneath the differing rule: unexplained, the difference starts in the mapping', () => {
    const where = locate([d('snap_gross_income', 900, 800), d('snap_earned_income', 900, 800)], [], outcome(), GRAPH);
    expect(where).toEqual({ diagnosis: "snap_earned_income is the value the mapping tables fed us-zz/zz-snap's input earned (ours 900, the reference engine 800): the difference starts in the mapping, not in a rule" });
  });

  test('only variables the package does not compute differ: unexplained, said so', () => {
    const where = locate([d('snap_utility_allowance', 0, 466)], [], outcome(), GRAPH);
    expect(where).toEqual({ diagnosis: 'it differs only in snap_utility_allowance, which us-zz/zz-snap does not compute' });
  });
});
