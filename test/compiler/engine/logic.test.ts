import { afterAll, describe, expect, test, vi } from 'vitest';
import { EvaluationError } from '../../../compiler/engine/evaluate.js';
import { and, HOLDS, NOT_HOLDS, not, or, type Outcome, UNDETERMINED } from '../../../compiler/engine/logic.js';
import { monthPeriod } from '../../../compiler/engine/period.js';
import { Decimal } from '../../../compiler/values.js';
import { compileDemo, evalRule, only, removeTempTrees, runDemo } from '../demo.js';

afterAll(removeTempTrees);

const H = HOLDS;
const N = NOT_HOLDS;
const U = UNDETERMINED;

describe('three-valued truth tables (rulespec §6.4)', () => {
  // [left, right, left and right, left or right]
  const table: [Outcome, Outcome, Outcome, Outcome][] = [
    [H, H, H, H],
    [H, N, N, H],
    [H, U, U, H],
    [N, H, N, H],
    [N, N, N, N],
    [N, U, N, U],
    [U, H, U, H],
    [U, N, N, U],
    [U, U, U, U],
  ];

  test.each(table)('%s and %s = %s', (a, b, expected) => {
    expect(and(a, () => b)).toBe(expected);
  });

  test.each(table)('%s or %s = %s', (a, b, _and, expected) => {
    expect(or(a, () => b)).toBe(expected);
  });

  test.each([
    [H, N],
    [N, H],
    [U, U],
  ])('not %s = %s', (a, expected) => {
    expect(not(a)).toBe(expected);
  });
});

describe('laziness of and/or', () => {
  test('`and` does not evaluate its right side after not_holds', () => {
    const right = vi.fn((): Outcome => {
      throw new Error('right side evaluated');
    });
    expect(and(N, right)).toBe(N);
    expect(right).not.toHaveBeenCalled();
  });

  test('`and` evaluates its right side after holds and after undetermined', () => {
    for (const left of [H, U]) {
      const right = vi.fn((): Outcome => N);
      expect(and(left, right)).toBe(N);
      expect(right).toHaveBeenCalledTimes(1);
    }
  });

  test('`or` does not evaluate its right side after holds', () => {
    const right = vi.fn((): Outcome => {
      throw new Error('right side evaluated');
    });
    expect(or(H, right)).toBe(H);
    expect(right).not.toHaveBeenCalled();
  });

  test('`or` evaluates its right side after not_holds and after undetermined', () => {
    for (const left of [N, U]) {
      const right = vi.fn((): Outcome => H);
      expect(or(left, right)).toBe(H);
      expect(right).toHaveBeenCalledTimes(1);
    }
  });
});

describe('laziness in a compiled module: only reached inputs are required', () => {
  const rules = `
    - name: earnings
      kind: derived
      entity: Person
      dtype: Money
      versions:
        - effective_from: '2020-01-01'
          formula: |-
            if has_job: wage
            elif retired: pension
            else: 0
    - name: both
      kind: derived
      entity: Person
      dtype: Judgment
      versions:
        - effective_from: '2020-01-01'
          formula: first and second
    - name: either
      kind: derived
      entity: Person
      dtype: Judgment
      versions:
        - effective_from: '2020-01-01'
          formula: first or second
  `;
  const key = (name: string) => `us:statutes/demo/a#input.${name}`;
  const caseYaml = (inputs: Record<string, unknown>, output: Record<string, unknown>) =>
    JSON.stringify([
      {
        name: 'c',
        period: '2026-01',
        input: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [key(k), v])),
        output: Object.fromEntries(Object.entries(output).map(([k, v]) => [`us:statutes/demo/a#${k}`, v])),
      },
    ]);
  const run = (inputs: Record<string, unknown>, output: Record<string, unknown>) => only(runDemo(rules, caseYaml(inputs, output)));

  test('a missing input in an untaken if branch is not an error', () => {
    expect(run({ has_job: false, retired: false }, { earnings: 0 }).status).toBe('pass');
    expect(run({ has_job: true, wage: 1200 }, { earnings: 1200 }).status).toBe('pass'); // retired, pension unread
    expect(run({ has_job: false, retired: true, pension: 300 }, { earnings: 300 }).status).toBe('pass'); // wage unread
  });

  test('a missing input in the taken branch is an error naming the input', () => {
    const r = run({ has_job: true }, { earnings: 1200 });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `wage`/);
  });

  test('a missing input behind a short-circuited `and` is not an error', () => {
    expect(run({ first: false }, { both: 'not_holds' }).status).toBe('pass');
  });

  test('a missing input behind a short-circuited `or` is not an error', () => {
    expect(run({ first: true }, { either: 'holds' }).status).toBe('pass');
  });

  test('a missing input that `and` reaches is an error naming the input', () => {
    const r = run({ first: true }, { both: 'not_holds' });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `second`/);
  });

  test('a missing input that `or` reaches is an error naming the input', () => {
    const r = run({ first: false }, { either: 'holds' });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `second`/);
  });

  test('a missing condition input is an error, even if every branch could be computed', () => {
    const r = run({ wage: 1, pension: 2 }, { earnings: 1 });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `has_job`/);
  });

  test('the engine raises an EvaluationError that names the input and the rule chain', () => {
    const program = compileDemo(rules);
    const period = monthPeriod('2026-01')!;
    expect(evalRule(program, 'earnings', period, { has_job: false, retired: false })).toEqual(new Decimal(0));
    expect(() => evalRule(program, 'earnings', period, { has_job: true })).toThrow(EvaluationError);
    expect(() => evalRule(program, 'earnings', period, { has_job: true })).toThrow(/missing input `wage` for entity e1 in 2026-01-01\.\.2026-01-31/);
  });

  test('comparison operands are both evaluated (no laziness there)', () => {
    const r = only(
      runDemo(
        `
        - name: cmp
          kind: derived
          entity: Person
          dtype: Judgment
          versions:
            - effective_from: '2020-01-01'
              formula: a > b or true
        `,
        JSON.stringify([{ name: 'c', period: '2026-01', input: { [key('a')]: 1 }, output: { 'us:statutes/demo/a#cmp': 'holds' } }]),
      ),
    );
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `b`/);
  });
});

describe('judgment inputs', () => {
  test('a bare input in judgment position must be a boolean', () => {
    const r = only(
      runDemo(
        `
        - name: flagged
          kind: derived
          entity: Person
          dtype: Judgment
          versions:
            - effective_from: '2020-01-01'
              formula: flag
        `,
        `
        - name: number-as-condition
          period: 2026-01
          input:
            us:statutes/demo/a#input.flag: 1
          output:
            us:statutes/demo/a#flagged: holds
        `,
      ),
    );
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/input `flag` is used as a condition, so it must be true or false/);
  });
});
