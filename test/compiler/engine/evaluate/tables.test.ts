import { afterAll, describe, expect, test } from 'vitest';
import { RuleSpecError } from '../../../../compiler/diagnostics.js';
import { monthPeriod } from '../../../../compiler/engine/period.js';
import { Decimal } from '../../../../compiler/values.js';
import { compileDemo, evalRule, only, removeTempTrees, runDemo, statuses } from '../../demo.js';

afterAll(removeTempTrees);

const table = `
  - name: max_allotment
    kind: parameter
    dtype: Money
    indexed_by: household_size
    versions:
      - effective_from: '2024-10-01'
        values: {1: 292, 2: 536, 3: 768, 4: 975, 5: 1158, 6: 1390, 7: 1536, 8: 1756}
      - effective_from: '2025-10-01'
        values: {1: 298, 2: 546, 3: 785, 4: 994, 5: 1183, 6: 1421, 7: 1571, 8: '1789.50'}
`;
const rules = `${table}
  - name: allotment
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: max_allotment[household_size]
  - name: clamped_allotment
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: max_allotment[min(n, 8)]
  - name: bare_reference
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: max_allotment * 1
`;

const period = monthPeriod('2026-01')!;
const size = (n: number | string) => ({ household_size: new Decimal(n) });

describe('indexed parameter lookups in formulas', () => {
  test('t[household_size] reads the cell of the key, from the version in effect', () => {
    const program = compileDemo(rules);
    expect(String(evalRule(program, 'allotment', period, size(2)))).toBe('546');
    expect(String(evalRule(program, 'allotment', period, size(8)))).toBe('1789.5'); // string cell → decimal
    expect(String(evalRule(program, 'allotment', monthPeriod('2025-09')!, size(2)))).toBe('536');
  });

  test('an integral decimal index works; a fractional one is a type error', () => {
    const program = compileDemo(rules);
    expect(String(evalRule(program, 'allotment', period, size('3.0')))).toBe('785');
    expect(() => evalRule(program, 'allotment', period, size('2.5'))).toThrow(/table index 2.5 of `max_allotment` is not an integer/);
  });

  test('t[min(n, 8)] clamps explicitly', () => {
    const program = compileDemo(rules);
    expect(String(evalRule(program, 'clamped_allotment', period, { n: new Decimal(12) }))).toBe('1789.5');
    expect(String(evalRule(program, 'clamped_allotment', period, { n: new Decimal(4) }))).toBe('994');
  });

  test('a missing key is an error: no clamping, no nearest key', () => {
    const program = compileDemo(rules);
    expect(() => evalRule(program, 'allotment', period, size(9))).toThrow(/parameter `max_allotment` has no value for key 9 \(household_size\)/);
    expect(() => evalRule(program, 'allotment', period, size(0))).toThrow(/no value for key 0/);
    expect(() => evalRule(program, 'clamped_allotment', period, { n: new Decimal(0) })).toThrow(/no value for key 0/);
  });

  test('a bare reference to a table means key 0 (absent here → error)', () => {
    const program = compileDemo(rules);
    expect(() => evalRule(program, 'bare_reference', period)).toThrow(/no value for key 0/);
  });

  test('in a test case: the looked-up value passes, a missing key errors', () => {
    const results = runDemo(
      rules,
      `
      - name: three
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 3}
        output: {us:statutes/demo/a#allotment: 785}
      - name: nine
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 9}
        output: {us:statutes/demo/a#allotment: 1789.5}
      `,
    );
    expect(statuses(results)).toEqual({ three: 'pass', nine: 'error' });
    expect(results[1].error).toMatch(/no value for key 9/);
  });

  test('only a parameter can be indexed', () => {
    const bad = `
      - name: x
        kind: derived
        entity: Household
        versions:
          - effective_from: '2020-01-01'
            formula: household_size[1]
    `;
    expect(() => compileDemo(bad)).toThrow(RuleSpecError);
    expect(() => compileDemo(bad)).toThrow(/only a parameter can be indexed, and `household_size` is not a parameter/);
  });

  test('a values: table needs indexed_by, and integer keys', () => {
    expect(() => compileDemo(table.replace('indexed_by: household_size', ''))).toThrow(/has a `values:` table but no `indexed_by:`/);
    expect(() => compileDemo(table.replace('1: 292', 'one: 292'))).toThrow(/table keys must be integers \(found `one`\)/);
  });
});

describe('harness-side parameter outputs with indexed_by', () => {
  test('the index comes from the case input named by indexed_by', () => {
    const results = runDemo(
      table,
      `
      - name: size-two
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 2}
        output: {us:statutes/demo/a#max_allotment: 546}
      - name: size-eight
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 8}
        output: {us:statutes/demo/a#max_allotment: 1789.50}
      - name: older-version
        period: 2025-01
        input: {us:statutes/demo/a#input.household_size: 2}
        output: {us:statutes/demo/a#max_allotment: 536}
      - name: wrong-value
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 2}
        output: {us:statutes/demo/a#max_allotment: 536}
      `,
    );
    expect(statuses(results)).toEqual({ 'size-two': 'pass', 'size-eight': 'pass', 'older-version': 'pass', 'wrong-value': 'fail' });
    expect(results[3].failures[0]).toMatchObject({ expected: 536, actual: 546 });
  });

  test('without the index input, or with a key not in the table, the case errors', () => {
    const results = runDemo(
      table,
      `
      - name: no-index
        period: 2026-01
        input: {}
        output: {us:statutes/demo/a#max_allotment: 546}
      - name: no-such-key
        period: 2026-01
        input: {us:statutes/demo/a#input.household_size: 12}
        output: {us:statutes/demo/a#max_allotment: 546}
      `,
    );
    expect(statuses(results)).toEqual({ 'no-index': 'error', 'no-such-key': 'error' });
    expect(results[0].error).toMatch(/indexed by `household_size`, but the case gives no/);
    expect(results[1].error).toMatch(/no value for key 12/);
  });

  test('a scalar parameter output reads cell 0', () => {
    const r = only(
      runDemo(
        `
        - name: rate
          kind: parameter
          versions:
            - effective_from: '2020-01-01'
              formula: '0.30'
        `,
        `
        - name: rate
          period: 2026-01
          output: {us:statutes/demo/a#rate: 0.3}
        `,
      ),
    );
    expect(r.status).toBe('pass');
  });
});
