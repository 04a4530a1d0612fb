import { afterAll, describe, expect, test } from 'vitest';
import type { Expr } from '../../../../compiler/1-parse/formula/ast.js';
import { lex } from '../../../../compiler/1-parse/formula/lexer.js';
import { FormulaSyntaxError, MAX_FORMULA_DEPTH, parseFormula } from '../../../../compiler/1-parse/formula/parser.js';
import { RuleSpecError } from '../../../../compiler/diagnostics.js';
import { Decimal } from '../../../../compiler/values.js';
import { monthPeriod } from '../../../../compiler/engine/period.js';
import { compileDemo, evalRule, removeTempTrees, runDemo, statuses } from '../../demo.js';

afterAll(removeTempTrees);

/** A compact, fully parenthesised rendering of an AST, to compare tree shapes. */
function show(e: Expr): string {
  switch (e.t) {
    case 'num':
      return e.value;
    case 'str':
      return JSON.stringify(e.value);
    case 'bool':
      return String(e.value);
    case 'name':
      return e.name;
    case 'unary':
      return `(${e.op === '-' ? 'neg' : 'not'} ${show(e.arg)})`;
    case 'binary':
      return `(${e.op} ${show(e.left)} ${show(e.right)})`;
    case 'if':
      return `(if ${e.branches.map((b) => `${show(b.cond)} ${show(b.then)}`).join(' elif ')} else ${show(e.otherwise)})`;
    case 'match':
      return `(match ${show(e.subject)} ${e.arms.map((a) => `${a.pattern ? show(a.pattern) : '_'} => ${show(a.result)}`).join(' | ')})`;
    case 'call':
      return `${e.callee}(${e.args.map(show).join(', ')})`;
    case 'field':
      return `${show(e.target)}.${e.field}`;
    case 'index':
      return `${show(e.target)}[${show(e.index)}]`;
  }
}

const parse = (src: string) => show(parseFormula(src));

/** The FormulaSyntaxError a formula raises (fails the test if it parses). */
function syntaxError(src: string): FormulaSyntaxError {
  try {
    parseFormula(src);
  } catch (err) {
    if (err instanceof FormulaSyntaxError) return err;
    throw err;
  }
  throw new Error(`expected \`${src}\` not to parse`);
}

describe('operator precedence', () => {
  test('* binds tighter than +, and both are left-associative', () => {
    expect(parse('a + b * c')).toBe('(+ a (* b c))');
    expect(parse('a * b + c')).toBe('(+ (* a b) c)');
    expect(parse('(a + b) * c')).toBe('(* (+ a b) c)');
    expect(parse('a - b - c')).toBe('(- (- a b) c)');
    expect(parse('a / b / c')).toBe('(/ (/ a b) c)');
  });

  test('unary minus binds tighter than *: `-a * b` is `(-a) * b`', () => {
    expect(parse('-a * b')).toBe('(* (neg a) b)');
    expect(parse('a * -b')).toBe('(* a (neg b))');
    expect(parse('- - a')).toBe('(neg (neg a))');
  });

  test('`not x > 5` parses as `(not x) > 5`', () => {
    expect(parse('not x > 5')).toBe('(> (not x) 5)');
    expect(parse('not (x > 5)')).toBe('(not (> x 5))');
    expect(parse('not a and b')).toBe('(and (not a) b)');
  });

  test('`a and b or c` is `(a and b) or c`; `a or b and c` is `a or (b and c)`', () => {
    expect(parse('a and b or c')).toBe('(or (and a b) c)');
    expect(parse('a or b and c')).toBe('(or a (and b c))');
    expect(parse('a and b and c')).toBe('(and (and a b) c)');
  });

  test('a comparison binds looser than arithmetic and tighter than `and`', () => {
    expect(parse('a + 1 >= b * 2 and c == "x"')).toBe('(and (>= (+ a 1) (* b 2)) (== c "x"))');
  });

  test('binary nodes are positioned at their operator', () => {
    const e = parseFormula('a + b * c');
    expect(e).toMatchObject({ t: 'binary', op: '+', pos: 2, right: { t: 'binary', op: '*', pos: 6 } });
  });

  test('chained comparisons are a syntax error at the second operator', () => {
    const err = syntaxError('a < b < c');
    expect(err.message).toMatch(/comparisons cannot be chained/);
    expect(err.pos).toBe(6);
    expect(syntaxError('a == b != c').pos).toBe(7);
  });
});

