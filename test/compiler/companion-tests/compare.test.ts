import { afterAll, describe, expect, test } from 'vitest';
import { Decimal } from '../../../compiler/values.js';
import { matches } from '../../../compiler/companion-tests/compare.js';
import { removeTempTrees, runDemo, statuses } from '../demo.js';

afterAll(removeTempTrees);

const rules = `
  - name: eligible
    kind: derived
    entity: Household
    dtype: Judgment
    versions:
      - effective_from: '2020-01-01'
        formula: income < 100
  - name: flag
    kind: derived
    entity: Household
    dtype: Boolean
    versions:
      - effective_from: '2020-01-01'
        formula: 'if income < 100: true else: false'
  - name: amount
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: income + 0
  - name: label
    kind: derived
    entity: Household
    dtype: Text
    versions:
      - effective_from: '2020-01-01'
        formula: 'if income < 100: "Low income" else: "other"'
  - name: start_day
    kind: derived
    entity: Household
    dtype: Date
    versions:
      - effective_from: '2020-01-01'
        formula: period_start
`;

/** Run one case per expected value of one output, with `income` as given; → status per expected text. */
function check(output: string, income: string, expectations: string[]): Record<string, string> {
  const cases = expectations
    .map(
      (exp, i) => `
- name: c${i}
  period: 2026-01
  input: {us:statutes/demo/a#input.income: ${income}}
  output: {us:statutes/demo/a#${output}: ${exp}}`,
    )
    .join('');
  const results = runDemo(rules, cases);
  return Object.fromEntries(results.map((r, i) => [expectations[i], r.status]));
}

describe('judgment outputs', () => {
  test('accept holds / not_holds (case-insensitive, - or _), never YAML booleans', () => {
    expect(check('eligible', '50', ['holds', 'Holds', 'not_holds', 'true', 'false', 'yes', "'true'", 'undetermined', '1'])).toEqual({
      holds: 'pass',
      Holds: 'pass',
      not_holds: 'fail',
      true: 'fail', // a YAML true for a judgment fails
      false: 'fail',
      yes: 'fail',
      "'true'": 'fail',
      undetermined: 'fail',
      '1': 'fail',
    });
    expect(check('eligible', '500', ['not_holds', 'not-holds', 'NOT_HOLDS', 'holds', 'false'])).toEqual({
      not_holds: 'pass',
      'not-holds': 'pass',
      NOT_HOLDS: 'pass',
      holds: 'fail',
      false: 'fail',
    });
  });
});

describe('Boolean-dtype outputs', () => {
  test('accept true/false or holds/not_holds', () => {
    expect(check('flag', '50', ['true', 'True', 'yes', 'holds', 'false', 'not_holds', "'true'", '1'])).toEqual({
      true: 'pass',
      True: 'pass',
      yes: 'pass', // YAML 1.1 boolean
      holds: 'pass',
      false: 'fail',
      not_holds: 'fail',
      "'true'": 'fail', // quoted text is not a boolean
      '1': 'fail',
    });
    expect(check('flag', '500', ['false', 'not_holds', 'true', 'holds'])).toEqual({ false: 'pass', not_holds: 'pass', true: 'fail', holds: 'fail' });
  });
});

describe('numeric outputs', () => {
  test('numbers match within 1e-18, by value, in any written form', () => {
    expect(
      check('amount', "'1.000000000000000001'", [
        '1', // |diff| = 1e-18: equal
        '1.0',
        "'1'", // numeric-looking text
        "'1.000000000000000001'",
        '0.999999999999999999', // diff 2e-18 — but YAML float: shortest repr is '1.0', so it matches
        "'0.999999999999999999'", // diff exactly 2e-18 as text: no match
        "'1.000000000000000003'",
        "'one'",
        'holds',
      ]),
    ).toEqual({
      '1': 'pass',
      '1.0': 'pass',
      "'1'": 'pass',
      "'1.000000000000000001'": 'pass',
      '0.999999999999999999': 'pass',
      "'0.999999999999999999'": 'fail',
      "'1.000000000000000003'": 'fail',
      "'one'": 'fail',
      holds: 'fail',
    });
  });

  test('the tolerance boundary at the Decimal level', () => {
    expect(matches('2', new Decimal('2.000000000000000001'))).toBe(true);
    expect(matches('2', new Decimal('1.999999999999999999'))).toBe(true);
    expect(matches('2', new Decimal('2.0000000000000000011'))).toBe(false);
    expect(matches(115.95, new Decimal('115.95'))).toBe(true);
    expect(matches(115.95, new Decimal('115.9500000000001'))).toBe(false);
  });
});

