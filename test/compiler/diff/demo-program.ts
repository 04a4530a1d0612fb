// A hand-built program for the diff tests: a demo benefit whose figures follow from its formulas
// by hand. Household income I, work expenses E: countable income max(0, I − E), the reduction
// half of it, the benefit max(0, 100 − reduction), eligible when the benefit is positive. Each
// test edits one thing of this text to make the reform, so the root cause is known.

import path from 'node:path';
import { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import type { DiffSide } from '../../../compiler/diff/program-side.js';
import { Workspace } from '../../../compiler/workspace.js';
import { writeTree } from '../demo.js';

export const DEMO = 'us:statutes/demo/a';

export const DEMO_MODULE = `format: rulespec/v1
module:
  summary: A demo benefit, for the diff tests.
inputs:
  - name: demo_earned_income
    entity: Household
    dtype: Money
    unit: USD
    default: 0
  - name: demo_work_expenses
    entity: Household
    dtype: Money
    unit: USD
    default: 0
rules:
  - name: demo_standard_amount
    kind: parameter
    dtype: Money
    unit: USD
    source: Demo Act 1(a)
    versions:
      - effective_from: '2025-01-01'
        formula: '100'
  - name: demo_countable_income
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    source: Demo Act 1(b)
    versions:
      - effective_from: '2025-01-01'
        formula: max(0, demo_earned_income - demo_work_expenses)
  - name: demo_reduction
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    source: Demo Act 2(a)
    versions:
      - effective_from: '2025-01-01'
        formula: demo_countable_income / 2
  - name: demo_benefit
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    source: Demo Act 2(b)
    versions:
      - effective_from: '2025-01-01'
        formula: max(0, demo_standard_amount - demo_reduction)
  - name: demo_eligible
    kind: derived
    entity: Household
    dtype: Judgment
    source: Demo Act 3
    versions:
      - effective_from: '2025-01-01'
        formula: demo_benefit > 0
`;

const SPEC = `program: us/demo
period: 2026-01
outputs:
  - demo_benefit
  - demo_eligible
scope:
  federal:
    - statutes/demo/a
`;

/** The demo program compiled from `module` (the demo text, or an edit of it): its package and graph. */
export function demoSide(module = DEMO_MODULE): DiffSide & { root: string } {
  const t = writeTree({ 'us/statutes/demo/a.yaml': module, 'programs/us/demo/2026-01.yaml': SPEC });
  const build = new Workspace([t.root], [path.join(t.root, 'programs')]).build();
  const built = build.packages.find((p) => p.pkg.program_id === 'demo');
  if (!built) throw new Error(`the demo program did not compile: ${JSON.stringify(build.failures)}`);
  return { package: new LoadedPackage(built.pkg), graph: built.graph, root: t.root };
}
