import { describe, expect, it } from 'vitest';
import { formulaLine } from '../../../compiler/1-parse/module-lines.js';
import { parseModuleText } from '../../../compiler/1-parse/module.js';

// The source lines a module read with lines carries: what coverage points at.

const lineOf = (text: string, needle: string, from = 0) => text.slice(0, text.indexOf(needle, from)).split('\n').length;

const MODULE = `format: rulespec/v1
rules:
  - name: rate
    kind: parameter
    versions:
      - effective_from: '2025-01-01'
        formula: 0.1
      - from: '2026-01-01'
        formula: 0.2
  - name: limit
    kind: parameter
    indexed_by: size
    versions:
      - effective_from: '2026-01-01'
        values:
          1: 100
          02: 200
          "3": 300
  - name: benefit
    kind: derived
    entity: Household
    effective_from: '2026-01-01'
    formula: |-
      if amount > 10:
        amount
      elif amount > 5: 5
      else: 0
  - name: folded
    kind: derived
    entity: Household
    versions:
      - effective_from: '2026-01-01'
        formula: >-
          match kind:
            "a" => 1
            _ => 2
  - name: quoted
    kind: derived
    entity: Household
    versions: [{effective_from: '2026-01-01', formula: "if a: 1 else: 2"}]
`;

describe('module lines', () => {
  const mod = parseModuleText(MODULE, 'm.yaml', 'us:m', { lines: true });
  const [rate, limit, benefit, folded, quoted] = mod.rules;

  it('are only read when asked for', () => {
    const plain = parseModuleText(MODULE, 'm.yaml', 'us:m');
    expect(plain.rules.map((r) => r.line)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(plain.rules[0].versions[0].fromLine).toBeUndefined();
  });

  it('give each rule its first line and each version its start and effective_from (or from)', () => {
    expect(mod.rules.map((r) => r.line)).toEqual(['rate', 'limit', 'benefit', 'folded', 'quoted'].map((n) => lineOf(MODULE, `- name: ${n}`)));
    expect(rate.versions.map((v) => [v.line, v.fromLine])).toEqual([
      [lineOf(MODULE, "effective_from: '2025"), lineOf(MODULE, "effective_from: '2025")],
      [lineOf(MODULE, "from: '2026"), lineOf(MODULE, "from: '2026")],
    ]);
    // a version written on the rule itself starts where the rule does
    expect([benefit.versions[0].line, benefit.versions[0].fromLine]).toEqual([benefit.line, lineOf(MODULE, "effective_from: '2026-01-01'\n    formula: |-")]);
  });

  it('give each table row its line, whatever the key looks like', () => {
    expect(limit.versions[0].rowLines).toEqual([lineOf(MODULE, '1: 100'), lineOf(MODULE, '02: 200'), lineOf(MODULE, '"3": 300')]);
  });

  it("place every arm of a multi-line formula on its own line: block, folded and one-line flow scalars", () => {
    const e = benefit.versions[0].formula!;
    expect(e.expr.t).toBe('if');
    if (e.expr.t !== 'if') return;
    const lines = { line: e.line!, breaks: e.breaks };
    expect(formulaLine(lines, e.expr.pos)).toBe(lineOf(MODULE, 'if amount > 10'));
    expect(formulaLine(lines, e.expr.branches[1].pos)).toBe(lineOf(MODULE, 'elif amount'));
    expect(formulaLine(lines, e.expr.elsePos)).toBe(lineOf(MODULE, 'else: 0'));

    const m = folded.versions[0].formula!;
    if (m.expr.t !== 'match') throw new Error('a match');
    expect(m.expr.arms.map((a) => formulaLine({ line: m.line!, breaks: m.breaks }, a.pos))).toEqual([lineOf(MODULE, '"a" => 1'), lineOf(MODULE, '_ => 2')]);

    const q = quoted.versions[0].formula!;
    if (q.expr.t !== 'if') throw new Error('an if');
    expect([q.line, q.breaks]).toEqual([lineOf(MODULE, '{effective_from'), undefined]);
    expect(formulaLine({ line: q.line! }, q.expr.elsePos)).toBe(q.line);
  });
});
