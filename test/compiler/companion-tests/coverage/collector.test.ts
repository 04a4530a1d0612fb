import { afterAll, describe, expect, it } from 'vitest';
import { SourceTree } from '../../../../compiler/2-resolve/source-tree.js';
import { CoverageCollector } from '../../../../compiler/companion-tests/coverage/collector.js';
import type { ModuleCoverage } from '../../../../compiler/companion-tests/coverage/provisions.js';
import { coverageReport } from '../../../../compiler/companion-tests/coverage/summary.js';
import { runTestFile } from '../../../../compiler/companion-tests/run-file.js';
import { dedent, moduleYaml, removeTempTrees, writeTree } from '../../demo.js';

// Each kind of counter, on a module where the answer is known: the cases leave an `else`
// untaken, a dated value unread, a rule always at zero and an `and` operand that never stops
// the evaluation; each is uncovered at its line, and one more case covers it.

afterAll(removeTempTrees);

const T = 'us:statutes/demo/a';
const RULES = dedent(`
  - name: rate
    kind: parameter
    dtype: Rate
    versions:
      - effective_from: '2025-01-01'
        formula: 0.1
      - effective_from: '2026-01-01'
        formula: 0.2
  - name: limit
    kind: parameter
    dtype: Money
    indexed_by: size
    versions:
      - effective_from: '2026-01-01'
        values: {1: 100, 2: 200, 3: 300}
  - name: benefit
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2025-01-01'
        formula: |-
          if amount > limit[size]:
            0
          else:
            amount * rate
  - name: surcharge
    kind: derived
    entity: Household
    dtype: Money
    versions:
      - effective_from: '2025-01-01'
        formula: max(0, amount - 1000)
  - name: eligible
    kind: derived
    entity: Household
    dtype: Judgment
    versions:
      - effective_from: '2025-01-01'
        formula: amount > 0 and size < 3 and not barred
  - name: region_rate
    kind: derived
    entity: Household
    dtype: Rate
    versions:
      - effective_from: '2025-01-01'
        formula: |-
          match region:
            "north" => 1
            "south" => 2
`);

const kase = (name: string, period: string, input: Record<string, unknown>, output: Record<string, unknown>) =>
  `- name: ${name}\n  period: ${period}\n  input:\n${Object.entries(input).map(([k, v]) => `    ${T}#input.${k}: ${JSON.stringify(v)}`).join('\n')}\n  output:\n${Object.entries(output).map(([k, v]) => `    ${T}#${k}: ${JSON.stringify(v)}`).join('\n')}\n`;

const BASE_CASES = [
  kase('under the limit', '2026-01', { amount: 50, size: 2, barred: false, region: 'north' }, { benefit: 10, surcharge: 0, eligible: 'holds', region_rate: 1 }),
  kase('barred', '2026-02', { amount: 60, size: 1, barred: true }, { eligible: 'not_holds' }),
];

/** Run the module's cases with coverage; its one record. */
function measure(cases: string[]): { m: ModuleCoverage; text: string } {
  const { root, file } = writeTree({ 'us/statutes/demo/a.yaml': moduleYaml(RULES), 'us/statutes/demo/a.test.yaml': cases.join('') });
  const tree = new SourceTree([root], undefined, { lines: true });
  const collector = new CoverageCollector(() => true);
  const results = runTestFile(tree, file('us/statutes/demo/a.test.yaml'), { coverage: collector });
  expect(results.map((r) => [r.case, r.status, r.error, r.failures])).toEqual(results.map((r) => [r.case, 'pass', undefined, []]));
  const { modules } = coverageReport(collector.records());
  expect(modules.map((m) => m.file)).toEqual([file('us/statutes/demo/a.yaml')]);
  return { m: modules[0], text: moduleYaml(RULES) };
}

const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
const arm = (m: ModuleCoverage, rule: string, label: string) => m.branches.filter((b) => b.rule === rule).flatMap((b) => b.arms).find((a) => a.label === label)!;

