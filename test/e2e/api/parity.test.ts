import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI, PROJECT } from '../../support/paths.js';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { expectError, expectOk, GENEROUS_KEYS, SNAP_IDS } from '../../support/lab.js';

// Rules API, "Parity" (ParityCase, ParityRunResult) and "Endpoints › Parity (admin:parity)";
// the `rules parity` command that shares the code.

const SUPPORTED = Object.keys(SNAP_IDS);
/** The shared PolicyEngine validation dataset the recorded external values come from. */
const DATASET = path.join(PROJECT, '../shared/validation/policyengine-snap-2026-01.json');

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ RULES_API_KEYS: GENEROUS_KEYS });
});
afterAll(async () => {
  await t.app.close();
});

const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');

describe('GET /v1/parity/cases', () => {
  test('ParityCase[]: every field, runtime_supported per package', async () => {
    const cases = expectOk(await t.app.inject({ method: 'GET', url: '/v1/parity/cases', headers: auth(KEYS.admin) })).cases;
    expect(cases.length).toBe(14);
    expect(new Set(cases.map((c: { id: string }) => c.id)).size).toBe(cases.length);
    for (const c of cases) {
      for (const k of ['id', 'program_id', 'jurisdiction']) expect(typeof c[k], k).toBe('string');
      expect(typeof c.runtime_supported).toBe('boolean');
      expect(c.runtime_supported).toBe(SNAP_IDS[c.jurisdiction] === c.program_id);
      expect(c.axiom_request).toMatchObject({ program_id: c.program_id, jurisdiction: c.jurisdiction });
      expect(typeof c.axiom_request.household).toBe('object');
      expect(typeof c.expected_axiom_outputs).toBe('object');
      expect(Object.keys(c.expected_axiom_outputs).length).toBeGreaterThan(0);
      if (c.description !== undefined) expect(c.description === null || typeof c.description === 'string').toBe(true);
      for (const k of ['variables', 'trace_variables', 'notes']) if (c[k] !== undefined) expect(strings(c[k]), k).toBe(true);
      if (c.external_comparisons !== undefined) expect(Array.isArray(c.external_comparisons)).toBe(true);
      if (c.tolerance !== undefined) expect(typeof c.tolerance).toBe('object');
    }
    const byJurisdiction = (j: string) => cases.filter((c: { jurisdiction: string }) => c.jurisdiction === j);
    expect(byJurisdiction('us').length).toBeGreaterThan(0);
    expect(byJurisdiction('us').every((c: { runtime_supported: boolean }) => c.runtime_supported)).toBe(true);
    expect(byJurisdiction('us-tx').length).toBe(1);
    expect(byJurisdiction('us-tx')[0].runtime_supported).toBe(false);
  });

  test('the request of a supported case computes through /v1/calculate', async () => {
    const cases = expectOk(await t.app.inject({ method: 'GET', url: '/v1/parity/cases', headers: auth(KEYS.admin) })).cases;
    const c = cases.find((x: { runtime_supported: boolean }) => x.runtime_supported);
    const data = expectOk(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.all), payload: c.axiom_request }));
    for (const [k, v] of Object.entries(c.expected_axiom_outputs)) expect(data.outputs[k], k).toBeCloseTo(v as number, 2);
  });
});

