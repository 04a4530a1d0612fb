import { afterAll, describe, expect, test } from 'vitest';
import { latestVersion } from '../../../../compiler/engine/evaluate.js';
import { monthPeriod } from '../../../../compiler/engine/period.js';
import { Day, Decimal } from '../../../../compiler/values.js';
import { casePeriod } from '../../../../compiler/companion-tests/case-data.js';
import { compileDemo, evalRule, only, removeTempTrees, runDemo, statuses } from '../../demo.js';

afterAll(removeTempTrees);

const day = (iso: string) => Day.parse(iso)!.n;
const DAY = (iso: string) => `{period_kind: custom, name: day, start: '${iso}', end: '${iso}'}`;

/** One case of the demo module: period (YAML text), optional inputs, one output. */
function caseText(name: string, period: string, output: string, expected: string | number, inputs: Record<string, unknown> = {}): string {
  const input = Object.entries(inputs).map(([k, v]) => `      us:statutes/demo/a#input.${k}: ${v}\n`).join('');
  return `- name: ${name}\n  period: ${period}\n  input:\n${input || '      {}\n'}  output:\n    us:statutes/demo/a#${output}: ${expected}\n`;
}

describe('version selection at boundaries (by the period start)', () => {
  const rules = `
    - name: allotment
      kind: derived
      entity: Household
      dtype: Money
      versions:
        - effective_from: '2025-10-01'
          formula: base * 2
        - effective_from: '2026-10-01'
          formula: base * 3
  `;

  test.each([
    ['2026-09', 20],
    ['2026-10', 30],
    ['2025-10', 20],
    [DAY('2026-09-30'), 20],
    [DAY('2026-10-01'), 30],
    ['{period_kind: custom, name: straddle, start: 2026-09-30, end: 2026-10-31}', 20], // start decides
  ])('period %s selects the version giving %i', (period, expected) => {
    const results = runDemo(rules, caseText('c', period, 'allotment', expected, { base: 10 }));
    expect(only(results)).toMatchObject({ status: 'pass' });
  });

  test('the other version’s value is rejected at each boundary (the test can fail)', () => {
    const results = runDemo(
      rules,
      caseText('sep', '2026-09', 'allotment', 30, { base: 10 }) + caseText('oct', '2026-10', 'allotment', 20, { base: 10 }),
    );
    expect(statuses(results)).toEqual({ sep: 'fail', oct: 'fail' });
    expect(results.map((r) => r.failures[0].actual)).toEqual([20, 30]);
  });

  test('the engine API selects the same way', () => {
    const program = compileDemo(rules);
    const inputs = { base: new Decimal(10) };
    expect(String(evalRule(program, 'allotment', monthPeriod('2026-09')!, inputs))).toBe('20');
    expect(String(evalRule(program, 'allotment', monthPeriod('2026-10')!, inputs))).toBe('30');
    const sept30 = casePeriod({ period_kind: 'custom', name: 'day', start: '2026-09-30', end: '2026-09-30' });
    expect(sept30).toMatchObject({ start: day('2026-09-30'), end: day('2026-09-30') });
    expect(String(evalRule(program, 'allotment', sept30, inputs))).toBe('20');
  });

  test('a multi-version derived rule queried before its first version is an error', () => {
    const r = only(runDemo(rules, caseText('early', '2025-09', 'allotment', 20, { base: 10 })));
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/rule `allotment` has no version in effect on 2025-09-01\.\.2025-09-30/);
  });
});

