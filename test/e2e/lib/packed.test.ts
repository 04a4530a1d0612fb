import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from '../../support/paths.js';

// The library as a user gets it: `npm pack`, extracted into a fresh project's
// node_modules/rules (its dependencies linked from this checkout, no network), then imported
// by name from a plain .mjs script and type-checked from a .ts file.

const project = mkdtempSync(path.join(tmpdir(), 'rules-user-'));

beforeAll(async () => {
  const packDir = mkdtempSync(path.join(tmpdir(), 'rules-pack-'));
  // dist is already built by the test setup; skip `prepare` so packing does not build again
  await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { cwd: PROJECT });
  const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'))!;
  const installed = path.join(project, 'node_modules', 'rules');
  mkdirSync(installed, { recursive: true });
  await execa('tar', ['-xzf', path.join(packDir, tarball), '-C', installed, '--strip-components=1']);
  symlinkSync(path.join(PROJECT, 'node_modules'), path.join(installed, 'node_modules'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user', type: 'module', private: true }));
}, 120_000);

describe("import { compile, loadPackage, calculate } from 'rules'", () => {
  it('compiles the bundled encodings, loads a package and calculates with trace and warnings as the API', async () => {
    writeFileSync(
      path.join(project, 'use.mjs'),
      `import { compile, loadPackage, calculate, CalculationError } from 'rules';
const { packages, failures } = compile();
const co = loadPackage(packages.find((p) => p.jurisdiction === 'us-co' && p.program_id === 'co-snap'));
const result = calculate(co, { household: { period: '2027-01', facts: { household_size: 2, snap_earned_income: 1200 } } });
let refused;
try {
  calculate(co, { household: { facts: { household_size: 'two' } } });
} catch (err) {
  refused = err instanceof CalculationError ? { code: err.code, message: err.message } : String(err);
}
const quick = calculate(co, { household: co.pkg.sample_request.household, variables: ['snap_allotment'] }, { trace: false });
console.log(JSON.stringify({ programs: packages.length, failures: failures.length, result, refused, quick }));
`,
    );
    const res = await execa('node', ['use.mjs'], { cwd: project, reject: false });
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout);
    expect(out.programs).toBeGreaterThanOrEqual(4);
    expect(out.failures).toBe(0);
    expect(out.result.program_id).toBe('co-snap');
    expect(typeof out.result.outputs.snap_allotment).toBe('number');
    expect(out.result.trace.length).toBeGreaterThan(10);
    expect(out.result.trace[0]).toEqual(expect.objectContaining({ rule_id: expect.any(String), sources: expect.any(Array), entity: 'household' }));
    expect(out.result.warnings.join(' ')).toContain('2027-01 is after the period this package');
    expect(out.refused.code).toBe('invalid_household');
    expect(out.quick).toEqual(expect.objectContaining({ outputs: { snap_allotment: 609 }, trace: [] }));
  }, 60_000);

  it('warns of a root that does not exist instead of compiling nothing from it in silence', async () => {
    writeFileSync(
      path.join(project, 'missing-root.mjs'),
      `import { compile } from 'rules';
const { packages, warnings } = compile({ roots: ['no-such-rules-folder'] });
console.log(JSON.stringify({ packages: packages.length, warnings }));
`,
    );
    const res = await execa('node', ['missing-root.mjs'], { cwd: project, reject: false });
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toEqual({ packages: 0, warnings: [{ path: path.join(project, 'no-such-rules-folder'), reason: 'the root does not exist: nothing is read from it' }] });
  }, 60_000);

  it('loads a package from a compiled output folder, and its declarations type-check', async () => {
    const compiled = path.join(project, 'compiled');
    await execa('node', [path.join(project, 'node_modules', 'rules', 'bin', 'rules.js'), 'compile', '--out', compiled]);
    writeFileSync(
      path.join(project, 'check.ts'),
      `import { calculate, loadPackage, type CalculateResponse, type LoadedPackage } from 'rules';
const pkg: LoadedPackage = loadPackage(${JSON.stringify(compiled)}, 'us-ny/ny-snap');
const response: CalculateResponse = calculate(pkg, { household: pkg.pkg.sample_request.household });
const allotment: unknown = response.outputs.snap_allotment;
console.log(JSON.stringify({ allotment, warnings: response.warnings }));
`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, skipLibCheck: true, types: [], outDir: 'out' }, files: ['check.ts'] }),
    );
    const tsc = await execa('node', [path.join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { reject: false });
    expect(tsc.stdout + tsc.stderr).toBe('');
    const run = await execa('node', [path.join(project, 'out', 'check.js')], { cwd: project, reject: false });
    expect(run.stderr).toBe('');
    expect(typeof JSON.parse(run.stdout).allotment).toBe('number');
  }, 60_000);

  it('diffs two versions of a package, streaming, and its declarations type-check', async () => {
    writeFileSync(
      path.join(project, 'diff.ts'),
      `import { compile, diff, loadPackage, type DiffResult, type DiffSummary, type RulesChange } from 'rules';
const co = loadPackage(compile().packages.find((p) => p.program_id === 'co-snap')!);
const run = diff(co, co, [{ facts: { household_size: 3, snap_earned_income: 1500 } }], { set: ['us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table[3]=259'] });
const rules: RulesChange = run.rules;
const results: DiffResult[] = [];
for await (const h of run) results.push(h);
const summary: DiffSummary = run.summary();
console.log(JSON.stringify({ changed: rules.rules.length, causes: results[0].root_causes.map((c) => c.name), total: summary.total_change }));
`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, skipLibCheck: true, types: [], outDir: 'out' }, files: ['diff.ts'] }),
    );
    const tsc = await execa('node', [path.join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { reject: false });
    expect(tsc.stdout + tsc.stderr).toBe('');
    const run = await execa('node', [path.join(project, 'out', 'diff.js')], { cwd: project, reject: false });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ changed: 1, causes: ['snap_standard_deduction'], total: 15 });
  }, 60_000);
});
