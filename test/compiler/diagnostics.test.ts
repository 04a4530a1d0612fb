import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { parseModuleText } from '../../compiler/1-parse/module.js';
import { compileModule } from '../../compiler/compile.js';
import { RuleSpecError } from '../../compiler/diagnostics.js';
import { EvaluationError } from '../../compiler/engine/evaluate.js';
import { describeError } from '../../compiler/describe-error.js';
import { runTestFile } from '../../compiler/companion-tests/run-file.js';
import { compileError, removeTempTrees, statuses, writeTree } from './demo.js';

afterAll(removeTempTrees);

interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
  sourceLine: string;
  caretColumn: number;
}

/** Split describeError output into its located diagnostics (header, excerpt line, caret line). */
function diagnostics(text: string): Diagnostic[] {
  const lines = text.split('\n');
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i += 3) {
    const head = /^(.+?):(\d+):(\d+): (.*)$/.exec(lines[i]);
    const excerpt = /^(\d+) \| (.*)$/.exec(lines[i + 1] ?? '');
    const caret = /^ +\| ( *)\^$/.exec(lines[i + 2] ?? '');
    if (!head || !excerpt || !caret) throw new Error(`not a located diagnostic at line ${i + 1} of:\n${text}`);
    expect(Number(excerpt[1])).toBe(Number(head[2])); // gutter shows the same line number
    out.push({
      file: head[1],
      line: Number(head[2]),
      column: Number(head[3]),
      message: head[4],
      sourceLine: excerpt[2],
      caretColumn: caret[1].length + 1,
    });
  }
  return out;
}

/** The one located diagnostic of a describeError text, checked against the file it names. */
function located(text: string): Diagnostic {
  const all = diagnostics(text);
  expect(all).toHaveLength(1);
  return checkAgainstFile(all[0]);
}

function checkAgainstFile(d: Diagnostic): Diagnostic {
  const fileLines = readFileSync(d.file, 'utf8').split('\n');
  expect(d.sourceLine).toBe(fileLines[d.line - 1]); // the excerpt is the offending source line
  expect(d.caretColumn).toBe(d.column); // the caret sits under the reported column
  return d;
}

/** What starts at the diagnostic's column in its source line. */
const at = (d: Diagnostic, length: number) => d.sourceLine.slice(d.column - 1, d.column - 1 + length);

const M = 'us/statutes/demo/bad.yaml';
const target = 'us:statutes/demo/bad';

function errorOf(moduleText: string) {
  const t = writeTree({ [M]: moduleText });
  const { err, text } = compileError(t, target);
  return { err, text, file: t.file(M) };
}

