import { afterAll, describe, expect, test } from 'vitest';
import { Dataset } from '../../../compiler/engine/dataset.js';
import { Evaluation } from '../../../compiler/engine/evaluate.js';
import { monthPeriod } from '../../../compiler/engine/period.js';
import { Decimal } from '../../../compiler/values.js';
import { compileDemo, only, removeTempTrees, runDemo } from '../demo.js';

afterAll(removeTempTrees);

const rules = `
  - name: members
    kind: data_relation
    data_relation:
      arity: 2
      arguments: [Person, Household]
  - name: is_adult
    kind: derived
    entity: Person
    dtype: Judgment
    versions:
      - effective_from: '2020-01-01'
        formula: age >= 18
  - name: adults
    kind: derived
    entity: Household
    dtype: Integer
    versions:
      - effective_from: '2020-01-01'
        formula: count_where(members, is_adult)
  - name: disabled_count
    kind: derived
    entity: Household
    dtype: Integer
    versions:
      - effective_from: '2020-01-01'
        formula: count_where(members, disabled)
  - name: adult_income
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: sum_where(members, income, is_adult)
  - name: size
    kind: derived
    entity: Household
    dtype: Integer
    versions:
      - effective_from: '2020-01-01'
        formula: len(members)
  - name: total_income
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: sum(members.income)
`;

const OUT = ['adults', 'disabled_count', 'adult_income', 'size', 'total_income'] as const;
type Outputs = Record<(typeof OUT)[number], number>;

/** One case over the demo relation; `members` undefined leaves the relation key out. */
function run(members: Record<string, unknown>[] | undefined, expected: Outputs) {
  const input: Record<string, unknown> = {};
  if (members) {
    input['us:statutes/demo/a#relation.members'] = members.map((m) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k === 'id' ? k : `us:statutes/demo/a#input.${k}`, v])),
    );
  }
  const output = Object.fromEntries(Object.entries(expected).map(([k, v]) => [`us:statutes/demo/a#${k}`, v]));
  return only(runDemo(rules, JSON.stringify([{ name: 'household', period: '2026-01', input, output }])));
}

describe('aggregates over data_relation members', () => {
  const family = [
    { id: 'p1', age: 40, income: 1000.5, disabled: false },
    { id: 'p2', age: 17, income: 200, disabled: true },
    { age: 18, income: 300.25, disabled: true }, // id defaulted
  ];

  test('count_where, sum_where, len and sum over three members', () => {
    const r = run(family, { adults: 2, disabled_count: 2, adult_income: 1300.75, size: 3, total_income: 1500.75 });
    expect(r).toMatchObject({ status: 'pass', failures: [] });
  });

  test('wrong expectations fail with the actual values', () => {
    const r = run(family, { adults: 3, disabled_count: 1, adult_income: 1500.75, size: 2, total_income: 1300.75 });
    expect(r.status).toBe('fail');
    expect(Object.fromEntries(r.failures.map((f) => [f.output.split('#')[1], f.actual]))).toEqual({
      adults: 2,
      disabled_count: 2,
      adult_income: 1300.75,
      size: 3,
      total_income: 1500.75,
    });
  });

  test('a single member', () => {
    expect(run([{ age: 10, income: 5, disabled: false }], { adults: 0, disabled_count: 0, adult_income: 0, size: 1, total_income: 5 }).status).toBe('pass');
  });

  test('over ZERO members (empty list) counts and sums are 0', () => {
    const r = run([], { adults: 0, disabled_count: 0, adult_income: 0, size: 0, total_income: 0 });
    expect(r).toMatchObject({ status: 'pass', failures: [] });
  });

  test('with the relation key absent counts and sums are 0', () => {
    const r = run(undefined, { adults: 0, disabled_count: 0, adult_income: 0, size: 0, total_income: 0 });
    expect(r).toMatchObject({ status: 'pass', failures: [] });
  });

  test('a member missing a field the aggregate reaches is an error', () => {
    const r = run([{ id: 'p1', age: 30 }], { adults: 1, disabled_count: 0, adult_income: 0, size: 1, total_income: 0 });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/missing input `(disabled|income)` for entity p1/);
  });

  test('sum_where reads the field only for members whose predicate holds', () => {
    // the minor has no income; only adults are summed, so that is not an error
    const input = {
      'us:statutes/demo/a#relation.members': [
        { id: 'a', 'us:statutes/demo/a#input.age': 30, 'us:statutes/demo/a#input.income': 10 },
        { id: 'b', 'us:statutes/demo/a#input.age': 5 },
      ],
    };
    const r = only(runDemo(rules, JSON.stringify([{ name: 'lazy', period: '2026-01', input, output: { 'us:statutes/demo/a#adult_income': 10 } }])));
    expect(r.status).toBe('pass');
  });

  test('relation members must be mappings', () => {
    const input = { 'us:statutes/demo/a#relation.members': [1, 2] };
    const r = only(runDemo(rules, JSON.stringify([{ name: 'bad', period: '2026-01', input, output: { 'us:statutes/demo/a#size': 2 } }])));
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/members of `us:statutes\/demo\/a#relation.members` must be mappings/);
  });
});