describe('POST /v1/parity/run', () => {
  let run: any;
  beforeAll(async () => {
    run = expectOk(await t.app.inject({ method: 'POST', url: '/v1/parity/run', headers: auth(KEYS.admin) }));
  });

  test('runs without a body: summary, results and skipped cases', () => {
    // total counts the cases that ran: the skipped one apart
    expect(run.summary).toEqual({ total: 13, matching: 13, different: 0, errored: 0, skipped: 1, external: { matching: 4, different: 0, not_recorded: 1 } });
    expect(run.results).toHaveLength(13);
    expect(run.skipped_cases).toHaveLength(1);
  });

  test('every runtime-supported case matches, with its outputs, trace and comparison', () => {
    for (const r of run.results) {
      for (const k of ['id', 'program_id', 'jurisdiction']) expect(typeof r[k], k).toBe('string');
      expect(r.status, r.id).toBe('matching');
      expect(SUPPORTED).toContain(r.jurisdiction);
      expect(typeof r.outputs).toBe('object');
      expect(typeof r.expected_outputs).toBe('object');
      for (const [k, v] of Object.entries(r.expected_outputs)) expect(r.outputs[k], `${r.id} ${k}`).toBeCloseTo(v as number, 2);
      if (r.trace_outputs !== undefined) expect(typeof r.trace_outputs).toBe('object');
      expect(Array.isArray(r.calculation_trace)).toBe(true);
      for (const e of r.calculation_trace) expect(e).toMatchObject({ rule_id: expect.any(String), variable: expect.any(String), sources: expect.any(Array) });
      expect(r.comparison).toMatchObject({ status: 'matching', changed: [], missing: [] });
      expect(Array.isArray(r.comparison.extra)).toBe(true);
      expect(r.runtime).toEqual({ id: expect.any(String), mode: 'compiled' });
      expect(strings(r.warnings)).toBe(true);
      expect(r.error).toBeUndefined();
    }
  });

  test('the skipped case says why', () => {
    const [skipped] = run.skipped_cases;
    expect(Object.keys(skipped).sort()).toEqual(['description', 'id', 'jurisdiction', 'program_id', 'reason']);
    expect(skipped).toMatchObject({ id: expect.any(String), program_id: 'tx-snap', jurisdiction: 'us-tx', reason: expect.any(String) });
    expect(skipped.description === null || typeof skipped.description === 'string').toBe(true);
    expect(skipped.reason.length).toBeGreaterThan(0);
  });

  test('an empty JSON body is "no body" too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/parity/run', headers: { ...auth(KEYS.admin), 'content-type': 'application/json' }, payload: '' });
    expect(expectOk(res).summary.matching).toBe(13);
  });
});