describe('formula-level errors are located at the offending token', () => {
  test('unknown function', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: base + round(x)
`);
    expect(err.code).toBe('unknown_function');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 8, column: 25 });
    expect(d.message).toMatch(/^rule `benefit`: unknown function `round` \(functions allowed here: max, min, floor/);
    expect(at(d, 6)).toBe('round(');
    expect(text.split('\n').slice(1)).toEqual(['8 |         formula: base + round(x)', '  |                         ^']);
  });

  test('wrong arity inside a multi-line block scalar `formula: |-`', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: |-
          if income > 0:
            floor(income, 2)
          else:
            0
`);
    expect(err.code).toBe('wrong_arity');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 10, column: 13 });
    expect(d.message).toBe('rule `benefit`: floor takes 1 argument, got 2 (floor(x))');
    expect(at(d, 6)).toBe('floor(');
  });

  test('a syntax error inside a block scalar (chained comparison)', () => {
    const { err, text } = errorOf(`format: rulespec/v1
rules:
  - name: working_age
    kind: derived
    entity: Person
    dtype: Judgment
    versions:
      - effective_from: '2020-01-01'
        formula: |-
          income > 0
            and 18 <= age < 65
`);
    expect(err.code).toBe('formula_syntax');
    const d = located(text);
    expect(d).toMatchObject({ line: 11, column: 27 });
    expect(d.message).toMatch(/comparisons cannot be chained/);
    expect(at(d, 4)).toBe('< 65');
  });

  test('judgment/scalar misuse: `dtype: Judgment` with `income + 1`, and a Money rule with `a > 1 and b`', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: eligible
    kind: derived
    entity: Household
    dtype: Judgment
    versions:
      - effective_from: '2020-01-01'
        formula: income + 1
  - name: amount
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: a > 1 and b
`);
    expect(err.code).toBe('position_mismatch');
    // both rules' problems are reported, in file order
    const [judgment, money] = diagnostics(text).map(checkAgainstFile);
    expect(judgment).toMatchObject({ file, line: 9, column: 25 });
    expect(judgment.message).toMatch(/^rule `eligible`: arithmetic `\+` yields a value, but a judgment is needed here/);
    expect(at(judgment, 3)).toBe('+ 1');
    expect(money).toMatchObject({ file, line: 16, column: 24 });
    expect(money.message).toMatch(/^rule `amount`: `and` yields a judgment, but a value is needed here/);
    expect(at(money, 3)).toBe('and');
  });

  test('a comparison in a Money formula points at the comparison operator', () => {
    const { text } = errorOf(`format: rulespec/v1
rules:
  - name: amount
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2020-01-01'
        formula: |-
          max(0,
              income - 10) >= 5
`);
    const d = located(text);
    expect(d).toMatchObject({ line: 11, column: 28 });
    expect(d.message).toMatch(/the comparison `>=` yields a judgment/);
  });

  // Positions inside quoted scalars account for escapes (`\"`, `''`), and an error at the end
  // of a formula points just past its last token.
  test('an end-of-formula error points past the last token', () => {
    const { text } = errorOf(`format: rulespec/v1
rules:
  - name: r
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: a +
`);
    const d = located(text);
    expect(d.message).toBe('rule `r`: unexpected end of formula');
    expect(d).toMatchObject({ line: 8, column: 21 });
  });

  test('positions inside a quoted scalar with escapes', () => {
    const { text } = errorOf(`format: rulespec/v1
rules:
  - name: s
    kind: derived
    entity: Household
    dtype: Judgment
    versions:
      - effective_from: '2020-01-01'
        formula: 'x == ''a'' and round(y)'
`);
    const d = located(text);
    expect(at(d, 6)).toBe('round(');
    expect(d.column).toBe(34);
  });
});

