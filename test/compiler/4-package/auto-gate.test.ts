import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { calculate } from '../../../compiler/runtime/calculate.js';
import { Workspace } from '../../../compiler/workspace.js';
import { loadSerialized } from '../bundled.js';

// `auto_gate_outputs` (docs/rulespec.md §9.2): a program's Judgment output is AND-gated with the
// household eligibility gates in scope it does not reach, as the corpus's composer does. The
// root below is made up for the test: one module with the household tests a SNAP encoding has
// (income, resources, residency, a categorical route, another program's test), and a program
// whose `snap_eligible` tests only its members, as Alabama's, Florida's, Georgia's and
// Massachusetts' programs do.

const RULE = (name: string, dtype: string, formula: string) => `  - name: ${name}
    kind: derived
    entity: Household
    dtype: ${dtype}
    period: Month
    source: made-up test provision
    versions:
      - effective_from: '2020-01-01'
        formula: ${formula}
`;

const MODULE = `format: rulespec/v1
module:
  summary: household eligibility tests made up for the auto_gate_outputs test
inputs:
  - name: gross_income
    entity: Household
    dtype: Money
  - name: resources
    entity: Household
    dtype: Money
  - name: lives_in_state
    entity: Household
    dtype: Boolean
  - name: receives_tanf
    entity: Household
    dtype: Boolean
  - name: members_eligible
    entity: Household
    dtype: Boolean
rules:
${RULE('snap_income_limit', 'Money', "'2000'")}
${RULE('snap_gross_income_test', 'Judgment', 'gross_income <= snap_income_limit')}
${RULE('snap_categorically_eligible', 'Judgment', 'receives_tanf')}
${RULE('snap_standard_income_eligible', 'Judgment', 'snap_gross_income_test')}
${RULE('snap_income_eligible', 'Judgment', 'snap_categorically_eligible or snap_standard_income_eligible')}
${RULE('snap_resource_eligible', 'Judgment', 'resources <= 3000')}
${RULE('snap_residency_eligible', 'Judgment', 'lives_in_state')}
${RULE('ctc_income_eligible', 'Judgment', 'gross_income <= 100')}
`;

const SPEC = (autoGate: string[]) => `program: us-zz/snap
period: 2026-01
outputs:
  - snap_eligible
  - snap_benefit
auto_gate_outputs: [${autoGate.join(', ')}]
scope:
  federal:
    - statutes/made-up/eligibility
transformations:
  - pattern: all_of
    name: snap_eligible
    source: made-up program
    conditions:
      - members_eligible
  - pattern: derived_formula
    name: snap_benefit
    dtype: Money
    source: made-up program
    formula: 'if snap_eligible: 100 else: 0'
`;

function build(autoGate: string[]) {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-auto-gate-')), 'rulespec');
  mkdirSync(path.join(root, 'us/statutes/made-up'), { recursive: true });
  writeFileSync(path.join(root, 'us/statutes/made-up/eligibility.yaml'), MODULE);
  mkdirSync(path.join(root, 'programs/us-zz/snap'), { recursive: true });
  writeFileSync(path.join(root, 'programs/us-zz/snap/fy-2026.yaml'), SPEC(autoGate));
  const result = new Workspace([root], [path.join(root, 'programs')]).build();
  expect(result.failures).toEqual([]);
  return result.packages.find((p) => p.pkg.jurisdiction === 'us-zz')!.pkg;
}

const household = (facts: Record<string, unknown>) => ({ household: { facts: { members_eligible: true, gross_income: 1000, resources: 500, lives_in_state: true, receives_tanf: false, ...facts } } });

describe('auto_gate_outputs', () => {
  const gated = build(['snap_eligible']);
  const ungated = build([]);
  const run = (pkg: typeof gated, facts: Record<string, unknown>) => calculate(loadSerialized(pkg), household(facts)).outputs;

  test('gates the output with the household tests it does not reach: the rolled-up income test, resources and residency, not their parts, not a categorical route, not another program', () => {
    expect(gated.notes).toEqual(['auto_gate_outputs: snap_eligible = snap_eligible_core and snap_income_eligible and snap_residency_eligible and snap_resource_eligible (the household eligibility gates in scope it did not reach)']);
  });

  test('a household over the income limit is eligible only ungated; gated, the categorical route inside the rolled-up income test still lets it in', () => {
    expect(run(ungated, { gross_income: 2500 })).toMatchObject({ snap_eligible: true, snap_benefit: 100 });
    expect(run(gated, { gross_income: 2500 })).toMatchObject({ snap_eligible: false, snap_benefit: 0 });
    expect(run(gated, { gross_income: 2500, receives_tanf: true })).toMatchObject({ snap_eligible: true, snap_benefit: 100 });
  });

  test('each gate decides on its own, and the members test still does', () => {
    expect(run(gated, {})).toMatchObject({ snap_eligible: true, snap_benefit: 100 });
    expect(run(gated, { resources: 3500 })).toMatchObject({ snap_eligible: false });
    expect(run(gated, { lives_in_state: false })).toMatchObject({ snap_eligible: false });
    expect(run(gated, { members_eligible: false })).toMatchObject({ snap_eligible: false });
  });

  test('an amount, or an output no transformation of the spec defines, is served ungated and the notes say so', () => {
    const pkg = build(['snap_benefit', 'snap_income_eligible']);
    expect(pkg.notes).toEqual([
      'auto_gate_outputs: snap_benefit is no Judgment, so it is served ungated (an amount cannot be AND-ed with eligibility gates)',
      'auto_gate_outputs: snap_income_eligible is not defined by a transformation of the spec, so it is served as its module defines it, ungated',
    ]);
    expect(run(pkg, { gross_income: 2500 })).toMatchObject({ snap_eligible: true, snap_benefit: 100 });
  });
});