describe('client conventions: the Colorado family, short trace labels, external comparisons', () => {
  let cases: any[];
  let run: any;
  beforeAll(async () => {
    cases = expectOk(await t.app.inject({ method: 'GET', url: '/v1/parity/cases', headers: auth(KEYS.admin) })).cases;
    run = expectOk(await t.app.inject({ method: 'POST', url: '/v1/parity/run', headers: auth(KEYS.admin) }));
  });
  const result = (id: string) => run.results.find((r: { id: string }) => r.id === id);

  test('co-snap-us-co-family-1: the family earning $1,200, traced under short labels, compared in the hosted shape', () => {
    const c = cases.find((x: { id: string }) => x.id === 'co-snap-us-co-family-1');
    expect(c).toMatchObject({ program_id: 'co-snap', jurisdiction: 'us-co', runtime_supported: true, expected_axiom_outputs: { snap_benefit_amount: 782 } });
    expect(c.trace_variables).toContain('gross_income');
    const { request, ...comparison } = c.external_comparisons[0];
    expect(comparison).toEqual({
      id: 'co-snap-policyengine-current',
      engine: 'policyengine',
      mappings: [{ axiom_variable: 'snap_benefit_amount', external_path: 'result.spm_units.spm_unit.snap.2026', transform: 'annual_to_monthly' }],
      trace_mappings: [],
      notes: [],
      tolerance: { amount: 0.01 },
    });
    // the request names the unit the path reads
    expect(request.household.spm_units).toHaveProperty('spm_unit');

    const r = result('co-snap-us-co-family-1');
    expect(r.status).toBe('matching');
    expect(r.trace_outputs).toEqual({ gross_income: 1200, net_income: 7, utility_allowance: 594, snap_benefit_amount: 782 });
    // only the requested variables are outputs; the traced ones are not "extra"
    expect(Object.keys(r.outputs).sort()).toEqual(['snap_benefit_amount', 'snap_net_income', 'snap_utility_allowance']);
    expect(r.comparison.extra).toEqual([]);
    // no PolicyEngine value was recorded for it, and the run says so
    expect(r.external_status).toBe('not_recorded');
    expect(r.external_comparisons).toEqual([{ id: 'co-snap-policyengine-current', engine: 'policyengine', status: 'not_recorded', values: [], notes: [] }]);
  });

  test('New York, California, Colorado and the federal package each have a case whose recorded PolicyEngine value agrees within its tolerance', () => {
    const recorded = run.results.filter((r: { external_comparisons?: { status: string }[] }) => r.external_comparisons?.some((x) => x.status !== 'not_recorded'));
    expect(recorded.map((r: { program_id: string; jurisdiction: string }) => `${r.jurisdiction}/${r.program_id}`).sort()).toEqual(['us-ca/ca-snap', 'us-co/co-snap', 'us-ny/ny-snap', 'us/snap']);
    for (const r of recorded) {
      expect(r.status, r.id).toBe('matching');
      expect(r.external_status, r.id).toBe('matching');
      const [x] = r.external_comparisons;
      expect(x).toMatchObject({ engine: 'policyengine', engine_version: '1.817.0', status: 'matching' });
      expect(x.source).toMatch(/^PolicyEngine-US 1\.817\.0 .*household pe-c\d{4} of the clean set/);
      const [value] = x.values;
      expect(value.axiom_value).toBe(r.outputs.snap_benefit_amount);
      expect(value.agrees).toBe(true);
      // PolicyEngine does not round the 30% contribution up: it answers a little more, never less
      expect(value.delta).toBeLessThanOrEqual(0);
      expect(value.delta).toBeGreaterThan(-1);
      expect(r.trace_outputs.gross_income).toEqual(expect.any(Number));
    }
  });

  test.runIf(existsSync(DATASET))('the recorded values and requests are those of the shared dataset', () => {
    const dataset = JSON.parse(readFileSync(DATASET, 'utf8')) as { engine_version: string; households: { id: string; set: string; situation: unknown; policyengine: Record<string, number> }[] };
    let checked = 0;
    for (const c of cases) {
      for (const x of c.external_comparisons.filter((e: { recorded?: unknown }) => e.recorded)) {
        const household = dataset.households.find((h) => x.recorded.source.includes(`household ${h.id} `));
        expect(household, x.id).toBeDefined();
        expect(household!.set).toBe('clean');
        expect(x.recorded.engine_version).toBe(dataset.engine_version);
        expect(x.request.household).toEqual(household!.situation);
        for (const [name, value] of Object.entries(x.recorded.response.result.spm_units.spm as Record<string, Record<string, number>>)) expect(value['2026-01'], `${x.id} ${name}`).toBe(household!.policyengine[name]);
        checked++;
      }
    }
    expect(checked).toBe(4);
  });
});

