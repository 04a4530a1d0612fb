import { describe, expect, it } from 'vitest';
import { coverageText } from '../../../cli/test-report/coverage-text.js';
import type { ModuleCoverage } from '../../../compiler/companion-tests/coverage/provisions.js';
import { coverageReport } from '../../../compiler/companion-tests/coverage/summary.js';

// The text report: a row per jurisdiction and for the run, then the least covered modules.

const plain = (_style: string, text: string) => text;

function module(file: string, target: string, ruleHits: number[], armHits: number[] = []): ModuleCoverage {
  return {
    file,
    target,
    rules: ruleHits.map((hits, i) => ({ name: `r${i}`, kind: 'derived', line: i + 1, hits, nonTrivial: hits })),
    versions: [],
    branches: armHits.length ? [{ rule: 'r0', kind: 'if', line: 1, arms: armHits.map((hits, i) => ({ label: String(i), line: 1, hits })) }] : [],
  };
}

describe('the text coverage report', () => {
  it('gives each jurisdiction and the run a row of the four kinds, then the least covered modules first', () => {
    const modules = [
      module('/c/us/full.yaml', 'us:full', [1, 2]),
      module('/c/us/half.yaml', 'us:half', [1, 0], [1, 0]),
      module('/c/us-co/none.yaml', 'us-co:none', [0, 0, 0]),
    ];
    const lines = coverageText(coverageReport(modules), plain).split('\n');
    expect(lines[1]).toBe('Coverage of 3 modules by their cases');
    expect(lines[2]).toMatch(/^jurisdiction\s+rules\s+branches\s+dated values\s+non-trivial$/);
    expect(lines[3]).toMatch(/^us\s+75\.0 % 3\/4\s+50\.0 % 1\/2\s+100\.0 % 0\/0\s+75\.0 % 3\/4$/);
    expect(lines[4]).toMatch(/^us-co\s+0\.0 % 0\/3\s+100\.0 % 0\/0\s+100\.0 % 0\/0\s+0\.0 % 0\/3$/);
    expect(lines[5]).toMatch(/^all\s+42\.9 % 3\/7\s+50\.0 % 1\/2\s+100\.0 % 0\/0\s+42\.9 % 3\/7$/);
    expect(lines[6]).toMatch(/^lines \(as lcov counts them\): /);
    expect(lines.slice(8, 11)).toEqual([
      'Least covered modules (2 of the 2 with something never exercised)',
      expect.stringMatching(/^\s+0\.0 %\s+\S*\/c\/us-co\/none\.yaml\s+rules 0\/3 · non-trivial 0\/3$/),
      expect.stringMatching(/^\s+50\.0 %\s+\S*\/c\/us\/half\.yaml\s+rules 1\/2 · branches 1\/2 · non-trivial 1\/2$/),
    ]);
  });

  it('has no list of least covered modules when every module is covered', () => {
    expect(coverageText(coverageReport([module('/c/us/full.yaml', 'us:full', [1])]), plain)).not.toMatch(/Least covered/);
  });
});
