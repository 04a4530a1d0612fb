import { describe, expect, test } from 'vitest';
import type { RuleChange } from '../../../compiler/diff/rule-changes.js';
import { DiffAccumulator } from '../../../compiler/diff/summary.js';
import { markdownReport } from '../../../cli/diff/markdown.js';
import type { DiffReport } from '../../../cli/diff/report.js';

// The Markdown report of a change as large as a new fiscal year (every figure replaced), with
// hundreds of root causes and --by values: it stays a comment GitHub accepts (under 65,536
// characters), says what it left out, and its table cells escape what would break a table.

const change = (k: number): RuleChange => ({
  legal_id: `us:policies/fy#figure_${k}`,
  name: `figure_${k}`,
  kind: 'parameter',
  change: 'changed',
  aspects: ['values'],
  baseline: { entity: null, dtype: 'Money', formula: null, versions: [{ from: '2025-10-01', to: null, text: `{1: ${k}, 2: ${k + 1}}` }], sources: ['USDA FNS COLA'] },
  reform: { entity: null, dtype: 'Money', formula: null, versions: [{ from: '2025-10-01', to: null, text: `{1: ${k + 5}, 2: ${k + 6}}` }], sources: ['USDA FNS COLA'] },
});

function report(): DiffReport {
  const summary = new DiffAccumulator({ amount: 'benefit', eligibility: null, by: ['county'] });
  for (let k = 1; k <= 400; k++) {
    summary.add(
      {
        line: k,
        period: '2026-01',
        changed: true,
        outputs: { benefit: { baseline: 100, reform: 100 + k, difference: k, changed: true } },
        root_causes: [{ legal_id: `us:rules#rule_${k % 120}`, name: `rule_${k % 120}`, kind: 'rule', entity: 'household', baseline: 'a|b', reform: '<x>', baseline_sources: ['Act'], reform_sources: ['Act'], because: ['parameter'], parameters: [] }],
        warnings: [],
        errors: {},
        inputs: {},
        past_coverage: false,
      },
      1,
      { county: `county ${k % 90} | <i>` },
    );
  }
  const rules = Array.from({ length: 300 }, (_, k) => change(k));
  return {
    program: 'us-co/co-snap',
    baseline: { spec: 'git:HEAD~1', label: 'git:HEAD~1 (0123456789ab)', runtime_id: 'a' },
    reform: { spec: 'roots', label: 'the roots as they are now', runtime_id: 'b', set: [] },
    variables: ['benefit'],
    amount: 'benefit',
    eligibility: null,
    rules: { unchanged: false, rules, inputs: [], outputs: { added: [], removed: [] }, counts: { added: 0, removed: 0, changed: 300, inputs_added: 0, inputs_removed: 0, inputs_changed: 0 } },
    households: summary.summary(),
    input: 'households.jsonl',
    stats: null,
    shared_rules: { shared: 1, total: 2 },
    notes: [],
    warnings: [],
  };
}

describe('the Markdown report', () => {
  const md = markdownReport(report());

  test('fits in a GitHub comment, and says what it cut', () => {
    expect(md.length).toBeLessThan(65_536);
    expect(md).toContain('> … and 200 more (`rules diff --json` has them all).');
    expect(md).toContain('> … and the texts of 270 more rules (`rules diff --json` has them all).');
    expect(md).toContain('> … and 70 more root causes (`rules diff --json` has them all).');
    expect(md).toContain('> … and 40 more values of `county` (`rules diff --json` has them all).');
    expect(md.match(/^```diff$/gm)).toHaveLength(30);
  });

  test('escapes pipes and angle brackets in table cells', () => {
    const rows = md.split('\n').filter((l) => l.startsWith('| county 0 '));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toContain('county 0 \\| &lt;i&gt;');
    expect(md).toContain('`a\\|b → <x>`');
    for (const table of md.split(/\n\n/).filter((b) => b.startsWith('|'))) expect(new Set(table.split('\n').map((r) => r.replace(/\\\|/g, '').split('|').length)).size).toBe(1);
  });
});
