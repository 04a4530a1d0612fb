import { afterAll, describe, expect, it } from 'vitest';
import { coverageJson } from '../../../cli/test-report/coverage-json.js';
import { displayPath } from '../../../cli/output.js';
import { removeTempTrees } from '../../compiler/demo.js';
import { measured } from './coverage-fixture.js';

// coverage.json: every module, rule, version, branch and dated value with its hits and file:line.

afterAll(removeTempTrees);

describe('the json coverage report', () => {
  const report = measured();
  const json = coverageJson(report) as {
    summary: Record<string, { covered: number; total: number; percent: number }>;
    jurisdictions: Record<string, unknown>;
    modules: { file: string; target: string; rules: { name: string; kind: string; location: string; hits: number; non_trivial_hits?: number }[]; dated_values: { rule: string; effective_from: string; location: string; hits: number }[]; rule_versions: unknown[]; branches: { rule: string; kind: string; location: string; arms: { label: string; location: string; hits: number }[] }[] }[];
  };

  it('totals each kind with its percent, for the run and each jurisdiction', () => {
    expect(json.summary.rules).toEqual({ covered: report.total.rules.covered, total: report.total.rules.total, percent: Math.round((10000 * report.total.rules.covered) / report.total.rules.total) / 100 });
    expect(Object.keys(json.summary)).toEqual(['rules', 'branches', 'dated_values', 'non_trivial', 'lines']);
    expect(Object.keys(json.jurisdictions)).toEqual(['us']);
  });

  it('lists every rule, dated value and branch arm with its hits at file:line', () => {
    const [a, b] = json.modules;
    const file = displayPath(report.modules[0].file);
    expect(a.file).toBe(file);
    expect(a.target).toBe('us:statutes/demo/a');
    expect(a.rules.map((r) => [r.name, r.kind, r.hits, r.non_trivial_hits])).toEqual([
      ['rate', 'parameter', 1, undefined],
      ['amount_due', 'derived', 1, 1],
      ['never_asked', 'derived', 0, 0],
      ['never_asked', 'parameter', 0, undefined],
    ]);
    for (const r of a.rules) expect(r.location).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+$`));
    expect(a.dated_values.map((d) => [d.rule, d.effective_from, d.hits])).toEqual([['rate', '2025-01-01', 0], ['rate', '2026-01-01', 1], ['never_asked', '2026-01-01', 0]]);
    expect(a.rule_versions).toHaveLength(2);
    expect(a.branches.map((br) => [br.kind, br.arms.map((x) => [x.label, x.hits])])).toEqual([
      ['if', [['if', 1], ['else', 0]]],
      ['and', [['operand 1 of 2', 0], ['operand 2 of 2', 1]]],
      ['if', [['if', 0], ['else', 0]]],
    ]);
    expect(b.rules).toEqual([]);
  });
});
