import { describe, expect, test } from 'vitest';
import type { IndexedRule, RuleDetail } from '../../../compiler/4-package/rule-index.js';
import type { Build } from '../../../compiler/build.js';
import { Workspace } from '../../../compiler/workspace.js';
import { builtPackage, bundledBuild, PACKAGE_IDS, PROGRAMS, RULESPEC } from '../bundled.js';

// The rule index (one RuleDetail per rule of every module) and the program list of a build of
// the bundled encodings.

const ALLOTMENT = 'us:statutes/7/2017/a#snap_allotment';
const FOOD_CONTRIBUTION = 'us:statutes/7/2017/a#snap_expected_food_contribution';
const NET_INCOME = 'us:statutes/7/2014/e#snap_net_income';

const build = bundledBuild();
const entries: IndexedRule[] = [...build.index.values()].flat();
const byId = new Map<string, RuleDetail>(entries.map((e) => [e.rule.id, e.rule]));
const rule = (id: string): RuleDetail => {
  const found = byId.get(id);
  if (!found) throw new Error(`${id} is not in the rule index`);
  return found;
};

describe('rule index', () => {
  test('indexes every module, each rule under its own module, once', () => {
    expect(build.index.size).toBe(build.modules);
    expect(byId.size).toBe(entries.length);
    for (const [target, shard] of build.index) {
      for (const { rule: r } of shard) expect(r.id.startsWith(`${target}#`), r.id).toBe(true);
    }
  });

  test('every rule of every package graph is indexed', () => {
    for (const id of PACKAGE_IDS) {
      for (const r of builtPackage(id).graph.rules) expect(byId.has(r.legalId), `${id}: ${r.legalId}`).toBe(true);
    }
  });

  test('every RuleDetail has a slash-separated citation_path', () => {
    for (const r of byId.values()) {
      expect(r.citation_path, r.id).toContain('/');
      expect(r.citation_path, r.id).not.toMatch(/[:#]/);
      // `<jurisdiction>/<path>/<fragment>`: the legal id with `:` and `#` as slashes
      expect(r.citation_path, r.id).toBe(r.id.replace(':', '/').replace('#', '/'));
    }
    expect(rule(ALLOTMENT).citation_path).toBe('us/statutes/7/2017/a/snap_allotment');
  });

  test('derived rules and parameters of the encodings are `encoded`', () => {
    const { graph } = builtPackage('us/snap');
    for (const r of graph.rules) expect(rule(r.legalId).status, r.legalId).toBe('encoded');
  });

  test('provenance fields are non-empty', () => {
    for (const r of byId.values()) {
      for (const [key, value] of Object.entries(r.provenance)) {
        expect(typeof value, `${r.id} ${key}`).toBe('string');
        expect(value.trim(), `${r.id} ${key}`).not.toBe('');
      }
    }
    expect(rule(ALLOTMENT).provenance.rulespec_path).toBe('us/statutes/7/2017/a.yaml');
  });

  test('source_count is the number of sources', () => {
    for (const { rule: r, sources } of entries) {
      expect(r.source_count, r.id).toBe(sources.length);
      expect(sources.length, r.id).toBeGreaterThan(0);
    }
  });

  test('a rule with a source and URL lists it as an official source, and its encoding as a repository source', () => {
    const { sources } = entries.find((e) => e.rule.id === ALLOTMENT)!;
    expect(sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: '7 USC 2017(a)', url: 'https://www.law.cornell.edu/uscode/text/7/2017', source_type: 'official' }),
        expect.objectContaining({ source_type: 'repository' }),
      ]),
    );
  });

  test('jurisdiction, program and document class follow the module', () => {
    expect(rule(ALLOTMENT)).toMatchObject({ jurisdiction: 'us', program_id: 'snap', document_class: 'statute', name: 'snap_allotment' });
    expect(rule('us:regulations/7-cfr/273/9#snap_income_eligible').document_class).toBe('regulation');
    expect(rule('us-ny:regulations/18-nycrr/section-387.12#snap_utility_allowance')).toMatchObject({ jurisdiction: 'us-ny', program_id: 'ny-snap' });
  });

  test('dependencies of snap_allotment include snap_expected_food_contribution (same module)…', () => {
    // snap_allotment reads snap_allotment_before_minimum, which reads the food contribution; the
    // direct dependencies of snap_allotment include snap_allotment_before_minimum
    expect(rule(ALLOTMENT).dependencies).toEqual(expect.arrayContaining(['us:statutes/7/2017/a#snap_allotment_before_minimum', 'us:regulations/7-cfr/273/9#snap_income_eligible']));
    expect(rule('us:statutes/7/2017/a#snap_allotment_before_minimum').dependencies).toContain(FOOD_CONTRIBUTION);
  });

  test('…and dependencies reach across modules through imports', () => {
    expect(rule(FOOD_CONTRIBUTION).dependencies).toEqual(expect.arrayContaining([NET_INCOME, 'us:statutes/7/2017/a#snap_net_income_contribution_rate']));
  });

  test('dependents are the inverse of dependencies over the whole index', () => {
    // some rule must have dependents, or they were never computed
    expect([...byId.values()].some((r) => r.dependents.length > 0)).toBe(true);
    for (const r of byId.values()) {
      for (const dep of r.dependencies) {
        const target = byId.get(dep);
        if (target) expect(target.dependents, `${dep} should list ${r.id} as a dependent`).toContain(r.id);
      }
      for (const dependent of r.dependents) expect(rule(dependent).dependencies, `${dependent} -> ${r.id}`).toContain(r.id);
    }
  });

  test('dependents within a module: snap_expected_food_contribution is used by snap_allotment_before_minimum', () => {
    expect(rule(FOOD_CONTRIBUTION).dependents).toContain('us:statutes/7/2017/a#snap_allotment_before_minimum');
  });

  test('dependents across modules: snap_net_income is used by the food contribution and the net income test', () => {
    expect(rule(NET_INCOME).dependents).toEqual(expect.arrayContaining([FOOD_CONTRIBUTION, 'us:regulations/7-cfr/273/9#snap_passes_net_income_test']));
  });

  test('dependents across jurisdictions: each state benefit depends on the federal allotment', () => {
    expect(rule(ALLOTMENT).dependents).toEqual(
      expect.arrayContaining(['us-co:policies/cdhs/snap/fy-2026-benefit#co_snap_monthly_benefit', 'us-ny:policies/otda/snap/fy-2026-benefit#ny_snap_monthly_benefit', 'us-ca:policies/cdss/snap/fy-2026-benefit#ca_snap_monthly_benefit']),
    );
  });

  test('a rebuild of the same workspace gives the same dependencies and dependents', () => {
    // the workspace caches index shards: a second build must not lose or duplicate dependents
    const links = (b: Build) => [...b.index.values()].flat().map(({ rule: r }) => [r.id, [...r.dependencies].sort(), [...r.dependents].sort()]);
    const ws = new Workspace([RULESPEC], [PROGRAMS]);
    const first = links(ws.build());
    expect(links(ws.build())).toEqual(first);
    expect(first).toEqual(links(build));
  });
});

