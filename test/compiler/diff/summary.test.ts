import { describe, expect, test } from 'vitest';
import type { HouseholdDiff, RootCause } from '../../../compiler/diff/household.js';
import { DiffAccumulator, MAX_GROUPS } from '../../../compiler/diff/summary.js';

// The reviewer's summary from hand-made household diffs, where every figure is counted by hand.

const cause = (name: string, baseline: unknown = 1, reform: unknown = 2, entity = 'household'): RootCause => ({
  legal_id: `us:demo#${name}`,
  name,
  kind: 'rule',
  entity,
  baseline,
  reform,
  baseline_sources: ['Demo Act'],
  reform_sources: ['Demo Act'],
  because: ['formula'],
  parameters: [],
});

/** A household whose benefit goes from `before` to `after` (and eligibility with it). */
function household(line: number, before: number, after: number, causes: RootCause[] = before === after ? [] : [cause('demo_rule')]): HouseholdDiff {
  return {
    line,
    period: '2026-01',
    changed: before !== after,
    outputs: {
      benefit: { baseline: before, reform: after, difference: after - before, changed: before !== after },
      eligible: { baseline: before > 0, reform: after > 0, difference: null, changed: before > 0 !== after > 0 },
    },
    root_causes: causes,
    warnings: [],
    errors: {},
    inputs: {},
    past_coverage: false,
  };
}

const failing = (line: number, sides: ('baseline' | 'reform')[]): HouseholdDiff => ({
  ...household(line, 0, 0),
  outputs: {},
  changed: sides.length === 1,
  errors: Object.fromEntries(sides.map((s) => [s, { code: 'runtime_error', message: `${s} failed` }])),
});

const options = { amount: 'benefit', eligibility: 'eligible', by: ['size'] };

