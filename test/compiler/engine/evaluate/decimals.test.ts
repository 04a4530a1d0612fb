import { afterAll, describe, expect, test } from 'vitest';
import { RuleSpecError } from '../../../../compiler/diagnostics.js';
import { EvaluationError } from '../../../../compiler/engine/evaluate.js';
import { monthPeriod } from '../../../../compiler/engine/period.js';
import { Decimal, type Value } from '../../../../compiler/values.js';
import { compileDemo, evalRule, only, removeTempTrees, runDemo, statuses } from '../../demo.js';

afterAll(removeTempTrees);

const period = monthPeriod('2026-01')!;
const dec = (s: string) => new Decimal(s);

/** A Household rule `r` with the given formula (and extra rule fields). */
const rule = (formula: string, extra = '', name = 'r') => `
  - name: ${name}
    kind: derived
    entity: Household
    dtype: Money
${extra
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => `    ${l.trim()}\n`)
  .join('')}    versions:
      - effective_from: '2020-01-01'
        formula: '${formula}'
`;

function value(formula: string, inputs: Record<string, Value> = {}, extra = ''): Value {
  return evalRule(compileDemo(rule(formula, extra)), 'r', period, inputs) as Value;
}

/** The decimal text of a rule result (fails if it is not a Decimal). */
function decimalText(v: Value): string {
  expect(v).toBeInstanceOf(Decimal);
  return (v as Decimal).toString();
}

describe('exact decimal arithmetic', () => {
  test('0.1 + 0.2 is exactly 0.3', () => {
    const v = value('a + b', { a: dec('0.1'), b: dec('0.2') }) as Decimal;
    expect(v).toBeInstanceOf(Decimal);
    expect(v.equals(dec('0.3'))).toBe(true);
    expect(v.toString()).toBe('0.3');
  });

  test('literals are exact too: 0.1 + 0.2 == 0.3 as a judgment', () => {
    const program = compileDemo(`
      - name: exact
        kind: derived
        entity: Household
        dtype: Judgment
        versions:
          - effective_from: '2020-01-01'
            formula: 0.1 + 0.2 == 0.3
    `);
    expect(evalRule(program, 'exact', period)).toBe('holds');
  });

  test('a test case expecting 0.3 passes, and one expecting the float sum fails', () => {
    const results = runDemo(
      rule('a + b'),
      `
      - name: exact
        period: 2026-01
        input: {us:statutes/demo/a#input.a: 0.1, us:statutes/demo/a#input.b: 0.2}
        output: {us:statutes/demo/a#r: 0.3}
      - name: float-sum
        period: 2026-01
        input: {us:statutes/demo/a#input.a: 0.1, us:statutes/demo/a#input.b: 0.2}
        output: {us:statutes/demo/a#r: 0.30000000000000004}
      `,
    );
    expect(statuses(results)).toEqual({ exact: 'pass', 'float-sum': 'fail' });
  });

  test('386.5 * 0.3 is exactly 115.95', () => {
    expect(decimalText(value('a * 0.3', { a: dec('386.5') }))).toBe('115.95');
    const r = only(
      runDemo(
        rule('a * 0.3'),
        `
        - name: snap
          period: 2026-01
          input: {us:statutes/demo/a#input.a: 386.5}
          output: {us:statutes/demo/a#r: 115.95}
        `,
      ),
    );
    expect(r.status).toBe('pass');
  });

  test('there is no integer division: 7 / 2 = 3.5', () => {
    expect(decimalText(value('7 / 2'))).toBe('3.5');
    expect(decimalText(value('a / b', { a: dec('7'), b: dec('2') }))).toBe('3.5');
  });

  test('division keeps 28 significant digits, rounding the last half-even', () => {
    expect(decimalText(value('1 / 3'))).toBe('0.3333333333333333333333333333');
    expect(decimalText(value('2 / 3'))).toBe('0.6666666666666666666666666667');
  });

  test('integer arithmetic yields decimals: 1 + 1 is the Decimal 2', () => {
    expect(value('1 + 1')).toEqual(dec('2'));
  });

  test('division by zero is an evaluation error', () => {
    expect(() => value('a / b', { a: dec('5'), b: dec('0') })).toThrow(EvaluationError);
    expect(() => value('a / b', { a: dec('5'), b: dec('0.00') })).toThrow(/division by zero/);
    const r = only(
      runDemo(
        rule('a / b'),
        `
        - name: zero
          period: 2026-01
          input: {us:statutes/demo/a#input.a: 5, us:statutes/demo/a#input.b: 0}
          output: {us:statutes/demo/a#r: 0}
        `,
      ),
    );
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/division by zero/);
  });

  test('arithmetic on a non-number is a type error', () => {
    expect(() => value('a + 1', { a: 'text' })).toThrow(/type mismatch: `\+` needs a number, got text "text"/);
    expect(() => value('a * 2', { a: true })).toThrow(/type mismatch/);
  });
});

