import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { calculate, OutputError } from '../../compiler/runtime/calculate.js';
import { Workspace } from '../../compiler/workspace.js';
import { buildWorkspace, builtPackage, bundledBuild, calc, copyRulespec, loadSerialized, PACKAGE_IDS, removeCopy, thrown } from './bundled.js';

// The runtime packages `rules compile` makes from the bundled SNAP encodings: their shape, their
// sample requests, the stability of their runtime ids, and how calculate() names outputs.

describe('the bundled packages', () => {
  test('the build has exactly the four SNAP packages and no failures', () => {
    const build = bundledBuild();
    expect(build.failures).toEqual([]);
    expect(build.moduleErrors).toEqual([]);
    expect(build.packages.map((p) => `${p.pkg.jurisdiction}/${p.pkg.program_id}`).sort()).toEqual([...PACKAGE_IDS].sort());
  });

  describe.each(PACKAGE_IDS)('%s', (id) => {
    const pkg = () => builtPackage(id).pkg;

    test('is ready, with no notes', () => {
      expect(pkg().status).toBe('ready');
      expect(pkg().notes).toEqual([]);
      expect(pkg().runtime_id).toMatch(new RegExp(`^${id}@[0-9a-f]{12}$`));
    });

    test('every default output has an outputs entry with a legal id', () => {
      const { default_outputs, outputs } = pkg();
      expect(default_outputs.length).toBeGreaterThan(0);
      for (const name of default_outputs) {
        const entry = outputs.find((o) => o.name === name && !o.alias_for);
        expect(entry, name).toBeDefined();
        expect(entry!.legal_id, name).toMatch(new RegExp(`^[a-z-]+:[^#]+#${name}$`));
      }
    });

    test('has a Household main entity whose id is `household`', () => {
      const household = pkg().entities.find((e) => e.entity === 'Household');
      expect(household).toBeDefined();
      expect(household!.id_template).toBe('household');
      expect(pkg().main_entity).toBe('Household');
    });

    test('its sample request computes every default output from the serialized package, with no warnings', () => {
      const { sample_request, default_outputs, program_id, jurisdiction } = pkg();
      expect(`${sample_request.jurisdiction}/${sample_request.program_id}`).toBe(`${jurisdiction}/${program_id}`);
      const result = calculate(loadSerialized(pkg()), sample_request);
      expect(result.warnings).toEqual([]);
      expect(Object.keys(result.outputs).sort()).toEqual([...default_outputs].sort());
      for (const name of default_outputs) {
        expect(result.outputs[name], name).not.toBeNull();
        expect(result.outputs[name], name).not.toBeUndefined();
      }
    });
  });
});

describe('runtime_id', () => {
  const copies: string[] = [];
  afterAll(() => copies.forEach(removeCopy));
  const ids = (build: ReturnType<typeof buildWorkspace>) => Object.fromEntries(build.packages.map((p) => [`${p.pkg.jurisdiction}/${p.pkg.program_id}`, p.pkg.runtime_id]));

  test('is the same for two builds of the same sources', () => {
    expect(ids(buildWorkspace())).toEqual(ids(buildWorkspace()));
    const { dir, root } = copyRulespec();
    copies.push(dir);
    expect(ids(buildWorkspace(root))).toEqual(ids(buildWorkspace(root)));
  });

  test('changes for every package whose closure contains an edited module, and only for those', () => {
    const { dir, root } = copyRulespec();
    copies.push(dir);
    const before = ids(buildWorkspace(root));

    // the federal shelter cap: every package imports it
    const deductions = path.join(root, 'us/policies/usda/snap/fy-2026/deductions.yaml');
    writeFileSync(deductions, readFileSync(deductions, 'utf8').replace("formula: '744'", "formula: '800'"));
    const afterFederal = ids(buildWorkspace(root));
    for (const id of PACKAGE_IDS) expect(afterFederal[id], id).not.toBe(before[id]);

    // New York's telephone allowance: only the New York package reads it
    const ny = path.join(root, 'us-ny/regulations/18-nycrr/section-387.12.yaml');
    writeFileSync(ny, readFileSync(ny, 'utf8').replace("formula: '32'", "formula: '33'"));
    const afterNy = ids(buildWorkspace(root));
    expect(afterNy['us-ny/ny-snap']).not.toBe(afterFederal['us-ny/ny-snap']);
    for (const id of ['us/snap', 'us-co/co-snap', 'us-ca/ca-snap']) expect(afterNy[id], id).toBe(afterFederal[id]);
  });

  test('an incremental rebuild (invalidate, then build) gives the new id and computes with the edited number', () => {
    const { dir, root } = copyRulespec();
    copies.push(dir);
    const ws = new Workspace([root], [path.join(root, 'programs')]);
    const first = ws.build().packages.find((p) => p.pkg.jurisdiction === 'us')!.pkg;
    const deductions = path.join(root, 'us/policies/usda/snap/fy-2026/deductions.yaml');
    writeFileSync(deductions, readFileSync(deductions, 'utf8').replace("formula: '744'", "formula: '800'"));
    ws.invalidate(deductions);
    const second = ws.build().packages.find((p) => p.pkg.jurisdiction === 'us')!.pkg;
    expect(second.runtime_id).not.toBe(first.runtime_id);
    expect(second.runtime_id).toBe(builtPackage('us/snap', buildWorkspace(root)).pkg.runtime_id);

    // family of 3, earned 1,500, shelter 900 + utility allowance 500: excess shelter 904.50 is now
    // capped at 800, net 991 - 800 = 191, 30% = 57.30 -> 58, allotment 785 - 58 = 727 (was 710)
    const household = { facts: { household_size: 3, snap_earned_income: 1500, snap_shelter_costs: 900, snap_utility_allowance: 500 } };
    expect(calculate(loadSerialized(first), { household }).outputs.snap_allotment).toBe(710);
    expect(calculate(loadSerialized(second), { household }).outputs).toMatchObject({ snap_net_income: 191, snap_allotment: 727 });
  });

  test('an incremental rebuild sees a spec added in the second layout and a folder that is not a jurisdiction', () => {
    const { dir, root } = copyRulespec();
    copies.push(dir);
    const ws = new Workspace([root], [path.join(root, 'programs')]);
    expect(ws.build().warnings).toEqual([]);
    const spec = path.join(root, 'us-co/programs/snap-copy/2026-01.yaml');
    mkdirSync(path.dirname(spec), { recursive: true });
    writeFileSync(spec, readFileSync(path.join(root, 'programs/us-co/snap/fy-2026.yaml'), 'utf8').replace('program: us-co/snap', 'program: us-co/snap-copy').replace('id: co-snap', 'id: co-snap-copy'));
    const stray = path.join(root, 'drafts/notes.yaml');
    mkdirSync(path.dirname(stray), { recursive: true });
    writeFileSync(stray, 'a: 1\n');
    ws.invalidate(spec);
    ws.invalidate(stray);
    const build = ws.build();
    expect(build.packages.map((p) => p.pkg.program_id)).toContain('co-snap-copy');
    expect(build.warnings).toEqual([{ path: path.dirname(stray), reason: expect.stringMatching(/not a jurisdiction folder/) }]);
    expect(build.modules).toBe(bundledBuild().modules);
  });

  test('does not depend on where identical sources live on disk', () => {
    // The bundled rulespec ships inside the npm package, so every install path would otherwise
    // give the same packages different runtime ids.
    const a = copyRulespec();
    const b = copyRulespec();
    copies.push(a.dir, b.dir);
    expect(ids(buildWorkspace(a.root))).toEqual(ids(buildWorkspace(b.root)));
  });
});

