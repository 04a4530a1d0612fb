import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { SourceTree } from '../../../compiler/2-resolve/source-tree.js';
import { composeGraph, FocusError } from '../../../compiler/4-package/compose-graph.js';
import type { ProgramGraph } from '../../../compiler/4-package/package-types.js';
import { builtPackage, RULESPEC, thrown } from '../bundled.js';

// Program graphs: the one built with each package (programGraph) and the ones composed on
// demand for any file or rule legal id (composeGraph).

const ALLOTMENT = 'us:statutes/7/2017/a#snap_allotment';
const FOOD_CONTRIBUTION = 'us:statutes/7/2017/a#snap_expected_food_contribution';
const MEMBER_OF_HOUSEHOLD = 'us:statutes/7/2012/j#relation.member_of_household';

const GRAPH_RULE_FIELDS = ['legalId', 'name', 'fileLegalId', 'kind', 'entity', 'dtype', 'period', 'unit', 'source', 'sourceUrl', 'ruleDeps', 'inputDeps', 'relationDeps', 'formula'];

/** Structural checks that hold for any ProgramGraph. */
function expectWellFormed(graph: ProgramGraph): void {
  const ids = new Set(graph.rules.map((r) => r.legalId));
  expect(ids.size).toBe(graph.rules.length); // no rule twice
  for (const rule of graph.rules) {
    expect(Object.keys(rule).sort(), rule.legalId).toEqual([...GRAPH_RULE_FIELDS].sort());
    expect(['derived', 'parameter']).toContain(rule.kind);
    expect(rule.legalId).toBe(`${rule.fileLegalId}#${rule.name}`);
    for (const dep of rule.ruleDeps) expect(ids.has(dep), `${rule.legalId} -> ${dep}`).toBe(true);
    for (const dep of rule.inputDeps) expect(dep, rule.legalId).toMatch(/#input\.[a-z0-9_]+$/);
    for (const dep of rule.relationDeps) expect(graph.relations.map((r) => r.legalId), rule.legalId).toContain(dep);
  }
  const consumed = new Set(graph.rules.flatMap((r) => r.ruleDeps));
  for (const id of graph.terminalOutputs) {
    expect(ids.has(id), id).toBe(true);
    expect(consumed.has(id), `terminal output ${id} is some rule's dependency`).toBe(false);
  }
}

describe('programGraph of us/snap', () => {
  const { pkg, graph } = builtPackage('us/snap');

  test('is well formed: every rule has the ProgramGraph fields and every ruleDeps id is a rule of the graph', () => {
    expect(graph.rules.length).toBeGreaterThan(20);
    expectWellFormed(graph);
  });

  test('derived rules carry their entity, dtype, source and formula; parameters have no entity', () => {
    const allotment = graph.rules.find((r) => r.legalId === ALLOTMENT)!;
    expect(allotment).toMatchObject({ name: 'snap_allotment', fileLegalId: 'us:statutes/7/2017/a', kind: 'derived', entity: 'Household', dtype: 'Money', period: 'Month', unit: 'USD', source: '7 USC 2017(a)', sourceUrl: 'https://www.law.cornell.edu/uscode/text/7/2017' });
    expect(allotment.formula).toContain('snap_allotment_before_minimum');
    expect(allotment.ruleDeps).toEqual(expect.arrayContaining(['us:statutes/7/2017/a#snap_allotment_before_minimum', 'us:regulations/7-cfr/273/9#snap_income_eligible']));
    for (const rule of graph.rules.filter((r) => r.kind === 'parameter')) expect(rule.entity, rule.legalId).toBeNull();
  });

  test('ownOutputs are the legal ids of the package outputs', () => {
    const own = pkg.outputs.filter((o) => !o.alias_for).map((o) => o.legal_id);
    expect(graph.ownOutputs).toEqual(own);
  });

  test('terminalOutputs contain snap_allotment and no id any rule depends on', () => {
    expect(graph.terminalOutputs).toContain(ALLOTMENT);
    const consumed = new Set(graph.rules.flatMap((r) => r.ruleDeps));
    expect(graph.terminalOutputs.filter((id) => consumed.has(id))).toEqual([]);
    expect(graph.terminalOutputs).not.toContain(FOOD_CONTRIBUTION);
  });

  test('the member_of_household relation is in the graph and the rule that counts members depends on it', () => {
    expect(graph.relations.map((r) => r.legalId)).toContain(MEMBER_OF_HOUSEHOLD);
    const counting = graph.rules.find((r) => r.name === 'snap_household_has_elderly_or_disabled_member')!;
    expect(counting.relationDeps).toEqual([MEMBER_OF_HOUSEHOLD]);
  });

  test('the member_of_household relation lists the member inputs (age, snap_member_is_disabled) in memberInputIds', () => {
    // The members are counted through a rule (count_where(member_of_household,
    // snap_member_is_elderly_or_disabled)), and that rule reads age and snap_member_is_disabled.
    const relation = graph.relations.find((r) => r.legalId === MEMBER_OF_HOUSEHOLD)!;
    expect(relation.memberInputIds).toEqual(expect.arrayContaining(['us:statutes/7/2012/j#input.age', 'us:statutes/7/2012/j#input.snap_member_is_disabled']));
  });

  test('every input legal id a rule depends on is listed in inputs', () => {
    const inputIds = new Set(graph.inputs.map((i) => i.legalId));
    for (const rule of graph.rules) for (const dep of rule.inputDeps) expect(inputIds.has(dep), `${rule.legalId} -> ${dep}`).toBe(true);
  });

  test('the state packages graphs are well formed too, and their own outputs include the state benefit', () => {
    for (const [id, benefit] of [
      ['us-co/co-snap', 'us-co:policies/cdhs/snap/fy-2026-benefit#co_snap_monthly_benefit'],
      ['us-ny/ny-snap', 'us-ny:policies/otda/snap/fy-2026-benefit#ny_snap_monthly_benefit'],
      ['us-ca/ca-snap', 'us-ca:policies/cdss/snap/fy-2026-benefit#ca_snap_monthly_benefit'],
    ] as const) {
      const { graph: g } = builtPackage(id);
      expectWellFormed(g);
      expect(g.ownOutputs, id).toContain(benefit);
      expect(g.terminalOutputs, id).toContain(benefit);
      expect(g.terminalOutputs, id).not.toContain(ALLOTMENT); // the state benefit consumes it
    }
  });
});

describe('composeGraph over rulespec/', () => {
  const tree = new SourceTree([RULESPEC]);

  test('a file focus lists the file and its (transitive) imports, untruncated', () => {
    const { graph, files, truncated } = composeGraph(tree, 'us:statutes/7/2017/a');
    expect(truncated).toBe(false);
    expect(files).toEqual(
      expect.arrayContaining([
        'us:statutes/7/2017/a',
        'us:regulations/7-cfr/273/9',
        'us:policies/usda/snap/fy-2026/maximum-allotments',
        'us:statutes/7/2014/e',
        'us:statutes/7/2012/j',
        'us:policies/usda/snap/fy-2026/deductions',
        'us:policies/usda/snap/fy-2026/income-standards',
      ]),
    );
    expect(files.every((f) => f.startsWith('us:'))).toBe(true); // no state module
    expectWellFormed(graph);
    expect(graph.rules.map((r) => r.legalId)).toContain(ALLOTMENT);
    // the file's own rules are its outputs
    expect(graph.ownOutputs).toContain(ALLOTMENT);
    expect(graph.ownOutputs.every((id) => id.startsWith('us:statutes/7/2017/a#'))).toBe(true);
    expect(graph.terminalOutputs).toContain(ALLOTMENT);
  });

  test('a rule focus returns only its dependency cone', () => {
    const { graph, files, truncated } = composeGraph(tree, FOOD_CONTRIBUTION);
    expect(truncated).toBe(false);
    expectWellFormed(graph);
    const ids = graph.rules.map((r) => r.legalId);
    // what it depends on, directly and through snap_net_income
    expect(ids).toEqual(
      expect.arrayContaining([
        FOOD_CONTRIBUTION,
        'us:statutes/7/2017/a#snap_net_income_contribution_rate',
        'us:statutes/7/2014/e#snap_net_income',
        'us:statutes/7/2014/e#snap_gross_income',
        'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction',
        'us:statutes/7/2012/j#snap_household_has_elderly_or_disabled_member',
      ]),
    );
    // what depends on it, and what is unrelated, is absent
    for (const absent of [ALLOTMENT, 'us:policies/usda/snap/fy-2026/maximum-allotments#snap_maximum_allotment', 'us:regulations/7-cfr/273/9#snap_income_eligible', 'us:policies/usda/snap/fy-2026/deductions#snap_homeless_shelter_deduction_amount']) {
      expect(ids).not.toContain(absent);
    }
    expect(graph.ownOutputs).toEqual([FOOD_CONTRIBUTION]);
    expect(graph.terminalOutputs).toEqual([FOOD_CONTRIBUTION]);
    expect(files).not.toContain('us:policies/usda/snap/fy-2026/maximum-allotments');
    expect(files).not.toContain('us:regulations/7-cfr/273/9');
    expect(graph.relations.map((r) => r.legalId)).toContain(MEMBER_OF_HOUSEHOLD);
  });

  test('a leaf rule focus is just that rule and its inputs', () => {
    const { graph, files } = composeGraph(tree, 'us:statutes/7/2014/e#snap_child_support_income_exclusion');
    expect(graph.rules.map((r) => r.legalId)).toEqual(['us:statutes/7/2014/e#snap_child_support_income_exclusion']);
    expect(graph.rules[0].inputDeps.sort()).toEqual(['us:statutes/7/2014/e#input.snap_child_support_paid', 'us:statutes/7/2014/e#input.snap_state_excludes_child_support_paid']);
    expect(files).toEqual(['us:statutes/7/2014/e']);
  });

  test('a state rule focus reaches into the federal modules it imports', () => {
    const { graph } = composeGraph(tree, 'us-ny:regulations/18-nycrr/section-387.14#snap_categorically_eligible');
    expect(graph.rules.map((r) => r.legalId)).toEqual(expect.arrayContaining(['us:statutes/7/2014/e#snap_gross_income', 'us:policies/usda/snap/fy-2026/income-standards#snap_net_income_limit']));
  });

  test('a tiny limit truncates', () => {
    const { graph, files, truncated } = composeGraph(tree, 'us:statutes/7/2017/a', { maxFiles: 2, maxRules: 5 });
    expect(truncated).toBe(true);
    expect(graph.rules.length).toBeLessThanOrEqual(5);
    expect(files.length).toBeLessThanOrEqual(2);
  });

  test('a rule limit alone truncates', () => {
    const { graph, truncated } = composeGraph(tree, 'us:statutes/7/2017/a', { maxFiles: 200, maxRules: 3 });
    expect(truncated).toBe(true);
    expect(graph.rules.length).toBeLessThanOrEqual(3);
  });

  test.each(['nonsense', '', 'us:', 'US:statutes/7/2017/a', 'us:statutes/7/2017/a#', 'us:statutes/7/2017/a#snap allotment', 'statutes/7/2017/a'])('a malformed focus %j is a FocusError of kind invalid', (focus) => {
    const err = thrown(() => composeGraph(tree, focus));
    expect(err).toBeInstanceOf(FocusError);
    expect((err as FocusError).kind).toBe('invalid');
  });

  test.each(['us:statutes/7/2017/zz', 'us-ny:regulations/none', 'us:statutes/7/2017/a#no_such_rule', 'us:../rulespec/us/statutes/7/2017/a'])('a missing file or rule %j is a FocusError of kind not_found', (focus) => {
    const err = thrown(() => composeGraph(tree, focus));
    expect(err).toBeInstanceOf(FocusError);
    expect((err as FocusError).kind).toBe('not_found');
  });

  test('a rule that a file only imports is not found under that file', () => {
    const err = thrown(() => composeGraph(tree, 'us:statutes/7/2017/a#snap_net_income'));
    expect((err as FocusError).kind).toBe('not_found');
  });
});

describe('composeGraph under a multi-part jurisdiction', () => {
  test('a focus whose jurisdiction has many `-` parts is parsed and found', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rules-focus-'));
    const file = path.join(root, 'uk-bath-and-north-east-somerset/legislation/council-tax.yaml');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `format: rulespec/v1\nrules:\n  - name: reduction\n    kind: derived\n    entity: Household\n    dtype: Money\n    versions:\n      - effective_from: '2026-04-01'\n        formula: amount * 2\n`);
    const { graph } = composeGraph(new SourceTree([root]), 'uk-bath-and-north-east-somerset:legislation/council-tax#reduction');
    expect(graph.rules.map((r) => r.legalId)).toEqual(['uk-bath-and-north-east-somerset:legislation/council-tax#reduction']);
    expect((thrown(() => composeGraph(new SourceTree([root]), 'uk-Bath:legislation/council-tax')) as FocusError).kind).toBe('invalid');
  });
});