describe('if / elif / else', () => {
  test('if with elif branches and a final else', () => {
    expect(parse('if a: 1 elif b: 2 else: 3')).toBe('(if a 1 elif b 2 else 3)');
  });

  test('else is mandatory', () => {
    expect(syntaxError('if a: 1').message).toMatch(/an `if` needs an `else`/);
    const err = syntaxError('if a: 1 elif b: 2');
    expect(err.message).toMatch(/an `if` needs an `else`/);
    expect(err.pos).toBe('if a: 1 elif b: 2'.length); // at end of formula
  });

  test('a nested `else: if …` is an if in the else branch', () => {
    expect(parse('if a: 1 else: if b: 2 else: 3')).toBe('(if a 1 else (if b 2 else 3))');
    // an inner if in a then-branch takes the nearest else; the outer elif still belongs outside
    expect(parse('if a: if b: 1 else: 2 elif c: 3 else: 4')).toBe('(if a (if b 1 else 2) elif c 3 else 4)');
  });

  test('an if extends as far right as possible', () => {
    expect(parse('if a: 1 else: 2 + 3')).toBe('(if a 1 else (+ 2 3))');
  });

  test('an if inside an operator expression needs parentheses', () => {
    expect(syntaxError('1 + if a: 1 else: 2').message).toMatch(/wrap it in parentheses/);
    expect(parse('1 + (if a: 1 else: 2)')).toBe('(+ 1 (if a 1 else 2))');
  });

  test('multi-line layout is insignificant', () => {
    expect(parse('if a > 0:\n    x\nelif b:\n    y\nelse:\n    0')).toBe('(if (> a 0) x elif b y else 0)');
  });

  test('each arm is positioned at its keyword: if, every elif, else', () => {
    const text = 'if a > 0:\n    x\nelif b:\n    y\nelse:\n    0';
    const e = parseFormula(text);
    expect(e.t === 'if' && [...e.branches.map((b) => b.pos), e.elsePos]).toEqual([0, text.indexOf('elif'), text.indexOf('else')]);
  });
});

describe('match', () => {
  test('with a final `_` wildcard arm', () => {
    const e = parseFormula('match n: 1 => 10 2 => 20 _ => 0');
    expect(show(e)).toBe('(match n 1 => 10 | 2 => 20 | _ => 0)');
    expect(e.t === 'match' && e.arms[2].pattern).toBeNull();
  });

  test('without a wildcard every arm has a pattern', () => {
    const e = parseFormula('match kind: "a" => x - 1 "b" => y');
    expect(show(e)).toBe('(match kind "a" => (- x 1) | "b" => y)');
    expect(e.t === 'match' && e.arms.every((a) => a.pattern !== null)).toBe(true);
  });

  test('each arm is positioned at its pattern, the wildcard too', () => {
    const text = 'match n:\n  1 => 10\n  "two" => 20\n  _ => 0';
    const e = parseFormula(text);
    expect(e.t === 'match' && e.arms.map((a) => a.pos)).toEqual([text.indexOf('1 =>'), text.indexOf('"two"'), text.indexOf('_')]);
  });

  test('the wildcard must be the last arm', () => {
    expect(syntaxError('match n: _ => 0 1 => 2').message).toMatch(/wildcard arm `_` must be the last arm/);
  });

  test('a match needs at least one arm', () => {
    expect(syntaxError('match n: 5').message).toMatch(/expected a match arm/);
  });
});

describe('match evaluation', () => {
  const rules = `
    - name: with_wildcard
      kind: derived
      entity: Household
      dtype: Money
      versions:
        - effective_from: '2020-01-01'
          formula: 'match n: 1 => 10 2 => 20 _ => 0'
    - name: without_wildcard
      kind: derived
      entity: Household
      dtype: Money
      versions:
        - effective_from: '2020-01-01'
          formula: 'match n: 1 => 10 2 => 20'
  `;
  const period = monthPeriod('2026-01')!;

  test.each([
    [1, '10', '10'],
    [2, '20', '20'],
    [7, '0', '20'], // no wildcard: the last arm's result is the default
  ])('n = %i → with `_`: %s, without: %s', (n, withWildcard, withoutWildcard) => {
    const program = compileDemo(rules);
    const inputs = { n: new Decimal(n) };
    expect(String(evalRule(program, 'with_wildcard', period, inputs))).toBe(withWildcard);
    expect(String(evalRule(program, 'without_wildcard', period, inputs))).toBe(withoutWildcard);
  });
});