describe('outputs requested through calculate()', () => {
  // household of 3, earned 1,500, shelter 900, utility allowance 500 -> allotment 710 (7 USC 2017(a) tests)
  const household = { facts: { household_size: 3, snap_earned_income: 1500, snap_shelter_costs: 900, snap_utility_allowance: 500 } };

  test('resolve by name, by output alias and by legal id, each reported under the name asked for', () => {
    const legalId = builtPackage('us/snap').pkg.outputs.find((o) => o.name === 'snap_allotment')!.legal_id!;
    expect(legalId).toBe('us:statutes/7/2017/a#snap_allotment');
    expect(calc('us/snap', household, ['snap_allotment', 'allotment', legalId]).outputs).toEqual({
      snap_allotment: 710,
      allotment: 710,
      [legalId]: 710,
    });
  });

  test('every output alias of every package names an output that computes', () => {
    for (const id of PACKAGE_IDS) {
      const { pkg } = builtPackage(id);
      for (const [alias, canonical] of Object.entries(pkg.output_aliases)) {
        expect(pkg.default_outputs, `${id} ${alias}`).toContain(canonical);
        const result = calculate(loadSerialized(pkg), { household: pkg.sample_request.household, variables: [alias, canonical] });
        expect(result.outputs[alias], `${id} ${alias}`).toEqual(result.outputs[canonical]);
      }
    }
  });

  test('the allotment alias works in a state package too', () => {
    // New York computes the utility allowance itself: 2 utilities in NYC -> 419.
    // 991 - (900 + 419 - 495.50 = 823.50, capped at 744) = 247; 785 - 75 = 710
    const ny = { facts: { household_size: 3, snap_earned_income: 1500, snap_shelter_costs: 900, ny_snap_utility_region: 'new_york_city', snap_other_utility_count: 2 } };
    expect(calc('us-ny/ny-snap', ny, ['allotment', 'utility_allowance', 'ny_snap_monthly_benefit']).outputs).toEqual({ allotment: 710, utility_allowance: 419, ny_snap_monthly_benefit: 710 });
  });

  test('an unknown variable is an OutputError naming variables[i]', () => {
    const err = thrown(() => calc('us/snap', household, ['snap_allotment', 'snap_allotmnet']));
    expect(err).toBeInstanceOf(OutputError);
    expect(err.message).toMatch(/^variables\[1\]: /);
    expect(err.message).toContain('snap_allotmnet');
  });

  test('an unknown variable is reported before the household is looked at', () => {
    // the household is invalid too; the request's variables are checked first
    const err = thrown(() => calc('us/snap', 'not a household', ['nope']));
    expect(err).toBeInstanceOf(OutputError);
    expect(err.message).toMatch(/^variables\[0\]: /);
  });

  test('without variables, the default outputs are computed', () => {
    expect(Object.keys(calc('us/snap', household).outputs)).toEqual(builtPackage('us/snap').pkg.default_outputs);
  });
});