describe('aggregates through the engine API', () => {
  test('members come from tuples [member, current] and are read per member id', () => {
    const program = compileDemo(rules);
    const period = monthPeriod('2026-01')!;
    const data = new Dataset();
    const rel = 'us:statutes/demo/a#relation.members';
    data.addTuple(rel, ['m1', 'h1'], period);
    data.addTuple(rel, ['m2', 'h1'], period);
    data.addTuple(rel, ['m3', 'h2'], period); // another household
    data.addInput('income', 'm1', new Decimal('0.1'), period);
    data.addInput('income', 'm2', new Decimal('0.2'), period);
    data.addInput('income', 'm3', new Decimal('99'), period);
    const evaluation = new Evaluation(program, data, period);
    expect(String(evaluation.rule(program.ruleByName.get('total_income')!, 'h1'))).toBe('0.3');
    expect(String(evaluation.rule(program.ruleByName.get('size')!, 'h1'))).toBe('2');
    expect(String(evaluation.rule(program.ruleByName.get('size')!, 'h3'))).toBe('0');
    expect(evaluation.relationMembers(program.relationById.get(rel)!, 'h1')).toEqual(['m1', 'm2']);
  });

  test('tuples whose interval does not cover the period are ignored', () => {
    const program = compileDemo(rules);
    const jan = monthPeriod('2026-01')!;
    const data = new Dataset();
    data.addTuple('us:statutes/demo/a#relation.members', ['m1', 'h1'], { start: jan.start + 1, end: jan.end });
    const evaluation = new Evaluation(program, data, jan);
    expect(String(evaluation.rule(program.ruleByName.get('size')!, 'h1'))).toBe('0');
  });
});

describe('defaults and a household’s own values', () => {
  test('a default read for another month does not shadow the value given for the household’s month; each default is listed once', () => {
    const jan = monthPeriod('2026-01')!;
    const feb = monthPeriod('2026-02')!;
    const data = new Dataset(
      (slot) => (slot === 'income' ? new Decimal(0) : undefined),
      (slot, _entity, asked) => (slot === 'income' && asked.start >= jan.start && asked.end <= jan.end ? 1200 : undefined),
    );
    expect(String(data.input('income', 'household', feb))).toBe('0'); // no value given for February: the default
    expect(String(data.input('income', 'household', jan))).toBe('1200'); // January's given value, not February's default
    expect(data.inputRaw('income', 'household', jan)).toBe(1200); // a given number stays a number for the compiled engine
    expect(String(data.input('income', 'household', feb))).toBe('0');
    expect(data.defaultsRead).toEqual([{ slot: 'income', entity: 'household' }]);
  });
});
