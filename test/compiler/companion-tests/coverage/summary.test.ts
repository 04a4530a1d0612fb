import { describe, expect, it } from 'vitest';
import type { ModuleCoverage } from '../../../../compiler/companion-tests/coverage/provisions.js';
import { coverageReport, lineHits, mergeCoverage, moduleSummary, percent } from '../../../../compiler/companion-tests/coverage/summary.js';

// Adding up the counts of several workers, and the totals of each kind.

function record(file: string, hits: { rule: number; nonTrivial: number; version: number; arms: [number, number] }): ModuleCoverage {
  return {
    file,
    target: `us${file.includes('co') ? '-co' : ''}:${file.replace(/^\/r\/[^/]+\//, '').replace(/\.yaml$/, '')}`,
    rules: [
      { name: 'amount', kind: 'derived', line: 3, hits: hits.rule, nonTrivial: hits.nonTrivial },
      { name: 'rate', kind: 'parameter', line: 10, hits: hits.version, nonTrivial: 0 },
    ],
    versions: [
      { rule: 'amount', kind: 'derived', from: '2026-01-01', line: 7, hits: hits.rule },
      { rule: 'rate', kind: 'parameter', from: '2026-01-01', line: 12, hits: hits.version },
    ],
    branches: [{ rule: 'amount', kind: 'if', line: 8, arms: [{ label: 'if', line: 8, hits: hits.arms[0] }, { label: 'else', line: 9, hits: hits.arms[1] }] }],
  };
}

describe('coverage totals', () => {
  it('add the counts of each worker for one module, whichever order they come in', () => {
    const a = record('/r/us/a.yaml', { rule: 2, nonTrivial: 0, version: 0, arms: [2, 0] });
    const b = record('/r/us/a.yaml', { rule: 1, nonTrivial: 1, version: 1, arms: [0, 1] });
    const c = record('/r/us-co/c.yaml', { rule: 0, nonTrivial: 0, version: 0, arms: [0, 0] });
    const merged = mergeCoverage([c, a, b]);
    expect(merged.map((m) => m.file)).toEqual(['/r/us-co/c.yaml', '/r/us/a.yaml']);
    const [, m] = merged;
    expect(m.rules.map((r) => [r.hits, r.nonTrivial])).toEqual([[3, 1], [1, 0]]);
    expect(m.branches[0].arms.map((x) => x.hits)).toEqual([2, 1]);
    expect(m.versions.map((v) => v.hits)).toEqual([3, 1]);
    const again = () => [record('/r/us/a.yaml', { rule: 2, nonTrivial: 0, version: 0, arms: [2, 0] }), record('/r/us/a.yaml', { rule: 1, nonTrivial: 1, version: 1, arms: [0, 1] })];
    expect(mergeCoverage(again().reverse())).toEqual(mergeCoverage(again()));
  });

  it('leave out a part that lists other things (its file changed during the run), naming the file', () => {
    const a = record('/r/us/a.yaml', { rule: 2, nonTrivial: 0, version: 0, arms: [2, 0] });
    const edited = record('/r/us/a.yaml', { rule: 1, nonTrivial: 1, version: 1, arms: [0, 1] });
    edited.rules[0].line = 4;
    const changed: string[] = [];
    const [m] = mergeCoverage([a, edited], changed);
    expect(m.rules.map((r) => r.hits)).toEqual([2, 0]);
    expect(changed).toEqual(['/r/us/a.yaml']);
    expect(coverageReport([a, edited]).changed).toEqual(['/r/us/a.yaml']);
  });

  it('count each kind: rules, branch arms, parameter versions, derived rules seen non-trivial, and lines', () => {
    const s = moduleSummary(record('/r/us/a.yaml', { rule: 2, nonTrivial: 0, version: 0, arms: [2, 0] }));
    expect(s).toEqual({
      rules: { covered: 1, total: 2 },
      branches: { covered: 1, total: 2 },
      dated_values: { covered: 0, total: 1 },
      non_trivial: { covered: 0, total: 1 },
      // lines 3, 7, 8 hit; 9, 10, 12 not
      lines: { covered: 3, total: 6 },
    });
    expect(percent(s.rules)).toBe(50);
    expect(percent({ covered: 0, total: 0 })).toBe(100);
  });

  it('give a line the most hits of what is on it', () => {
    const m = record('/r/us/a.yaml', { rule: 2, nonTrivial: 0, version: 0, arms: [2, 0] });
    m.branches[0].arms[1].line = 8;
    expect([...lineHits(m)]).toEqual([[3, 2], [7, 2], [8, 2], [10, 0], [12, 0]]);
  });

  it('total per jurisdiction and for the run', () => {
    const report = coverageReport([record('/r/us/a.yaml', { rule: 1, nonTrivial: 1, version: 1, arms: [1, 1] }), record('/r/us-co/c.yaml', { rule: 0, nonTrivial: 0, version: 0, arms: [0, 0] })]);
    expect(report.jurisdictions.map(([j, s]) => [j, s.rules])).toEqual([['us', { covered: 2, total: 2 }], ['us-co', { covered: 0, total: 2 }]]);
    expect(report.total.rules).toEqual({ covered: 2, total: 4 });
    expect(report.perModule).toHaveLength(2);
  });
});
