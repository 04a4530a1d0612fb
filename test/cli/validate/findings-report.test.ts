import { describe, expect, test } from 'vitest';
import type { CaseReport, StateCount, Validation } from '../../../cli/validate/compare.js';
import type { Finding } from '../../../cli/validate/findings.js';
import { renderFindings } from '../../../cli/validate/findings-report.js';
import type { ReferenceSet } from '../../../server/migration/reference.js';

// The Markdown a corpus maintainer reads: a section per state, an entry per rule that differs
// first with its source and formula, and per household our value and what the reference engine
// computes instead; the households no rule could be named for, with why.

const refs: ReferenceSet = { engine: 'policyengine-us', engine_version: '1.817.0', period: '2026-01', notes: [], cases: [] };

const finding = (over: Partial<Finding>): Finding => ({
  variable: 'snap_excess_shelter_expense_deduction',
  rule: 'us:regulations/7-cfr/273/10#snap_excess_shelter_deduction_for_net_income',
  source: '7 CFR 273.10(e)(1)(i)(I)',
  formula: 'if snap_household_has_elderly_or_disabled_member: snap_excess_shelter_cost\nelse: min(snap_excess_shelter_cost, 744)',
  ours: 300,
  reference: 744,
  departures: [],
  also: [],
  unfed: [],
  ...over,
});

const household = (id: string, state: string, proof: CaseReport['proof']): CaseReport => ({
  id,
  set: 'general',
  state,
  status: 'differ',
  latency_ms: 1,
  differences: [{ variable: 'snap', ours: 10, reference: 20, delta: -10 }],
  uncovered: [],
  unanswered: [],
  ignored_inputs: [],
  values: {},
  proof,
});

const count = (state: string, over: Partial<StateCount>): StateCount => ({ state, households: 2, matching: 0, explained: 0, findings: 0, unexplained: 0, errored: 0, uncovered: 0, packages: [`us-${state.toLowerCase()}/${state.toLowerCase()}-snap`], ...over });

function validation(): Validation {
  const base = { attributed: [], proved_by: [], attempts: [] };
  return {
    main: 'snap',
    rows: [],
    by_set: [],
    departures: [],
    by_departure: [],
    cases: [
      household('ms-al-0001', 'AL', { ...base, class: 'finding', finding: finding({ unfed: ['snap_claimed_homeless_shelter_deduction'] }) }),
      household('ms-al-0002', 'AL', { ...base, class: 'finding', finding: finding({ ours: 0, reference: 466, departures: ['imputed-medicare-part-b-premium'] }) }),
      household('ms-ga-0001', 'GA', { ...base, class: 'finding', finding: finding({ rule: 'us-ga:programs/snap/2026-01#snap_eligible', variable: 'is_snap_eligible', source: 'us:statutes/7/2014', formula: null, ours: true, reference: false, also: [{ variable: 'snap_gross_income', rule: 'us:r#gross', ours: 1, reference: 2 }] }) }),
      household('ms-ga-0002', 'GA', { ...base, class: 'unexplained', diagnosis: 'snap_unit_size is the value the mapping tables fed us-ga/ga-snap\'s input household_size (ours 1, the reference engine 0)' }),
      { ...household('ms-ca-0001', 'CA', { ...base, class: 'explained', proved_by: ['always-standard-utility-allowance'] }) },
    ],
    by_state: [count('AL', { findings: 2 }), count('GA', { findings: 1, unexplained: 1 }), count('CA', { explained: 1, households: 1 })],
  };
}

describe('the findings report', () => {
  const md = renderFindings(validation(), refs, { source: '../shared/rulespec-us, compiled for this run', tolerance: 2 });

  test('a summary and a table per state', () => {
    expect(md).toMatch(/^# Corpus findings against policyengine-us 1\.817\.0\n/);
    expect(md).toContain('Encodings: ../shared/rulespec-us, compiled for this run. Reference: 5 households recorded by policyengine-us 1.817.0 for 2026-01; amounts match within $2.');
    expect(md).toContain('3 households differ from policyengine-us where none of its documented departures from the law explains the difference');
    expect(md).toContain('1 other households could not be put down to a rule');
    expect(md).toContain('| AL | 2 | 0 | 0 | 2 | 0 | 0 |');
  });

  test('a section per state with findings, one entry per rule: its source, formula and each household with both values', () => {
    expect(md).toContain('## Alabama (AL) — us-al/al-snap');
    expect(md).toContain('### `us:regulations/7-cfr/273/10#snap_excess_shelter_deduction_for_net_income` (2 households)');
    expect(md).toContain("- Answers policyengine-us's `snap_excess_shelter_expense_deduction`.");
    expect(md).toContain('- Source: 7 CFR 273.10(e)(1)(i)(I)');
    expect(md).toContain('  ```\n  if snap_household_has_elderly_or_disabled_member: snap_excess_shelter_cost\n  else: min(snap_excess_shelter_cost, 744)\n  ```');
    expect(md).toContain('| ms-al-0001 | 300 | 744 | — | — | snap_claimed_homeless_shelter_deduction |');
    expect(md).toContain('| ms-al-0002 | 0 | 466 | imputed-medicare-part-b-premium | — | — |');
    expect(md).toContain('## Georgia (GA) — us-ga/ga-snap');
    expect(md).toContain('| ms-ga-0001 | true | false | — | `us:r#gross` (snap_gross_income: 1 vs 2) | — |');
  });

  test('the households of a state no rule could be named for, with why; a state with nothing to act on has no section', () => {
    expect(md).toContain('### Not put down to a rule');
    expect(md).toContain("| ms-ga-0002 | snap (10 vs 20) | snap_unit_size is the value the mapping tables fed us-ga/ga-snap's input household_size (ours 1, the reference engine 0) |");
    expect(md).not.toContain('## California');
  });
});