describe('the summary', () => {
  test('counts, gains and losses, eligibility flips, totals, mean and median', () => {
    const s = new DiffAccumulator(options);
    s.add(household(1, 100, 150), 1, { size: '1' }); // +50
    s.add(household(2, 100, 100), 1, { size: '1' }); // unchanged
    s.add(household(3, 0, 30), 1, { size: '2' }); // +30, newly eligible
    s.add(household(4, 80, 0), 1, { size: '2' }); // −80, newly ineligible
    s.add(household(5, 10, 20), 1, { size: '2' }); // +10
    s.add(failing(6, ['baseline', 'reform']));
    s.add(failing(7, ['reform']));
    s.addBadLine(8, 'not a household: Unexpected token');
    const r = s.summary();
    expect(r).toMatchObject({ households: 7, compared: 5, changed: 5, unchanged: 1, gaining: 3, losing: 1, newly_eligible: 1, newly_ineligible: 1 });
    // 50 + 30 − 80 + 10 = 10 over 5 compared (2 each); 4 changed amounts: mean 2.5, median the
    // second of −80, 10, 30, 50 (half the weight at or below it) = 10
    expect(r).toMatchObject({ total_change: 10, mean_change: 2, mean_change_among_changed: 2.5, median_change_among_changed: 10 });
    expect(r.failed).toEqual({
      both: 1,
      baseline_only: 0,
      reform_only: 1,
      errors: [
        { side: 'both', code: 'runtime_error', message: 'baseline failed', households: 1, lines: [6] },
        { side: 'reform', code: 'runtime_error', message: 'reform failed', households: 1, lines: [7] },
      ],
    });
    expect(r.bad_lines).toEqual({ count: 1, lines: [{ line: 8, message: 'not a household: Unexpected token' }] });
    expect(r.outputs).toEqual({ benefit: 4, eligible: 2 });
    expect(r.by.size.map((g) => [g.value, g.households, g.changed, g.gaining, g.losing, g.total_change])).toEqual([
      ['1', 2, 1, 1, 0, 50],
      ['2', 3, 3, 2, 1, -40],
      ['(none)', 2, 1, 0, 0, 0],
    ]);
    expect(r.root_causes).toMatchObject([{ legal_id: 'us:demo#demo_rule', households: 4, share: 0.8, examples: [{ line: 1 }, { line: 3 }, { line: 4 }] }]);
  });

  test('weights scale the totals, means, medians and weighted counts, not the household counts', () => {
    const s = new DiffAccumulator({ ...options, weighted: true });
    s.add(household(1, 100, 110), 3); // +10 × 3
    s.add(household(2, 100, 200), 1); // +100 × 1
    s.add(household(3, 50, 50), 6);
    const r = s.summary();
    expect(r.weighted).toBe(true);
    expect(r).toMatchObject({ households: 3, changed: 2, gaining: 2, weight: 10, weighted_counts: { compared: 10, changed: 4, gaining: 4 } });
    // 30 + 100 = 130 over a weight of 10 compared, of 4 changed; the median's weight lies at +10
    expect(r).toMatchObject({ total_change: 130, mean_change: 13, mean_change_among_changed: 32.5, median_change_among_changed: 10 });
  });

  test('the histogram: round bins over the changes, outliers in open bins at the ends', () => {
    const s = new DiffAccumulator(options);
    for (let k = 1; k <= 200; k++) s.add(household(k, 100, 100 + (k % 40)), 1);
    s.add(household(201, 100, 100 + 5000), 1);
    const bins = s.summary().histogram;
    // 1..39 (five of each of 1..39 but those with k % 40 = 0, which are unchanged) and one +5,000
    expect(bins.reduce((n, b) => n + b.households, 0)).toBe(196);
    expect(bins[bins.length - 1]).toMatchObject({ to: 5000, households: 1 });
    expect(bins.length).toBeLessThanOrEqual(22);
    const inner = bins.slice(0, -1);
    const width = inner[0].to - inner[0].from;
    expect([1, 2, 5, 10]).toContain(width);
    for (const b of inner) expect(b.to - b.from).toBe(width);
  });

  test('merges what worker threads summarised into the same summary as one accumulator', () => {
    const items = Array.from({ length: 60 }, (_, k) => household(k + 1, 100, 100 + ((k * 7) % 23) - 11, k % 2 ? [cause('a')] : [cause('b'), cause('a', 1, 2, 'person-2')]));
    const one = new DiffAccumulator(options);
    const parts = [new DiffAccumulator(options), new DiffAccumulator(options)];
    items.forEach((h, k) => {
      one.add(h, 1 + (k % 3), { size: String(k % 4) });
      parts[k < 25 ? 0 : 1].add(h, 1 + (k % 3), { size: String(k % 4) });
    });
    const merged = new DiffAccumulator(options);
    for (const p of parts) merged.merge(structuredClone(p.state()));
    expect(merged.summary()).toEqual(one.summary());
    // a per-person root cause counts its household once
    expect(one.summary().root_causes.find((c) => c.name === 'a')!.households).toBe(60);
  });

  test('groups failures by side, code and message, the most frequent first', () => {
    const s = new DiffAccumulator(options);
    for (let k = 1; k <= 15; k++) s.add(failing(k, k % 3 ? ['baseline', 'reform'] : ['reform']));
    expect(s.summary().failed).toEqual({
      both: 10,
      baseline_only: 0,
      reform_only: 5,
      errors: [
        { side: 'both', code: 'runtime_error', message: 'baseline failed', households: 10, lines: [1, 2, 4, 5, 7, 8, 10, 11, 13, 14] },
        { side: 'reform', code: 'runtime_error', message: 'reform failed', households: 5, lines: [3, 6, 9, 12, 15] },
      ],
    });
  });

  test(`--by values beyond ${MAX_GROUPS} are counted under (other)`, () => {
    const s = new DiffAccumulator(options);
    for (let k = 0; k < MAX_GROUPS + 5; k++) s.add(household(k, 1, 2), 1, { size: `v${k}` });
    const groups = s.summary().by.size;
    expect(groups).toHaveLength(MAX_GROUPS + 1);
    expect(groups.find((g) => g.value === '(other)')!.households).toBe(5);
  });
});