describe('single-version derived rules', () => {
  test('a single version without effective_to applies even before its effective_from', () => {
    const rules = `
      - name: doubled
        kind: derived
        entity: Household
        versions:
          - effective_from: '2026-01-01'
            formula: base * 2
    `;
    const results = runDemo(rules, caseText('long-before', '2020-03', 'doubled', 14, { base: 7 }) + caseText('after', '2027-03', 'doubled', 14, { base: 7 }));
    expect(statuses(results)).toEqual({ 'long-before': 'pass', after: 'pass' });
  });

  test('a single version WITH effective_to does not always apply before its effective_from', () => {
    const rules = `
      - name: temporary
        kind: derived
        entity: Household
        versions:
          - effective_from: '2026-01-01'
            effective_to: '2026-06-30'
            formula: base * 2
    `;
    const results = runDemo(rules, caseText('before', '2025-12', 'temporary', 14, { base: 7 }) + caseText('inside', '2026-06', 'temporary', 14, { base: 7 }));
    expect(statuses(results)).toEqual({ before: 'error', inside: 'pass' });
    expect(results[0].error).toMatch(/rule `temporary` has no version in effect/);
  });

  // effective_to is enforced here (HEAD behaviour); the pinned engine ignores it. rulespec.md
  // §0.2: no corpus case depends on it either way. Harness-side parameter outputs ignore it (§8.7).
  test('effective_to is enforced by the engine (inclusive), but not for harness parameter outputs', () => {
    const rules = `
      - name: temporary
        kind: derived
        entity: Household
        versions:
          - effective_from: '2026-01-01'
            effective_to: '2026-06-30'
            formula: base * 2
      - name: cap
        kind: parameter
        versions:
          - effective_from: '2026-01-01'
            effective_to: '2026-06-30'
            formula: 5
      - name: capped
        kind: derived
        entity: Household
        versions:
          - effective_from: '2020-01-01'
            formula: min(base, cap)
    `;
    const results = runDemo(
      rules,
      caseText('last-day', DAY('2026-06-30'), 'temporary', 14, { base: 7 }) +
        caseText('expired', '2026-07', 'temporary', 14, { base: 7 }) +
        caseText('param-expired-engine', '2026-07', 'capped', 5, { base: 7 }) +
        caseText('param-expired-harness', '2026-07', 'cap', 5),
    );
    expect(statuses(results)).toEqual({ 'last-day': 'pass', expired: 'error', 'param-expired-engine': 'error', 'param-expired-harness': 'pass' });
  });

  test('an expired version is not a fallback when a later version has not started', () => {
    expect(latestVersion([{ from: day('2025-01-01'), to: day('2025-06-30') }, { from: day('2026-01-01'), to: null }], day('2025-08-01'))).toBeUndefined();
    const v1 = { from: day('2025-01-01'), to: day('2025-06-30') };
    expect(latestVersion([v1], day('2025-06-30'))).toBe(v1); // effective_to is inclusive
  });
});

describe('parameters', () => {
  const rules = `
    - name: rate
      kind: parameter
      versions:
        - effective_from: '2026-10-01'
          formula: '0.3'
        - effective_from: '2024-10-01'
          formula: '0.1'
        - effective_from: '2025-10-01'
          formula: '0.2'
    - name: charge
      kind: derived
      entity: Household
      versions:
        - effective_from: '2020-01-01'
          formula: income * rate
  `;

  test.each([
    ['2024-10', 10],
    ['2025-09', 10],
    ['2025-10', 20],
    ['2026-09', 20],
    ['2026-10', 30],
    ['2031-01', 30],
  ])('versions listed out of order are sorted: %s → %i', (period, expected) => {
    const results = runDemo(rules, caseText('derived', period, 'charge', expected, { income: 100 }) + caseText('param', period, 'rate', expected / 100));
    expect(statuses(results)).toEqual({ derived: 'pass', param: 'pass' });
  });

  test('the compiled parameter versions are in date order', () => {
    const program = compileDemo(rules);
    const rate = program.parameters[program.paramByName.get('rate')!];
    expect(rate.versions.map((v) => new Day(v.from!).toString())).toEqual(['2024-10-01', '2025-10-01', '2026-10-01']);
  });

  test('a parameter queried before its first version is an error (engine and harness)', () => {
    const results = runDemo(rules, caseText('derived', '2024-09', 'charge', 10, { income: 100 }) + caseText('param', '2024-09', 'rate', 0.1));
    expect(statuses(results)).toEqual({ derived: 'error', param: 'error' });
    expect(results[0].error).toMatch(/parameter `rate` has no value in effect on 2024-09-01\.\.2024-09-30/);
    expect(results[1].error).toMatch(/parameter `rate` has no version in effect/);
  });

  test('a single-version parameter does NOT always apply (unlike a derived rule)', () => {
    const results = runDemo(
      `
      - name: limit
        kind: parameter
        versions:
          - effective_from: '2026-01-01'
            formula: 5
      - name: over_limit
        kind: derived
        entity: Household
        dtype: Judgment
        versions:
          - effective_from: '2026-01-01'
            formula: count > limit
      `,
      caseText('before', '2025-12', 'over_limit', 'holds', { count: 6 }) + caseText('on-date', '2026-01', 'over_limit', 'holds', { count: 6 }),
    );
    expect(statuses(results)).toEqual({ before: 'error', 'on-date': 'pass' });
  });

  test('derived versions listed out of order are sorted too', () => {
    const results = runDemo(
      `
      - name: amount
        kind: derived
        entity: Household
        versions:
          - effective_from: '2026-10-01'
            formula: base + 2
          - from: '2025-10-01'
            formula: base + 1
      `,
      caseText('first', '2026-09', 'amount', 11, { base: 10 }) + caseText('second', '2026-10', 'amount', 12, { base: 10 }),
    );
    expect(statuses(results)).toEqual({ first: 'pass', second: 'pass' });
  });
});
