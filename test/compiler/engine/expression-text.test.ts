import { afterAll, describe, expect, test } from 'vitest';
import type { Executable, JudgmentExpr, ScalarExpr } from '../../../compiler/3-lower/ir.js';
import { expressionText } from '../../../compiler/engine/expression-text.js';
import { Decimal } from '../../../compiler/values.js';
import { loaded } from '../bundled.js';
import { removeTempTrees } from '../demo.js';
import { DEMO_MODULE, demoSide } from '../diff/demo-program.js';

afterAll(removeTempTrees);

// Lowered expressions written back as formulas: the grammar's precedence decides the
// parentheses, and an `and` inside an `or` is bracketed for the reader.

const exec = {
  rules: [{ name: 'gross' }, { name: 'eligible' }],
  parameters: [{ name: 'limit' }],
  relations: [{ name: 'member_of_household' }],
} as unknown as Executable;

const lit = (n: number): ScalarExpr => ({ k: 'lit', v: new Decimal(n) });
const input = (slot: string): ScalarExpr => ({ k: 'input', slot });
const gross: ScalarExpr = { k: 'rule', rule: 0 };

describe('expressionText', () => {
  test.each<[string, ScalarExpr | JudgmentExpr, string]>([
    ['arithmetic keeps the needed parentheses only', { k: 'arith', op: '*', a: { k: 'arith', op: '+', a: gross, b: input('x') }, b: lit(0.2) }, '(gross + x) * 0.2'],
    ['left-associative subtraction', { k: 'arith', op: '-', a: { k: 'arith', op: '-', a: gross, b: lit(1) }, b: lit(2) }, 'gross - 1 - 2'],
    ['right operand of a subtraction', { k: 'arith', op: '-', a: gross, b: { k: 'arith', op: '-', a: lit(1), b: lit(2) } }, 'gross - (1 - 2)'],
    ['a table lookup', { k: 'param', param: 0, key: input('household_size') }, 'limit[household_size]'],
    ['a comparison', { k: 'cmp', op: '<=', a: gross, b: { k: 'param', param: 0, key: null } }, 'gross <= limit'],
    ['not over a comparison', { k: 'not', a: { k: 'cmp', op: '>', a: gross, b: lit(5) } }, 'not (gross > 5)'],
    ['and inside or', { k: 'or', a: { k: 'jrule', rule: 1 }, b: { k: 'and', a: { k: 'jinput', slot: 'a' }, b: { k: 'jinput', slot: 'b' } } }, 'eligible or (a and b)'],
    ['an if chain', { k: 'if', branches: [{ cond: { k: 'not', a: { k: 'jrule', rule: 1 } }, then: lit(0) }, { cond: { k: 'cmp', op: '<=', a: input('n'), b: lit(2) }, then: gross }], otherwise: lit(1) }, 'if not eligible: 0 elif n <= 2: gross else: 1'],
    ['an if inside arithmetic', { k: 'arith', op: '+', a: lit(1), b: { k: 'if', branches: [{ cond: { k: 'jinput', slot: 'c' }, then: lit(2) }], otherwise: lit(3) } }, '1 + (if c: 2 else: 3)'],
    ['relation functions', { k: 'count', rel: 0, pred: { k: 'jrule', rule: 1 } }, 'count_where(member_of_household, eligible)'],
    ['functions', { k: 'minmax', op: 'max', args: [lit(0), { k: 'neg', a: gross }] }, 'max(0, -gross)'],
    ['text literals are quoted', { k: 'cmp', op: '==', a: input('region'), b: { k: 'lit', v: "new_york's" } }, "region == 'new_york\\'s'"],
  ])('%s', (_, expr, text) => {
    expect(expressionText(expr, exec)).toBe(text);
  });

  test('every formula of a bundled package reads back as a formula naming its rules', () => {
    const { executable } = loaded('us-co/co-snap');
    const allotment = executable.rules[executable.ruleByName.get('snap_allotment')!];
    expect(expressionText(allotment.versions[0].expr, executable)).toBe(
      'if not snap_income_eligible: 0 elif snap_unit_size <= snap_minimum_allotment_max_household_size: max(snap_allotment_before_minimum, snap_minimum_allotment) else: snap_allotment_before_minimum',
    );
  });

  describe('formulas compiled from text read back as written, grouped only where the tree needs it', () => {
    const text = (formula: string) => {
      const exec = demoSide(DEMO_MODULE.replace('formula: demo_countable_income / 2', `formula: ${JSON.stringify(formula)}`)).package.executable;
      return expressionText(exec.rules[exec.ruleByName.get('demo_reduction')!].versions[0].expr, exec);
    };
    test.each([
      '(demo_countable_income - 1) * 2',
      'demo_countable_income - (demo_earned_income - 3)',
      'demo_countable_income / (2 * demo_standard_amount)',
      '-demo_countable_income + max(1, floor(demo_earned_income))',
      'if demo_earned_income > 10 and not (demo_work_expenses > 0 or demo_earned_income == 3): 1 elif demo_earned_income <= 2: 2 else: 3',
    ])('%s', (formula) => expect(text(formula)).toBe(formula));
    test('redundant grouping is dropped', () => {
      expect(text('(demo_countable_income - demo_earned_income) - 3')).toBe('demo_countable_income - demo_earned_income - 3');
    });
  });
});