describe('external comparisons in a run of other cases (rules parity --cases)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rules-parity-cases-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a recorded value outside the tolerance is reported different, while the case (the law) still matches', async () => {
    const [ny] = (load(readFileSync(path.join(PROJECT, 'fixtures/parity/policyengine-snap.yaml'), 'utf8')) as any[]).filter((c) => c.id === 'ny-snap-us-ny-pe-c0215');
    ny.external_comparisons[0].tolerance = { amount: 0.01 };
    const annual = structuredClone(ny);
    annual.id = 'annual';
    annual.external_comparisons[0].mappings = [{ axiom_variable: 'snap_benefit_amount', external_path: 'result.spm_units.spm.snap.2026', transform: 'annual_to_monthly' }];
    annual.external_comparisons[0].recorded.response.result.spm_units.spm.snap = { '2026': 288 * 12 };
    writeFileSync(path.join(dir, 'cases.yaml'), dump([ny, annual]));
    const res = await execa('node', [CLI, 'parity', '--cases', dir, '--json'], { reject: false });
    expect(res.exitCode, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.summary).toEqual({ total: 2, matching: 2, different: 0, errored: 0, skipped: 0, external: { matching: 1, different: 1, not_recorded: 0 } });
    const [first, second] = out.results;
    expect(first.external_status).toBe('different');
    expect(first.external_comparisons[0].values).toEqual([{ axiom_variable: 'snap_benefit_amount', external_path: 'result.spm_units.spm.snap.2026-01', axiom_value: 288, external_value: 288.3, delta: -0.3, agrees: false }]);
    expect(second.external_comparisons[0].values[0]).toMatchObject({ external_value: 288, delta: 0, agrees: true });
  });

  test('an unknown transform is refused when the cases load', async () => {
    writeFileSync(path.join(dir, 'cases.yaml'), dump([{ id: 'x', program_id: 'snap', jurisdiction: 'us', household: {}, variables: ['snap_allotment'], expected: { snap_allotment: 0 }, external_comparisons: [{ id: 'e', engine: 'policyengine', mappings: [{ axiom_variable: 'snap_allotment', external_path: 'a.b', transform: 'weekly' }], tolerance: { amount: 1 } }] }]));
    const res = await execa('node', [CLI, 'parity', '--cases', dir], { reject: false });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim()).toBe('rules: parity case x: external_comparisons[0]: unknown transform `weekly` (none, annual_to_monthly, monthly_to_annual)');
  });
});

describe('parity needs admin:parity', () => {
  test.each([
    ['GET', '/v1/parity/cases'],
    ['POST', '/v1/parity/run'],
  ] as const)('%s %s: 401 without a valid key, 403 naming the scope without it', async (method, url) => {
    expectError(await t.app.inject({ method, url }), 401, 'unauthorized');
    expectError(await t.app.inject({ method, url, headers: auth('not-a-key') }), 401, 'unauthorized');
    for (const key of [KEYS.read, KEYS.calc]) {
      expect(expectError(await t.app.inject({ method, url, headers: auth(key) }), 403, 'insufficient_scope').error.message).toContain('admin:parity');
    }
  });
});

describe('rules parity (CLI)', () => {
  test('a default run compiles the bundled encodings, reports "13 matching" and exits 0', async () => {
    const res = await execa('node', [CLI, 'parity'], { reject: false, env: { NO_COLOR: '1' } });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/\b13 matching, 0 different, 0 errored, 1 skipped\b/);
    expect(res.stdout).toMatch(/us-tx-snap-single-adult.*skipped/);
  });

  test('--json prints {summary, results, skipped_cases}', async () => {
    const res = await execa('node', [CLI, 'parity', '--json'], { reject: false });
    expect(res.exitCode, res.stderr).toBe(0);
    const run = JSON.parse(res.stdout);
    expect(Object.keys(run).sort()).toEqual(['results', 'skipped_cases', 'summary']);
    expect(run.summary).toMatchObject({ total: 13, matching: 13, different: 0, errored: 0, skipped: 1 });
    expect(run.results).toHaveLength(13);
    expect(run.results.every((r: { status: string }) => r.status === 'matching')).toBe(true);
    expect(run.skipped_cases.map((s: { jurisdiction: string }) => s.jurisdiction)).toEqual(['us-tx']);
  });

  test.each([
    ['a missing folder', () => '/no/such/cases', /^rules: --cases \/no\/such\/cases does not exist$/],
    ['an empty folder', () => mkdtempSync(path.join(tmpdir(), 'rules-no-cases-')), /^rules: --cases \S+ holds no parity case/],
  ])('--cases naming %s is one line and exit 2 (a CI typo must not pass)', async (_name, dir, message) => {
    const res = await execa('node', [CLI, 'parity', '--cases', dir()], { reject: false });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim()).toMatch(message);
    expect(res.stdout).toBe('');
  });
});
