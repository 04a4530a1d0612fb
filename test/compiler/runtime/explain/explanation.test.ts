import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { calculate } from '../../../../compiler/runtime/calculate.js';
import { prepareHousehold } from '../../../../compiler/runtime/household.js';
import { toJson } from '../../../../compiler/values.js';
import type { ExplanationNode, RuleNode } from '../../../../compiler/runtime/explain/explanation.js';
import { generateHouseholds } from '../../../../bench/households.mjs';
import { builtPackage, loaded, PACKAGE_IDS } from '../../bundled.js';

// Explanations: for each output, the tree of what it was computed from for this household, and
// for a false or zero output the tests that decided it.

function* nodes(node: ExplanationNode): Generator<ExplanationNode> {
  yield node;
  if (node.kind !== 'input') for (const child of node.children) yield* nodes(child);
}

describe('the tree', () => {
  test.each(PACKAGE_IDS)('%s: roots equal the outputs; every node cites its source; leaves are inputs given or assumed, or rules that read no input', (id) => {
    const pkg = loaded(id);
    const households = [builtPackage(id).pkg.sample_request.household, ...generateHouseholds(pkg.pkg, 25, 3)];
    const inputNames = pkg.pkg.entities.flatMap((e) => e.inputs.map((i) => i.name));
    let explained = 0;
    for (const household of households) {
      let result;
      try {
        result = calculate(pkg, { household }, { explain: true });
      } catch {
        continue; // a generated household the package refuses (tested elsewhere)
      }
      explained++;
      const explanation = result.explanation!;
      expect(explanation.explanation_version).toBe(1);
      expect(explanation.period).toBe(result.period);
      for (const output of explanation.outputs) {
        const value = result.outputs[output.output];
        const perEntity = typeof value === 'object' && value !== null;
        expect(output.value).toEqual(perEntity ? (value as Record<string, unknown>)[output.entity_id] : value);
        expect(output.node.value).toEqual(output.value);
        for (const node of nodes(output.node)) {
          expect(node.citation.length, `${node.kind} ${node.name}`).toBeGreaterThan(0);
          if (node.kind === 'input') expect(['given', 'assumed']).toContain(node.status);
          // a rule without children read no rule and no input: its formula names none
          if (node.kind === 'rule' && node.children.length === 0) for (const name of inputNames) expect(node.formula.split(/[^A-Za-z0-9_]+/), node.name).not.toContain(name);
          if (node.kind === 'rule') for (const figure of node.figures) expect(figure.citation.length, figure.name).toBeGreaterThan(0);
        }
      }
      // what the tree marks assumed is exactly what the answer lists as assumed (period apart)
      const assumedInTree = new Set<string>();
      for (const output of explanation.outputs) for (const node of nodes(output.node)) if (node.kind === 'input' && node.status === 'assumed') assumedInTree.add(`${node.name}@${node.entity_id}`);
      const listed = result.assumptions.filter((a) => a.input !== 'period').map((a) => `${a.input}@${a.entity_id}`);
      expect([...assumedInTree].sort()).toEqual([...new Set(listed)].sort());
    }
    expect(explained).toBeGreaterThan(5);
  });

  test('a rule node gives the formula in force, its dated figures, the branch it took and the comparisons it decided', () => {
    // 7 USC 2017(a): one person, earned 1,200, FY 2026 (see calculate/assumptions.test.ts): 72
    const result = calculate(loaded('us-co/co-snap'), { household: { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 } } }, variables: ['snap_allotment'] }, { explain: true });
    const root = result.explanation!.outputs[0].node as RuleNode;
    expect(root).toMatchObject({ kind: 'rule', name: 'snap_allotment', value: 72, legal_id: expect.stringContaining('#snap_allotment') });
    expect(root.formula).toContain('if not snap_income_eligible: 0');
    expect(root.branches).toEqual([{ condition: 'snap_unit_size <= snap_minimum_allotment_max_household_size', branch: 1 }]);
    const all = [...nodes(root)];
    const maximum = all.find((n) => n.kind === 'rule' && n.figures.some((f) => f.name === 'snap_maximum_allotment_table')) as RuleNode;
    // the FY 2026 maximum allotment for one person, in force from October 2025 (the encoding gives no end)
    expect(maximum.figures.find((f) => f.name === 'snap_maximum_allotment_table')).toMatchObject({ key: 1, value: 298, in_force: { from: '2025-10-01', to: null } });
    const earned = all.find((n) => n.kind === 'input' && n.name === 'snap_earned_income');
    expect(earned).toMatchObject({ status: 'given', value: 1200, field: 'household.facts.earned_income' });
    const shelter = all.find((n) => n.kind === 'input' && n.name === 'snap_shelter_costs');
    expect(shelter).toMatchObject({ status: 'assumed', value: 0, reason: 'not_given' });
  });

  test('an input node names the entity, legal id and value the household gives it (the shortcuts against PreparedHousehold.entityOf, resolveInput and the dataset)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PACKAGE_IDS), fc.integer({ min: 1, max: 1_000_000 }), (id, seed) => {
        const pkg = loaded(id);
        for (const household of generateHouseholds(pkg.pkg, 3, seed)) {
          let result;
          try {
            result = calculate(pkg, { household, variables: pkg.pkg.outputs.map((o) => o.name) }, { explain: true });
          } catch {
            continue; // a generated household the package refuses (tested elsewhere)
          }
          const prepared = prepareHousehold(pkg, household);
          for (const output of result.explanation!.outputs) {
            for (const node of nodes(output.node)) {
              if (node.kind !== 'input') continue;
              const entity = prepared.entityOf(node.name, node.entity_id);
              const raw = prepared.dataset.inputRaw(node.name, node.entity_id, prepared.period);
              const value = raw === undefined ? null : typeof raw === 'number' ? raw + 0 : toJson(raw);
              expect({ input: node.name, entity: node.entity, legal_id: node.legal_id, value: node.value }).toEqual({ input: node.name, entity, legal_id: pkg.resolveInput(entity, node.name)?.legal_id ?? null, value });
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('deciding', () => {
  test('a household failing the gross income test: the test with both amounts and its citation', () => {
    // 5,200 earned for one person: above 1,696 (130 % of poverty, 7 CFR 273.9(a)(1)) and above
    // Colorado's expanded categorical eligibility limit 2,610 (10 CCR 2506-1 section 4.206)
    const result = calculate(loaded('us-co/co-snap'), { household: { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } }, variables: ['snap_income_eligible', 'snap_allotment'] }, { explain: true });
    for (const output of result.explanation!.outputs) {
      expect(output.value === false || output.value === 0).toBe(true);
      const gross = output.deciding!.find((d) => d.name === 'snap_passes_gross_income_test')!;
      expect(gross).toMatchObject({ holds: false, comparison: { left: { expression: 'snap_gross_income', value: 5200 }, op: '<=', right: { expression: 'snap_gross_income_limit', value: 1696 } } });
      expect(gross.citation[0]).toContain('7 CFR 273.9(a)');
      expect(gross.text).toContain('snap_gross_income (5200) exceeds snap_gross_income_limit (1696)');
      expect(gross.text).toContain('7 CFR 273.9(a)');
    }
  });

  test('an output that is neither false nor zero has no deciding list', () => {
    const result = calculate(loaded('us-co/co-snap'), { household: { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 } } }, variables: ['snap_allotment'] }, { explain: true });
    expect(result.explanation!.outputs[0].deciding).toBeUndefined();
  });

  test('the same household explains the same way each time, on either engine option', () => {
    const request = { household: { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } } };
    const a = calculate(loaded('us-co/co-snap'), request, { explain: true });
    const b = calculate(loaded('us-co/co-snap'), request, { explain: true, engine: 'interpreter' });
    expect(JSON.stringify(b.explanation)).toBe(JSON.stringify(a.explanation));
    expect(b.outputs).toEqual(calculate(loaded('us-co/co-snap'), request).outputs);
  });
});