describe('module-level errors are located', () => {
  test('unknown rule kind, at the kind value', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    kind: derivd
    entity: Household
`);
    expect(err.code).toBe('unknown_rule_kind');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 4, column: 11 });
    expect(d.message).toBe('rule `benefit` has unknown kind `derivd` (expected one of parameter, derived, data_relation, derived_relation, source_relation)');
    expect(at(d, 6)).toBe('derivd');
  });

  test('missing kind', () => {
    const { err, text } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    entity: Household
`);
    expect(err.code).toBe('unknown_rule_kind');
    const d = located(text);
    expect(d).toMatchObject({ line: 3, column: 5 });
    expect(d.message).toMatch(/rule `benefit` is missing `kind:`/);
  });

  test('YAML syntax error', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    kind: derived
    kind: parameter
`);
    expect(err.code).toBe('yaml_syntax');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 5, column: 5 });
    expect(d.message).toMatch(/^YAML: duplicated mapping key/);
  });

  test('YAML syntax error: bad indentation', () => {
    const { err, text } = errorOf(`format: rulespec/v1
rules:
  - name: benefit
    kind: derived
   entity: Household
`);
    expect(err.code).toBe('yaml_syntax');
    const d = located(text);
    expect(d.line).toBe(5);
    expect(d.message).toMatch(/^YAML: bad indentation/);
  });

  test('unresolved import, at the import entry', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
imports:
  - us:statutes/demo/missing
rules: []
`);
    expect(err.code).toBe('unresolved_import');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 3, column: 5 });
    expect(d.message).toMatch(/^import `us:statutes\/demo\/missing` does not resolve: no file .*\/us\/statutes\/demo\/missing\.yaml$/);
  });

  test('an import that is not an absolute target', () => {
    const t = writeTree({
      'us/statutes/demo/ok.yaml': 'format: rulespec/v1\nrules: []\n',
      [M]: 'format: rulespec/v1\nimports:\n  - us:statutes/demo/ok\n  - statutes/demo/relative\nrules: []\n',
    });
    const { err, text } = compileError(t, target);
    expect(err.code).toBe('unresolved_import');
    const d = located(text);
    expect(d).toMatchObject({ line: 4, column: 5 });
    expect(d.message).toBe('import `statutes/demo/relative` is not an absolute target (jurisdiction:root/path)');
  });

  test('import cycle, at the import that closes it', () => {
    const t = writeTree({
      'us/statutes/demo/x.yaml': 'format: rulespec/v1\nimports:\n  - us:statutes/demo/y\nrules: []\n',
      'us/statutes/demo/y.yaml': 'format: rulespec/v1\nimports: [us:statutes/demo/x]\nrules: []\n',
    });
    const { err, text } = compileError(t, 'us:statutes/demo/x');
    expect(err.code).toBe('import_cycle');
    const d = located(text);
    expect(d.file).toBe(t.file('us/statutes/demo/y.yaml'));
    expect(d).toMatchObject({ line: 2, column: 11 });
    expect(d.message).toBe('import cycle: us:statutes/demo/x → us:statutes/demo/y → us:statutes/demo/x');
  });

  test('dependency cycle (a: b + 1, b: a * 2), at the formula of the rule that closes it', () => {
    const { err, text, file } = errorOf(`format: rulespec/v1
rules:
  - name: a
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: b + 1
  - name: b
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: a * 2
`);
    expect(err.code).toBe('dependency_cycle');
    const d = located(text);
    expect(d).toMatchObject({ file, line: 8, column: 18 });
    expect(d.message).toBe('dependency cycle: a → b → a');
    expect(at(d, 5)).toBe('b + 1');
  });

  test('a rule depending on itself', () => {
    const { err, text } = errorOf(`format: rulespec/v1
rules:
  - name: total
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: total + 1
`);
    expect(err.code).toBe('dependency_cycle');
    expect(located(text)).toMatchObject({ line: 8, column: 18, message: 'dependency cycle: total → total' });
  });

  test('parse errors of several rules are all reported', () => {
    const { text } = errorOf(`format: rulespec/v1
rules:
  - name: one
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: a + * b
  - name: two
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: 'x == 2026-01-01'
`);
    const all = diagnostics(text).map(checkAgainstFile);
    expect(all.map((d) => [d.line, d.column])).toEqual([
      [8, 22], // the `*`
      [14, 24], // the date
    ]);
    expect(all[0].message).toBe("rule `one`: unexpected '*'");
    expect(all[1].message).toMatch(/^rule `two`: date literals are not supported/);
    expect(at(all[1], 10)).toBe('2026-01-01');
  });
});

