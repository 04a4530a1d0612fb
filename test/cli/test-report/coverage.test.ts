import { describe, expect, it } from 'vitest';
import { checkThresholds, parseCoverageReporter, parseThreshold, thresholdLines } from '../../../cli/test-report/coverage.js';
import { emptySummary } from '../../../compiler/companion-tests/coverage/summary.js';

// The options of `rules test --coverage`: reporters and thresholds.

describe('--coverage-reporter', () => {
  it('takes the four reporters, repeated or comma-separated, each once', () => {
    expect(parseCoverageReporter('lcov,json', parseCoverageReporter('text'))).toEqual(['text', 'lcov', 'json']);
    expect(parseCoverageReporter('html', ['html'])).toEqual(['html']);
    expect(() => parseCoverageReporter('cobertura')).toThrow(/expected text, json, lcov, html; got "cobertura"/);
  });
});

describe('--coverage-threshold', () => {
  it('reads KIND=PERCENT for each kind, in either spelling; a later one for a kind replaces it', () => {
    let t = parseThreshold('rules=95');
    t = parseThreshold('dated-values=50.5%', t);
    t = parseThreshold('non_trivial = 80', t);
    t = parseThreshold('rules=90', t);
    expect(t).toEqual([{ kind: 'dated_values', percent: 50.5 }, { kind: 'non_trivial', percent: 80 }, { kind: 'rules', percent: 90 }]);
    expect(parseThreshold('lines=0')).toEqual([{ kind: 'lines', percent: 0 }]);
  });

  it('refuses an unknown kind, a missing percent and more than 100', () => {
    expect(() => parseThreshold('statements=80')).toThrow(/KIND one of rules, branches, dated-values, non-trivial, lines/);
    expect(() => parseThreshold('branches')).toThrow(/KIND=PERCENT/);
    expect(() => parseThreshold('branches=-1')).toThrow(/KIND=PERCENT/);
    expect(() => parseThreshold('branches=101')).toThrow(/at most 100/);
  });

  it('is met at or above the percent; a kind with nothing to cover meets any', () => {
    const total = emptySummary();
    total.branches = { covered: 4, total: 5 };
    total.rules = { covered: 2, total: 3 };
    const results = checkThresholds(total, [{ kind: 'branches', percent: 80 }, { kind: 'rules', percent: 70 }, { kind: 'dated_values', percent: 100 }]);
    expect(results).toEqual([
      { kind: 'branches', threshold: 80, actual: 80, met: true },
      { kind: 'rules', threshold: 70, actual: 66.67, met: false },
      { kind: 'dated_values', threshold: 100, actual: 100, met: true },
    ]);
    expect(thresholdLines(results, total)).toEqual(['coverage of rules 66.67 % (2 of 3) is below the threshold of 70 %']);
  });
});