describe('calls, fields and indexes', () => {
  test('calls on bare names, with any expressions as arguments', () => {
    expect(parse('max(a, b + 1, min(c, 2))')).toBe('max(a, (+ b 1), min(c, 2))');
    expect(parse('len(members)')).toBe('len(members)');
    expect(parse('sum(members.income)')).toBe('sum(members.income)');
    expect(parse('t[min(n, 8)] * 2')).toBe('(* t[min(n, 8)] 2)');
  });

  test('only a bare name can be called', () => {
    expect(syntaxError('a.b(x)').message).toMatch(/only a function name can be called/);
    expect(syntaxError('t[1](x)').message).toMatch(/only a function name can be called/);
    expect(syntaxError('f(x)(y)').message).toMatch(/only a function name can be called/);
  });

  // rulespec.md §5.2: calls are only allowed on a bare name; `(f)(x)` is not valid.
  test('a parenthesised name cannot be called: `(f)(x)`', () => {
    expect(syntaxError('(f)(x)').message).toMatch(/only a function name can be called/);
  });

  test('no trailing comma in an argument list', () => {
    expect(syntaxError('max(a, b,)').message).toMatch(/trailing comma/);
  });
});

describe('whole-formula rules', () => {
  test('trailing tokens after a complete expression are rejected', () => {
    const err = syntaxError('a b');
    expect(err.message).toMatch(/unexpected 'b' after a complete expression/);
    expect(err.pos).toBe(2);
    expect(syntaxError('1 + 2 3').pos).toBe(6);
    expect(syntaxError('(a))').message).toMatch(/unexpected '\)' after a complete expression/);
  });

  test('empty formulas and assignments are rejected', () => {
    expect(syntaxError('').message).toMatch(/empty formula/);
    expect(syntaxError('   # just a comment').message).toMatch(/empty formula/);
    expect(syntaxError('x = 1').message).toMatch(/assignments/);
  });

  test('date literals are rejected (the lexer sees them, the parser refuses them)', () => {
    expect(lex('2026-01-01')[0]).toMatchObject({ type: 'date', text: '2026-01-01' });
    const err = syntaxError('start >= 2026-01-01');
    expect(err.message).toMatch(/date literals are not supported \(2026-01-01\)/);
    expect(err.pos).toBe(9);
  });

  test('reserved words cannot be used as names', () => {
    expect(syntaxError('from + 1').message).toMatch(/reserved word/);
    expect(syntaxError('a + to').message).toMatch(/reserved word/);
  });

  test('characters outside the language are lexical errors with a position', () => {
    const err = syntaxError('a % b');
    expect(err.message).toMatch(/unexpected character '%'/);
    expect(err.pos).toBe(2);
  });
});

describe('nesting', () => {
  // Found by fuzzing (test/e2e/fuzz/formulas.test.ts): a thousand nested parentheses overflowed
  // the parser's stack, and a chain of 20,000 additions parsed but overflowed lowering's, a
  // RangeError where a located diagnostic belongs.
  const chain = (n: number) => Array(n).fill('x').join(' + ');

  test('parentheses, prefixes and chains deeper than the bound are syntax errors at the offending token', () => {
    expect(syntaxError('('.repeat(1000) + 'x' + ')'.repeat(1000))).toMatchObject({ pos: MAX_FORMULA_DEPTH, message: expect.stringMatching(/nests more than 200 levels deep/) });
    expect(syntaxError('-'.repeat(100_000) + 'x').message).toMatch(/nests more than 200 levels deep/);
    const err = syntaxError(chain(20_000));
    expect(chain(20_000).slice(err.pos, err.pos + 1)).toBe('+');
  });

  test('a formula at the bound compiles and evaluates in both engines', () => {
    const rule = (formula: string) => `
      - name: total
        kind: derived
        entity: Person
        dtype: Money
        versions:
          - effective_from: '2020-01-01'
            formula: '${formula}'
    `;
    const deepest = '('.repeat(MAX_FORMULA_DEPTH - 2) + chain(2) + ')'.repeat(MAX_FORMULA_DEPTH - 2);
    const period = monthPeriod('2026-01')!;
    for (const formula of [chain(MAX_FORMULA_DEPTH), deepest]) {
      expect(String(evalRule(compileDemo(rule(formula)), 'total', period, { x: new Decimal(2) }))).toBe(formula === deepest ? '4' : String(2 * MAX_FORMULA_DEPTH));
    }
    expect(() => parseFormula(chain(MAX_FORMULA_DEPTH + 1))).toThrow(FormulaSyntaxError);
  });
});

