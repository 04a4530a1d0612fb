import { describe, expect, it } from 'vitest';
import { parseModuleText } from '../../../../compiler/1-parse/module.js';
import { moduleProvisions } from '../../../../compiler/companion-tests/coverage/provisions.js';
import { dedent, moduleYaml } from '../../demo.js';

// What coverage counts in a module, read from its declarations alone.

const derived = (name: string, formula: string, dtype = 'Money') => `
- name: ${name}
  kind: derived
  entity: Household
  dtype: ${dtype}
  versions:
    - effective_from: '2026-01-01'
      formula: ${JSON.stringify(formula)}
`;

function provisions(rules: string) {
  const mod = parseModuleText(moduleYaml(rules), '/r/us/m.yaml', 'us:m', { lines: true });
  expect(mod.errors).toEqual([]);
  return moduleProvisions(mod).record;
}

describe('the provisions of a module', () => {
  it('are its derived rules and parameters, however written, and not its relations', () => {
    const m = provisions(
      dedent(`
      - name: members
        kind: data_relation
        data_relation: {arity: 2}
      - name: literal
        kind: derived
        versions: [{effective_from: '2026-01-01', formula: '12'}]
      - name: table
        kind: parameter
        indexed_by: n
        versions:
          - effective_from: '2025-01-01'
            formula: '0'
          - effective_from: '2026-01-01'
            values: {1: 5, 2: 6}
    `) + derived('total', 'table[n] + literal'),
    );
    expect(m.rules.map((r) => [r.name, r.kind])).toEqual([['literal', 'parameter'], ['table', 'parameter'], ['total', 'derived']]);
    // a table keeps only its versions with values (as the namespace does): one dated value, its rows
    expect(m.versions.map((v) => [v.rule, v.kind, v.from])).toEqual([['literal', 'parameter', '2026-01-01'], ['table', 'parameter', '2026-01-01'], ['total', 'derived', '2026-01-01']]);
    expect(m.branches.map((b) => [b.rule, b.kind, b.arms.map((a) => a.label)])).toEqual([['table', 'table', ['row 1', 'row 2']]]);
  });

  it('give an if one branch per arm and else, nested ifs their own', () => {
    const m = provisions(derived('x', 'if a: 1 elif b: (if c: 2 else: 3) else: 4'));
    expect(m.branches.map((b) => [b.kind, b.arms.map((a) => a.label)])).toEqual([['if', ['if', 'elif', 'else']], ['if', ['if', 'else']]]);
  });

  it('give a match one branch per patterned arm, then its `_` or "no arm matches"; a lone `_` is no branch', () => {
    expect(provisions(derived('x', 'match k: 1 => 10 2 => 20 _ => 0')).branches.map((b) => b.arms.map((a) => a.label))).toEqual([['1', '2', '_']]);
    expect(provisions(derived('x', 'match k: "a" => 10 true => 20')).branches.map((b) => b.arms.map((a) => a.label))).toEqual([['"a"', 'true', 'no arm matches']]);
    expect(provisions(derived('x', 'match k: _ => 0')).branches).toEqual([]);
  });

  it('give a chain of one connective one branch per operand, however it is bracketed; another connective inside is its own', () => {
    const judged = (formula: string) => provisions(derived('j', formula, 'Judgment')).branches.map((b) => [b.kind, b.arms.length]);
    expect(judged('a and b and c')).toEqual([['and', 3]]);
    expect(judged('a and (b and c)')).toEqual([['and', 3]]);
    expect(judged('a and (b or c) and not (d or e)')).toEqual([['and', 3], ['or', 2], ['or', 2]]);
    expect(judged('x > 1')).toEqual([]);
  });

  it('count nothing at all when the module read has no rules', () => {
    const mod = parseModuleText('format: rulespec/v1\n', '/r/us/e.yaml', 'us:e', { lines: true });
    expect(moduleProvisions(mod).record).toEqual({ file: '/r/us/e.yaml', target: 'us:e', rules: [], versions: [], branches: [] });
  });
});