describe('explicit rounding with floor/ceil', () => {
  test.each([
    ['2.5', '3'],
    ['2.49', '2'],
    ['2.51', '3'],
    ['-2.5', '-2'],
    ['-2.51', '-3'],
    ['115.95', '116'],
  ])('floor(%s + 0.5) = %s', (x, expected) => {
    expect(decimalText(value('floor(x + 0.5)', { x: dec(x) }))).toBe(expected);
  });

  test('floor goes toward −∞ and ceil toward +∞', () => {
    expect(decimalText(value('floor(x)', { x: dec('-1.2') }))).toBe('-2');
    expect(decimalText(value('ceil(x)', { x: dec('-1.8') }))).toBe('-1');
    expect(decimalText(value('ceil(x)', { x: dec('1.01') }))).toBe('2');
  });
});

describe('rule-level rounding', () => {
  test.each([
    ['half_up', '2.345', '2.35'],
    ['half_up', '-2.345', '-2.35'], // half away from zero
    ['half_up', '2.344', '2.34'],
    ['half_even', '2.345', '2.34'],
    ['half_even', '2.355', '2.36'],
    ['half_even', '-2.345', '-2.34'],
    ['floor', '-2.341', '-2.35'],
    ['ceil', '2.341', '2.35'],
  ])('rounding: %s, unit: USD rounds %s to %s', (mode, x, expected) => {
    expect(decimalText(value('x * 1', { x: dec(x) }, `unit: USD\nrounding: ${mode}`))).toBe(expected);
  });

  test('without rounding: the value is not rounded', () => {
    expect(decimalText(value('x * 1', { x: dec('2.345') }, 'unit: USD'))).toBe('2.345');
  });

  test('a test case sees the rounded value', () => {
    const results = runDemo(
      rule('x * 1', 'unit: USD\nrounding: half_up'),
      `
      - name: rounded
        period: 2026-01
        input: {us:statutes/demo/a#input.x: -2.345}
        output: {us:statutes/demo/a#r: -2.35}
      - name: unrounded
        period: 2026-01
        input: {us:statutes/demo/a#input.x: -2.345}
        output: {us:statutes/demo/a#r: -2.345}
      `,
    );
    expect(statuses(results)).toEqual({ rounded: 'pass', unrounded: 'fail' });
  });

  test('rounding happens before dependants see the value', () => {
    const program = compileDemo(rule('x * 1', 'unit: USD\nrounding: half_up', 'amount') + rule('amount * 2', '', 'doubled'));
    expect(String(evalRule(program, 'doubled', period, { x: dec('2.345') }))).toBe('4.7'); // 2.35 * 2, not 4.69
  });

  test('the minor units come from the unit: 0 for RWF, declared under `units:`', () => {
    expect(decimalText(value('x * 1', { x: dec('2.5') }, 'unit: RWF\nrounding: half_up'))).toBe('3');
    const program = compileDemo(rule('x * 1', 'unit: MIL\nrounding: half_up'), 'units:\n  MIL: {kind: currency, minor_units: 3}\n');
    expect(String(evalRule(program, 'r', period, { x: dec('1.23450') }))).toBe('1.235');
  });

  test.each([
    ['unit: count\nrounding: half_up', /`rounding:` needs a currency `unit:` \(found `count`\)/],
    ['rounding: half_up', /`rounding:` needs a currency `unit:` \(found none\)/],
    ['unit: USD\nrounding: nearest', /unknown rounding `nearest`/],
  ])('invalid rounding is a compile error (%s)', (extra, message) => {
    expect(() => compileDemo(rule('x * 1', extra))).toThrow(RuleSpecError);
    expect(() => compileDemo(rule('x * 1', extra))).toThrow(message);
  });

  // `rounding:` is validated on every rule, including one that is a scalar parameter by shape
  // (no entity, literal formula; rulespec.md §3.1 and §6.8).
  const literalRule = (kind: string, rounding: string) => `
    - name: fee
      kind: ${kind}
      unit: USD
      rounding: ${rounding}
      versions:
        - effective_from: '2020-01-01'
          formula: 2.345
  `;
  test('`rounding:` on a `kind: parameter` rule is a compile error', () => {
    expect(() => compileDemo(literalRule('parameter', 'half_up'))).toThrow(/`rounding:` is only allowed on derived rules/);
  });
  test('an unknown rounding mode on a literal-valued rule is a compile error', () => {
    expect(() => compileDemo(literalRule('derived', 'sideways'))).toThrow(/unknown rounding `sideways`/);
  });
});