describe('describeError without a source position', () => {
  test('parseModuleText keeps problems on the module instead of throwing', () => {
    const mod = parseModuleText('format: rulespec/v1\nschema: x\nrules: []\n', 'mem.yaml', 'us:statutes/mem');
    expect(mod.errors.map((e) => e.code)).toEqual(['invalid_module']);
    expect(mod.errors[0].message).toMatch(/top-level `schema:` is not part of RuleSpec v1/);
  });

  test('an evaluation error lists the rule chain, innermost first', () => {
    const err = new EvaluationError('missing input `x` for entity e1 in 2026-01-01..2026-01-31');
    err.chain = ['us:statutes/demo/a#outer', 'us:statutes/demo/a#inner'];
    expect(describeError(err)).toBe('missing input `x` for entity e1 in 2026-01-01..2026-01-31\n  in us:statutes/demo/a#inner\n  ← us:statutes/demo/a#outer');
  });

  test('an unlocated RuleSpecError is its message, prefixed by its file when known', () => {
    expect(describeError(new RuleSpecError('invalid_case', 'plain'))).toBe('plain');
    expect(describeError(new RuleSpecError('invalid_module', 'odd', { location: { file: '/nonexistent/x.yaml', path: ['rules'] } }))).toBe('/nonexistent/x.yaml: odd');
  });
});

describe('a bad module does not stop other files', () => {
  const good = `format: rulespec/v1
rules:
  - name: doubled
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: x * 2
`;
  const goodTests = `- name: doubles
  period: 2026-01
  input: {us:statutes/demo/good#input.x: 4}
  output: {us:statutes/demo/good#doubled: 8}
`;
  const bad = `format: rulespec/v1
rules:
  - name: broken
    kind: derived
    entity: Household
    versions:
      - effective_from: '2020-01-01'
        formula: round(x)
`;
  const badTests = `- name: one
  period: 2026-01
  input: {us:statutes/demo/bad#input.x: 4}
  output: {us:statutes/demo/bad#broken: 4}
- name: two
  period: 2026-01
  input: {us:statutes/demo/bad#input.x: 5}
  output: {us:statutes/demo/bad#broken: 5}
`;

  test('runTestFile on a good file in the same tree still passes; the bad file errors with a location', () => {
    const t = writeTree({
      'us/statutes/demo/bad.yaml': bad,
      'us/statutes/demo/bad.test.yaml': badTests,
      'us/statutes/demo/good.yaml': good,
      'us/statutes/demo/good.test.yaml': goodTests,
    });
    const badResults = runTestFile(t.tree, t.file('us/statutes/demo/bad.test.yaml'));
    expect(statuses(badResults)).toEqual({ one: 'error', two: 'error' });
    const d = located(badResults[0].error!);
    expect(d).toMatchObject({ file: t.file('us/statutes/demo/bad.yaml'), line: 8, column: 18 });
    expect(d.message).toMatch(/unknown function `round`/);

    const goodResults = runTestFile(t.tree, t.file('us/statutes/demo/good.test.yaml'));
    expect(statuses(goodResults)).toEqual({ doubles: 'pass' });
    expect(() => compileModule(t.tree, 'us:statutes/demo/good')).not.toThrow();
  });

  test('a module that imports a bad module cannot compile', () => {
    const t = writeTree({
      'us/statutes/demo/bad.yaml': bad,
      'us/statutes/demo/user.yaml': good.replace('rules:', 'imports: [us:statutes/demo/bad]\nrules:'),
    });
    const { err, text } = compileError(t, 'us:statutes/demo/user');
    expect(err.code).toBe('unknown_function');
    expect(located(text).file).toBe(t.file('us/statutes/demo/bad.yaml'));
  });

  test('a YAML error in a test file errors that file only', () => {
    const t = writeTree({
      'us/statutes/demo/good.yaml': good,
      'us/statutes/demo/good.test.yaml': goodTests,
      'us/statutes/demo/other.yaml': good.replace(/doubled/g, 'other'),
      'us/statutes/demo/other.test.yaml': '- name: broken\n  period: [2026-01\n',
    });
    const broken = runTestFile(t.tree, t.file('us/statutes/demo/other.test.yaml'));
    expect(broken.every((r) => r.status === 'error')).toBe(true);
    expect(broken[0].error).toMatch(/other\.test\.yaml:\d+:\d+: YAML/);
    expect(statuses(runTestFile(t.tree, t.file('us/statutes/demo/good.test.yaml')))).toEqual({ doubles: 'pass' });
  });
});
