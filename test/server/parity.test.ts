import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI } from '../paths.js';
import { auth, KEYS, testApp, type TestApp } from './harness.js';
import { expectError, expectOk, GENEROUS_KEYS } from './lab.js';

// Rules API, "Parity" (ParityCase, ParityRunResult) and "Endpoints › Parity (admin:parity)";
// the `rules parity` command that shares the code.

const SUPPORTED = ['us', 'us-co', 'us-ny', 'us-ca'];

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
    expect(cases.length).toBe(9);
    expect(new Set(cases.map((c: { id: string }) => c.id)).size).toBe(cases.length);
    for (const c of cases) {
      for (const k of ['id', 'program_id', 'jurisdiction']) expect(typeof c[k], k).toBe('string');
      expect(typeof c.runtime_supported).toBe('boolean');
      expect(c.runtime_supported).toBe(SUPPORTED.includes(c.jurisdiction) && c.program_id === 'snap');
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
    expect(run.summary).toEqual({ total: expect.any(Number), matching: 8, different: 0, errored: 0, skipped: 1 });
    expect(run.results).toHaveLength(8);
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
    expect(skipped).toMatchObject({ id: expect.any(String), program_id: 'snap', jurisdiction: 'us-tx', reason: expect.any(String) });
    expect(skipped.description === null || typeof skipped.description === 'string').toBe(true);
    expect(skipped.reason.length).toBeGreaterThan(0);
  });

  test('an empty JSON body is "no body" too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/parity/run', headers: { ...auth(KEYS.admin), 'content-type': 'application/json' }, payload: '' });
    expect(expectOk(res).summary.matching).toBe(8);
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
  test('a default run compiles the bundled encodings, reports "8 matching" and exits 0', async () => {
    const res = await execa('node', [CLI, 'parity'], { reject: false, env: { NO_COLOR: '1' } });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/\b8 matching, 0 different, 0 errored, 1 skipped\b/);
    expect(res.stdout).toMatch(/us-tx-snap-single-adult.*skipped/);
  });

  test('--json prints {summary, results, skipped_cases}', async () => {
    const res = await execa('node', [CLI, 'parity', '--json'], { reject: false });
    expect(res.exitCode, res.stderr).toBe(0);
    const run = JSON.parse(res.stdout);
    expect(Object.keys(run).sort()).toEqual(['results', 'skipped_cases', 'summary']);
    expect(run.summary).toMatchObject({ matching: 8, different: 0, errored: 0, skipped: 1 });
    expect(run.results).toHaveLength(8);
    expect(run.results.every((r: { status: string }) => r.status === 'matching')).toBe(true);
    expect(run.skipped_cases.map((s: { jurisdiction: string }) => s.jurisdiction)).toEqual(['us-tx']);
  });
});