describe('coverage counters', () => {
  const before = measure(BASE_CASES);

  it('count every derived rule and parameter a case evaluates, per evaluation', () => {
    expect(before.m.rules.map((r) => [r.name, r.kind, r.hits])).toEqual([
      ['rate', 'parameter', 1],
      ['limit', 'parameter', 1],
      ['benefit', 'derived', 1],
      ['surcharge', 'derived', 1],
      ['eligible', 'derived', 2],
      ['region_rate', 'derived', 1],
    ]);
    expect(before.m.rules.map((r) => r.line)).toEqual(['rate', 'limit', 'benefit', 'surcharge', 'eligible', 'region_rate'].map((n) => lineOf(before.text, `- name: ${n}`)));
  });

  it('an untaken else is an uncovered branch at its line; a case over the limit covers it', () => {
    const otherwise = arm(before.m, 'benefit', 'else');
    expect(otherwise).toEqual({ label: 'else', line: lineOf(before.text, 'else:'), hits: 1 });
    const taken = arm(before.m, 'benefit', 'if');
    expect(taken).toEqual({ label: 'if', line: lineOf(before.text, 'if amount > limit'), hits: 0 });
    const after = measure([...BASE_CASES, kase('over the limit', '2026-01', { amount: 500, size: 1 }, { benefit: 0 })]);
    expect(arm(after.m, 'benefit', 'if').hits).toBe(1);
  });

  it('a dated value no case reads is uncovered at its effective_from; a case in that year covers it', () => {
    const dated = (m: ModuleCoverage) => m.versions.filter((v) => v.rule === 'rate').map((v) => [v.from, v.line, v.hits]);
    expect(dated(before.m)).toEqual([
      ['2025-01-01', lineOf(before.text, "effective_from: '2025-01-01'\n        formula: 0.1"), 0],
      ['2026-01-01', lineOf(before.text, "effective_from: '2026-01-01'\n        formula: 0.2"), 1],
    ]);
    const after = measure([...BASE_CASES, kase('the 2025 rate', '2025-06', { amount: 50 }, { rate: 0.1 })]);
    expect(dated(after.m).map((d) => d[2])).toEqual([1, 1]);
  });

  it('each table row read is a branch taken; rows no case looks up are not', () => {
    expect(before.m.branches.filter((b) => b.kind === 'table').map((b) => b.arms.map((a) => [a.label, a.hits]))).toEqual([[['row 1', 0], ['row 2', 1], ['row 3', 0]]]);
    expect(arm(before.m, 'limit', 'row 3').line).toBe(lineOf(before.text, 'values:'));
  });

  it('a rule every case sees at zero is not non-trivial; a case above the threshold makes it so', () => {
    const nonTrivial = (m: ModuleCoverage) => Object.fromEntries(m.rules.filter((r) => r.kind === 'derived').map((r) => [r.name, r.nonTrivial]));
    expect(nonTrivial(before.m)).toEqual({ benefit: 1, surcharge: 0, eligible: 1, region_rate: 1 });
    const after = measure([...BASE_CASES, kase('a big amount', '2026-01', { amount: 1500, size: 1 }, { surcharge: 500 })]);
    expect(nonTrivial(after.m).surcharge).toBe(1);
  });

  it('an and operand that never stops the evaluation never decided; a case where it is false does', () => {
    const chain = before.m.branches.find((b) => b.kind === 'and')!;
    expect(chain.line).toBe(lineOf(before.text, 'formula: amount > 0 and'));
    // three operands, one chain: the first never false, the second never false, the third once (barred)
    expect(chain.arms.map((a) => [a.label, a.hits])).toEqual([['operand 1 of 3', 0], ['operand 2 of 3', 0], ['operand 3 of 3', 2]]);
    const after = measure([...BASE_CASES, kase('nothing to count', '2026-01', { amount: 0, size: 1 }, { eligible: 'not_holds' })]);
    expect(after.m.branches.find((b) => b.kind === 'and')!.arms.map((a) => a.hits)).toEqual([1, 0, 2]);
  });

  it('match arms count as branches, and no arm matching is one more when there is no `_`', () => {
    expect(before.m.branches.find((b) => b.kind === 'match')!.arms.map((a) => [a.label, a.line, a.hits])).toEqual([
      ['"north"', lineOf(before.text, '"north" =>'), 1],
      ['"south"', lineOf(before.text, '"south" =>'), 0],
      ['no arm matches', lineOf(before.text, 'match region'), 0],
    ]);
  });

  it('a parameter asked for as an output counts its version and row', () => {
    const after = measure([...BASE_CASES, `- name: the table\n  period: 2026-01\n  input:\n    ${T}#input.size: 3\n  output:\n    ${T}#limit: 300\n`]);
    expect(arm(after.m, 'limit', 'row 3').hits).toBe(1);
    expect(after.m.rules.find((r) => r.name === 'limit')!.hits).toBe(2);
  });
});

describe('coverage of what a module imports', () => {
  it('counts rules of imported modules in the selection, and nothing of modules outside it', () => {
    const { root, file } = writeTree({
      'us/statutes/demo/base.yaml': moduleYaml(`
        - name: doubled
          kind: derived
          entity: Household
          dtype: Money
          versions:
            - effective_from: '2025-01-01'
              formula: amount * 2
        - name: unused
          kind: derived
          entity: Household
          dtype: Money
          versions:
            - effective_from: '2025-01-01'
              formula: amount * 3
      `),
      'us/statutes/demo/top.yaml': moduleYaml(
        `
        - name: total
          kind: derived
          entity: Household
          dtype: Money
          versions:
            - effective_from: '2025-01-01'
              formula: doubled + 1
      `,
        'imports:\n  - us:statutes/demo/base\n',
      ),
      'us/statutes/demo/top.test.yaml': `- name: adds one\n  period: 2026-01\n  input:\n    us:statutes/demo/base#input.amount: 5\n  output:\n    us:statutes/demo/top#total: 11\n`,
    });
    const run = (counted: (file: string) => boolean) => {
      const collector = new CoverageCollector(counted);
      const results = runTestFile(new SourceTree([root], undefined, { lines: true }), file('us/statutes/demo/top.test.yaml'), { coverage: collector });
      expect(results.map((r) => r.status)).toEqual(['pass']);
      return coverageReport(collector.records()).modules.map((m) => [m.target, m.rules.map((r) => [r.name, r.hits])]);
    };
    expect(run(() => true)).toEqual([
      ['us:statutes/demo/base', [['doubled', 1], ['unused', 0]]],
      ['us:statutes/demo/top', [['total', 1]]],
    ]);
    expect(run((f) => f.endsWith('top.yaml'))).toEqual([['us:statutes/demo/top', [['total', 1]]]]);
  });
});