describe('lexical rules', () => {
  test('`income/size` is ONE identifier, while `x / 2` and `x/2` are divisions', () => {
    expect(parseFormula('income/size')).toMatchObject({ t: 'name', name: 'income/size' });
    expect(parse('income/size * 2')).toBe('(* income/size 2)');
    expect(parse('a/b/c')).toBe('a/b/c');
    expect(parse('x / 2')).toBe('(/ x 2)');
    expect(parse('x/2')).toBe('(/ x 2)');
    expect(parse('x / y')).toBe('(/ x y)');
    expect(parse('x /y')).toBe('(/ x y)');
  });

  test('`#` comments and `"""` doc blocks are skipped', () => {
    expect(parse('a + # the base amount\n b')).toBe('(+ a b)');
    expect(parse('# leading comment\na * 2 # trailing')).toBe('(* a 2)');
    expect(parse('"""explains the rule""" a - 1')).toBe('(- a 1)');
  });

  test('strings with either quote and escapes', () => {
    expect(parseFormula(String.raw`"say \"hi\""`)).toMatchObject({ t: 'str', value: 'say "hi"' });
    expect(parseFormula(String.raw`'it\'s'`)).toMatchObject({ t: 'str', value: "it's" });
    expect(parseFormula(String.raw`"a\nb\tc\rd"`)).toMatchObject({ t: 'str', value: 'a\nb\tc\rd' });
    expect(parseFormula(String.raw`"back\\slash"`)).toMatchObject({ t: 'str', value: 'back\\slash' });
    expect(parseFormula(String.raw`"\q"`)).toMatchObject({ t: 'str', value: 'q' });
    expect(parseFormula(`'has "double" quotes'`)).toMatchObject({ t: 'str', value: 'has "double" quotes' });
    expect(parseFormula('"# not a comment"')).toMatchObject({ t: 'str', value: '# not a comment' });
  });

  test('an unterminated string is an error at its opening quote', () => {
    const err = syntaxError('x == "abc');
    expect(err.message).toMatch(/unterminated string/);
    expect(err.pos).toBe(5);
  });

  test('numbers: underscores, decimals, and no `1.` / `.5` forms', () => {
    expect(parseFormula('1_000_000')).toMatchObject({ t: 'num', value: '1000000' });
    expect(parseFormula('0.30')).toMatchObject({ t: 'num', value: '0.30' });
    expect(syntaxError('1.').message).toMatch(/expected a field name after '\.'/);
    expect(syntaxError('.5').message).toMatch(/unexpected '\.'/);
    expect(syntaxError('9223372036854775808').message).toMatch(/does not fit in 64 bits/);
    expect(parseFormula('9223372036854775807')).toMatchObject({ t: 'num', value: '9223372036854775807' });
  });

  test('true/True/false/False are booleans', () => {
    expect(parse('true or True')).toBe('(or true true)');
    expect(parse('false and False')).toBe('(and false false)');
  });
});

describe('lowering of the parse of `not x > 5`', () => {
  const judgmentRule = (formula: string) => `
    - name: over
      kind: derived
      entity: Person
      dtype: Judgment
      versions:
        - effective_from: '2020-01-01'
          formula: '${formula}'
  `;

  test('`not x > 5` fails to lower: `not x` is a judgment used as a comparison operand', () => {
    let error: unknown;
    try {
      compileDemo(judgmentRule('not x > 5'));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RuleSpecError);
    expect((error as RuleSpecError).code).toBe('position_mismatch');
    expect((error as RuleSpecError).message).toMatch(/`not` yields a judgment, but a value is needed here/);
  });

  test('`not (x > 5)` lowers and evaluates', () => {
    const program = compileDemo(judgmentRule('not (x > 5)'));
    const period = monthPeriod('2026-01')!;
    expect(evalRule(program, 'over', period, { x: new Decimal(3) })).toBe('holds');
    expect(evalRule(program, 'over', period, { x: new Decimal(6) })).toBe('not_holds');
  });

  test('`income/size` is read as an input named `income/size`', () => {
    const results = runDemo(
      `
      - name: per_person
        kind: derived
        entity: Household
        versions:
          - effective_from: '2020-01-01'
            formula: 'income/size + income / size'
      `,
      `
      - name: path-name
        period: 2026-01
        input:
          us:statutes/demo/a#input.income/size: 7
          us:statutes/demo/a#input.income: 10
          us:statutes/demo/a#input.size: 4
        output:
          us:statutes/demo/a#per_person: 9.5
      `,
    );
    expect(statuses(results)).toEqual({ 'path-name': 'pass' });
  });
});