describe('program list', () => {
  test('lists us/snap, us-co/co-snap, us-ny/ny-snap and us-ca/ca-snap, available (or partial with a reason), with rules', () => {
    const programs = build.programs;
    for (const id of PACKAGE_IDS) {
      const [jurisdiction, programId] = id.split('/');
      const entry = programs.find((p) => p.jurisdiction === jurisdiction && p.id === programId);
      expect(entry, id).toBeDefined();
      expect(['available', 'partial'], id).toContain(entry!.status);
      if (entry!.status === 'partial') expect(entry!.status_reason.trim(), id).not.toBe('');
      expect(entry!.rule_count, id).toBeGreaterThan(0);
      expect(entry!.name.trim(), id).not.toBe('');
    }
  });

  test('the bundled packages are all available, and the status reason names the runtime id', () => {
    for (const id of PACKAGE_IDS) {
      const { pkg } = builtPackage(id, build);
      const entry = build.programs.find((p) => p.jurisdiction === pkg.jurisdiction && p.id === pkg.program_id)!;
      expect(entry.status, id).toBe('available');
      expect(entry.status_reason, id).toContain(pkg.runtime_id);
    }
  });

  test('rule counts are the indexed rules of each jurisdiction and program', () => {
    for (const entry of build.programs) {
      const count = entries.filter((e) => e.rule.jurisdiction === entry.jurisdiction && e.rule.program_id === entry.id).length;
      expect(entry.rule_count, `${entry.jurisdiction}/${entry.id}`).toBe(count);
    }
  });
});