describe('text and date outputs', () => {
  test('text compares exactly (case and spaces matter)', () => {
    expect(check('label', '50', ["'Low income'", 'Low income', "'low income'", "'Low income '", "'Low  income'"])).toEqual({
      "'Low income'": 'pass',
      'Low income': 'pass',
      "'low income'": 'fail',
      "'Low income '": 'fail',
      "'Low  income'": 'fail',
    });
  });

  test('dates match an unquoted YAML date only', () => {
    expect(check('start_day', '1', ['2026-01-01', "'2026-01-01'", '2026-01-02'])).toEqual({
      '2026-01-01': 'pass',
      "'2026-01-01'": 'fail', // quoted: text, not a date
      '2026-01-02': 'fail',
    });
  });
});

describe('test-file and case errors', () => {
  test('a duplicate YAML key in a test file errors every case of the file', () => {
    const results = runDemo(
      rules,
      `
      - name: first
        period: 2026-01
        input: {us:statutes/demo/a#input.income: 50}
        output:
          us:statutes/demo/a#eligible: holds
      - name: second
        period: 2026-01
        input:
          us:statutes/demo/a#input.income: 50
          us:statutes/demo/a#input.income: 500
        output:
          us:statutes/demo/a#eligible: holds
      `,
    );
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === 'error')).toBe(true);
    expect(results.some((r) => r.case === 'first' && r.status === 'pass')).toBe(false);
    expect(results[0].error).toMatch(/duplicated mapping key/);
    expect(results[0].error).toMatch(/a\.test\.yaml:10:\d+:/);
  });

  test('an input key equal to a rule id fails the case as computed', () => {
    const results = runDemo(
      rules,
      `
      - name: overrides-rule
        period: 2026-01
        input:
          us:statutes/demo/a#input.income: 50
          us:statutes/demo/a#amount: 7
        output: {us:statutes/demo/a#eligible: holds}
      - name: overrides-in-member
        period: 2026-01
        input:
          us:statutes/demo/a#input.income: 50
          us:statutes/demo/a#relation.members:
            - {us:statutes/demo/a#eligible: true}
        output: {us:statutes/demo/a#eligible: holds}
      - name: plain
        period: 2026-01
        input: {us:statutes/demo/a#input.income: 50}
        output: {us:statutes/demo/a#eligible: holds}
      `,
    );
    expect(statuses(results)).toEqual({ 'overrides-rule': 'error', 'overrides-in-member': 'error', plain: 'pass' });
    expect(results[0].error).toMatch(/`us:statutes\/demo\/a#amount` is computed by the program/);
    expect(results[1].error).toMatch(/`us:statutes\/demo\/a#eligible` is computed by the program/);
  });

  test('a parameter id given as an input is also computed', () => {
    const results = runDemo(
      `
      - name: rate
        kind: parameter
        versions:
          - effective_from: '2020-01-01'
            formula: 2
      - name: scaled
        kind: derived
        entity: Household
        versions:
          - effective_from: '2020-01-01'
            formula: x * rate
      `,
      `
      - name: sets-rate
        period: 2026-01
        input: {us:statutes/demo/a#input.x: 1, us:statutes/demo/a#rate: 3}
        output: {us:statutes/demo/a#scaled: 3}
      `,
    );
    expect(statuses(results)).toEqual({ 'sets-rate': 'error' });
    expect(results[0].error).toMatch(/is computed by the program/);
  });

  test('unknown outputs, bare input keys and unread inputs fail the case', () => {
    const results = runDemo(
      rules,
      `
      - name: unknown-output
        period: 2026-01
        input: {us:statutes/demo/a#input.income: 50}
        output: {us:statutes/demo/a#nope: 1}
      - name: bare-key
        period: 2026-01
        input: {income: 50}
        output: {us:statutes/demo/a#amount: 50}
      - name: unread
        period: 2026-01
        input: {us:statutes/demo/a#input.income: 50, us:statutes/demo/a#input.salary: 1}
        output: {us:statutes/demo/a#amount: 50}
      `,
    );
    expect(statuses(results)).toEqual({ 'unknown-output': 'error', 'bare-key': 'error', unread: 'error' });
    expect(results[0].error).toMatch(/output `us:statutes\/demo\/a#nope` is not a rule/);
    expect(results[1].error).toMatch(/must be absolute/);
    expect(results[2].error).toMatch(/no formula in this program reads `salary`/);
  });
});
