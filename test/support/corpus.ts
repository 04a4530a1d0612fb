import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeOutputTree } from '../../compiler/5-emit/output-tree.js';
import { Workspace } from '../../compiler/workspace.js';
import { CORPUS } from './paths.js';

// The shared US corpus's state SNAP programs, compiled as `rules compile --programs` compiles
// them (their import closures only: a few seconds, not the whole corpus), and a state package
// no one here has seen: a program of Wyoming's, written in the test from the corpus's federal
// modules alone, with an input of its own that no mapping table knows (a recoupment).

/** The states whose SNAP program the shared corpus encodes. */
export const SNAP_STATES = ['AL', 'AZ', 'CA', 'CO', 'FL', 'GA', 'MA', 'NY'];

/** An unseen state's SNAP program: the federal modules, bound the way the corpus's state programs bind them. */
export const UNSEEN_SPEC = `program: us-wy/snap
period: 2026-01

outputs:
  - snap_eligible
  - snap_benefit

scope:
  federal:
    - regulations/7-cfr/273/3
    - regulations/7-cfr/273/4
    - regulations/7-cfr/273/5
    - regulations/7-cfr/273/6
    - regulations/7-cfr/273/7
    - regulations/7-cfr/273/9
    - regulations/7-cfr/273/10
    - regulations/7-cfr/273/24
    - statutes/7/2012/j

transformations:
  - pattern: all_of
    name: snap_member_eligible
    effective_from: '2026-01-01'
    entity: Person
    dtype: Judgment
    period: Month
    source: us:statutes/7/2014
    conditions:
      - snap_member_citizenship_or_alien_status_eligible
      - snap_member_ssn_requirement_eligible
      - snap_member_work_requirement_eligible
      - snap_member_student_eligible

  - pattern: any_related
    name: snap_eligible
    effective_from: '2026-01-01'
    entity: Household
    period: Month
    source: us:statutes/7/2014
    relation: member_of_household
    condition: snap_member_eligible

  - pattern: sum_terms
    name: snap_total_allowable_shelter_expenses
    effective_from: '2026-01-01'
    entity: Household
    dtype: Money
    period: Month
    unit: USD
    source: test fixture shelter-cost binding
    terms:
      - wy_household_shelter_costs

  - pattern: derived_formula
    name: snap_benefit
    effective_from: '2026-01-01'
    entity: Household
    dtype: Money
    period: Month
    unit: USD
    source: test fixture benefit composition, less a recoupment no table knows
    formula: 'if snap_eligible: max(0, snap_monthly_allotment - wy_overissuance_recoupment) else: 0'
`;

const outputs = new Map<string, string>();

/**
 * The state SNAP programs of the shared corpus compiled into a scratch folder once per test
 * file; with `unseen`, also Wyoming's (UNSEEN_SPEC), from a root of its own beside the corpus.
 */
export function snapCorpusOutput(options: { unseen?: boolean } = {}): string {
  const key = options.unseen ? 'unseen' : 'shared';
  const done = outputs.get(key);
  if (done) return done;
  const scratch = mkdtempSync(path.join(tmpdir(), 'rules-snap-corpus-'));
  const roots = [CORPUS];
  const programs = SNAP_STATES.map((s) => path.join(CORPUS, 'programs', `us-${s.toLowerCase()}`, 'snap'));
  if (options.unseen) {
    const root = path.join(scratch, 'unseen');
    const dir = path.join(root, 'programs', 'us-wy', 'snap');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'fy-2026.yaml'), UNSEEN_SPEC);
    roots.push(root);
    programs.push(dir);
  }
  const out = path.join(scratch, 'compiled');
  writeOutputTree(out, new Workspace(roots, programs, { closureOnly: true }).build(), { durationMs: 0 }, { fullSweep: true });
  outputs.set(key, out);
  return out;
}

/** The modules of the unseen state's program (its import closure in the shared corpus). */
const UNSEEN_CLOSURE = [
  'regulations/7-cfr/273/3',
  'regulations/7-cfr/273/4',
  'regulations/7-cfr/273/5',
  'regulations/7-cfr/273/6',
  'regulations/7-cfr/273/7',
  'regulations/7-cfr/273/9',
  'regulations/7-cfr/273/10',
  'regulations/7-cfr/273/24',
  'statutes/7/2012/j',
  'policies/usda/snap/fy-2026-cola/deductions',
  'policies/usda/snap/fy-2026-cola/maximum-allotments',
  'policies/usda/snap/fy-2026-cola/income-eligibility-standards',
];

/** A small encoding root holding the unseen state's program and the federal modules it reads, copied from the shared corpus (for `--root`). */
export function unseenRoot(): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-unseen-root-')), 'rulespec');
  for (const module of UNSEEN_CLOSURE) cpSync(path.join(CORPUS, 'us', `${module}.yaml`), path.join(root, 'us', `${module}.yaml`));
  const dir = path.join(root, 'programs', 'us-wy', 'snap');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'fy-2026.yaml'), UNSEEN_SPEC);
  return root;
}
