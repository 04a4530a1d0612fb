import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { deriveProgramId, isProgramId } from '../../../compiler/4-package/program-id.js';
import { buildWorkspace, bundledBuild } from '../bundled.js';

// Program ids are URL-path slugs, unique within a jurisdiction: derived by one rule
// (compiler/4-package/program-id.ts, docs/compiled-output.md), or named by a spec's `id:`; a
// clash or an id that is not a slug is a located compile error.

describe('the derivation rule', () => {
  test.each([
    ['us-co', 'snap', 'co-snap'],
    ['us-co', 'tanf', 'co-tanf'],
    ['us-ny', 'income-tax', 'ny-income-tax'],
    ['us', 'snap', 'snap'],
    ['us', 'payroll/oasdi-wage-tax', 'oasdi-wage-tax'],
    ['us', 'us-tariff-schedule/ch01', 'us-tariff-schedule-ch01'],
    ['us', 'us-tariff-schedule/ch99c', 'us-tariff-schedule-ch99c'],
    ['us-co', 'co-works', 'co-works'],
    ['us-ca', 'Cal Fresh.v2', 'ca-cal-fresh-v2'],
  ])('%s / %s → %s', (jurisdiction, programPath, id) => {
    expect(deriveProgramId(jurisdiction, programPath)).toBe(id);
    expect(isProgramId(id)).toBe(true);
  });

  test('a composition module is named by its folder and file', () => {
    expect(deriveProgramId('us-ga', 'policies/dfcs/snap/fy-2026-benefit-calculation', { composition: true })).toBe('ga-snap-fy-2026-benefit-calculation');
    expect(deriveProgramId('us', 'policies/usda/csfp/eligibility_pipeline', { composition: true })).toBe('csfp-eligibility_pipeline');
  });

  test('slugs: lower-case letters, digits, `_` and `-`, 1 to 64 characters, starting with a letter or digit', () => {
    for (const ok of ['snap', 'co-snap', 'a', '0', 'csfp-eligibility_pipeline', 'x'.repeat(64)]) expect(isProgramId(ok), ok).toBe(true);
    for (const bad of ['', 'Snap', 'us-co/snap', '-snap', '_snap', 'co snap', 'x'.repeat(65), '..', 'snap#1']) expect(isProgramId(bad), bad).toBe(false);
  });
});

describe('the bundled packages', () => {
  test('are snap (federal) and <state>-snap, each answering to snap_benefit_amount', () => {
    const build = bundledBuild();
    expect(build.packages.map((p) => `${p.pkg.jurisdiction}/${p.pkg.program_id}`).sort()).toEqual(['us-ca/ca-snap', 'us-co/co-snap', 'us-ny/ny-snap', 'us/snap']);
    for (const { pkg } of build.packages) {
      expect(pkg.output_aliases.snap_benefit_amount, pkg.program_id).toBe('snap_allotment');
      expect(pkg.outputs).toContainEqual({ name: 'snap_benefit_amount', legal_id: 'us:statutes/7/2017/a#snap_allotment', alias_for: 'snap_allotment' });
      // the friendly names still drop the program's `snap_` prefix
      expect(pkg.household_aliases.earned_income, pkg.program_id).toBe('snap_earned_income');
      expect(pkg.runtime_id).toMatch(new RegExp(`^${pkg.jurisdiction}/${pkg.program_id}@`));
    }
  });

  test('the program list names a state\'s SNAP rules by the package id', () => {
    const programs = bundledBuild().programs;
    expect(programs.filter((p) => p.jurisdiction === 'us-co').map((p) => p.id)).toEqual(['co-snap']);
    for (const p of programs) expect(isProgramId(p.id), p.id).toBe(true);
  });
});

describe('program specs', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** A root with one module and the given spec files (path under programs/ → text). */
  function root(specs: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'rules-ids-'));
    dirs.push(dir);
    for (const jurisdiction of ['us-co', 'us-ny']) {
      mkdirSync(path.join(dir, jurisdiction, 'policies'), { recursive: true });
      writeFileSync(
        path.join(dir, jurisdiction, 'policies/benefit.yaml'),
        ['format: rulespec/v1', 'rules:', '  - name: benefit', '    kind: derived', '    entity: Household', '    dtype: Money', '    period: Month', '    versions:', "      - effective_from: '2026-01-01'", '        formula: income * 2', ''].join('\n'),
      );
    }
    for (const [rel, text] of Object.entries(specs)) {
      mkdirSync(path.dirname(path.join(dir, 'programs', rel)), { recursive: true });
      writeFileSync(path.join(dir, 'programs', rel), text);
    }
    return dir;
  }
  const spec = (program: string, extra = '') => `program: ${program}\n${extra}period: 2026-01\noutputs: [benefit]\nscope:\n  state: [policies/benefit]\n`;

  test('`id:` names the id', () => {
    const build = buildWorkspace(root({ 'us-co/benefit/2026.yaml': spec('us-co/benefit', 'id: colorado-benefit\n') }));
    expect(build.failures).toEqual([]);
    expect(build.packages.map((p) => p.pkg.program_id)).toEqual(['colorado-benefit']);
    expect(build.packages[0].pkg.sample_request.program_id).toBe('colorado-benefit');
  });

  test('an `id:` that is not a slug is an error located at it', () => {
    const dir = root({ 'us-co/benefit/2026.yaml': spec('us-co/benefit', 'id: Colorado/Benefit\n') });
    const { failures, packages } = buildWorkspace(dir);
    expect(packages).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0].error).toContain(`${path.join(dir, 'programs/us-co/benefit/2026.yaml')}:2:5: program id \`Colorado/Benefit\` is not a URL slug`);
  });

  test('two programs with one id in a jurisdiction: both fail, each located at its own id and naming the other', () => {
    const dir = root({
      'us-co/benefit/2026.yaml': spec('us-co/benefit'),
      'us-co/other/2026.yaml': spec('us-co/other', 'id: co-benefit\n'),
    });
    const { failures, packages } = buildWorkspace(dir);
    expect(packages).toEqual([]);
    const byFile = Object.fromEntries(failures.map((f) => [path.relative(dir, f.file), f.error]));
    expect(Object.keys(byFile).sort()).toEqual(['programs/us-co/benefit/2026.yaml', 'programs/us-co/other/2026.yaml']);
    expect(byFile['programs/us-co/benefit/2026.yaml']).toMatch(/benefit\/2026\.yaml:1:10: program id `co-benefit` of us-co\/benefit is also the id of us-co\/other/);
    expect(byFile['programs/us-co/other/2026.yaml']).toMatch(/other\/2026\.yaml:2:5: program id `co-benefit` of us-co\/other is also the id of us-co\/benefit/);
    expect(byFile['programs/us-co/other/2026.yaml']).toContain('id: co-benefit\n  |     ^');
  });

  test('the same id in two jurisdictions is no clash', () => {
    const dir = root({
      'us-co/benefit/2026.yaml': spec('us-co/benefit', 'id: benefit\n'),
      'us-ny/benefit/2026.yaml': spec('us-ny/benefit', 'id: benefit\n'),
    });
    const { failures, packages } = buildWorkspace(dir);
    expect(failures).toEqual([]);
    expect(packages.map((p) => `${p.pkg.jurisdiction}/${p.pkg.program_id}`).sort()).toEqual(['us-co/benefit', 'us-ny/benefit']);
  });
});
