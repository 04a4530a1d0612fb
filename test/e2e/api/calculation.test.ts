import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { CalculateRequest } from '../../../compiler/4-package/package-types.js';
import { MemoryStore } from '../../../server/store/memory.js';
import { type JobRecord, StoreUnavailableError } from '../../../server/store/store.js';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { CHAIN, expectError, expectOk, GENEROUS_KEYS, LAB, labOutput, SNAP_IDS, SNAP_REQUEST, sleep, slowHousehold } from '../../support/lab.js';
import type { CalculateResponse } from '../../../server/calculation.js';

// Rules API, "Calculation" (CalculateRequest, CalculateResponse, BatchResult, JobRecord) and
// "Endpoints › Calculation": POST /v1/calculate, /v1/calculate/batch, /v1/jobs/calculate and
// GET /v1/jobs/{job_id}; fixture-mode warnings.

let t: TestApp;
let lab: TestApp;
beforeAll(async () => {
  t = await testApp({ RULES_API_KEYS: GENEROUS_KEYS });
  lab = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { compiled: labOutput() });
});
afterAll(async () => {
  await t.app.close();
  await lab.app.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const post = (app: TestApp, url: string, payload: unknown, key = KEYS.calc) => app.app.inject({ method: 'POST', url, headers: auth(key), payload: payload as object });
const calculate = (payload: unknown, app = t) => post(app, '/v1/calculate', payload);
const batch = (requests: unknown[], app = t) => post(app, '/v1/calculate/batch', { requests });
const submit = (requests: unknown[], app = t, key = KEYS.calc) => post(app, '/v1/jobs/calculate', { requests }, key);
const poll = (url: string, app = t, key = KEYS.calc) => app.app.inject({ method: 'GET', url, headers: auth(key) });

const single = (size: number, jurisdiction = 'us', extra: Record<string, unknown> = {}): CalculateRequest => ({
  program_id: SNAP_IDS[jurisdiction] ?? 'snap',
  jurisdiction,
  household: { facts: { household_size: size, ...extra } },
});
const ratio = (divisor: number): CalculateRequest => ({ program_id: LAB.math, jurisdiction: LAB.jurisdiction, household: { facts: { divisor } }, variables: ['ratio'] });

type EntryResult = { status: 'ok'; result: CalculateResponse } | { status: 'error'; error: { code: string; message: string } };

/** A JobRecord as GET /v1/jobs/{job_id} shows it: no requests, results once succeeded. */
type ApiJob = Omit<JobRecord, 'requests' | 'results'> & { results?: EntryResult[] };

/** Poll a job until it leaves pending/running; returns every record seen. */
async function pollUntilDone(url: string, app = t, key = KEYS.calc, timeoutMs = 20_000): Promise<ApiJob[]> {
  const seen: ApiJob[] = [];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const record = expectOk(await poll(url, app, key)) as ApiJob;
    seen.push(record);
    if (record.status === 'succeeded' || record.status === 'failed') return seen;
    if (Date.now() > until) throw new Error(`job still ${record.status} after ${timeoutMs} ms`);
    await sleep(5);
  }
}

function expectCalculateResponse(data: Record<string, unknown>, request: { program_id: string; jurisdiction: string }) {
  expect(data.engine).toBe('rules');
  expect(data.runtime).toEqual({ id: expect.any(String), mode: expect.stringMatching(/^(fixture|compiled)$/) });
  expect(data.program_id).toBe(request.program_id);
  expect(data.jurisdiction).toBe(request.jurisdiction);
  expect(typeof data.outputs).toBe('object');
  expect(Array.isArray(data.trace)).toBe(true);
  for (const e of data.trace as Record<string, unknown>[]) {
    expect(typeof e.rule_id).toBe('string');
    expect(typeof e.variable).toBe('string');
    expect(e).toHaveProperty('value');
    expect(Array.isArray(e.sources) && (e.sources as unknown[]).every((s) => typeof s === 'string')).toBe(true);
  }
  expect(Array.isArray(data.warnings) && (data.warnings as unknown[]).every((w) => typeof w === 'string')).toBe(true);
}

describe('POST /v1/calculate', () => {
  test('CalculateResponse: engine rules, compiled runtime, an output for each requested variable', async () => {
    const request = { ...SNAP_REQUEST, variables: ['snap_allotment', 'snap_net_income', 'snap_income_eligible'] };
    const data = expectOk(await calculate(request));
    expectCalculateResponse(data, request);
    expect(data.runtime.mode).toBe('compiled');
    const pkg = expectOk(await t.app.inject({ method: 'GET', url: '/v1/runtime/packages/us/snap', headers: auth(KEYS.read) })).package;
    expect(data.runtime.id).toBe(pkg.runtime_id);
    expect(Object.keys(data.outputs).sort()).toEqual(['snap_allotment', 'snap_income_eligible', 'snap_net_income']);
    expect(typeof data.outputs.snap_allotment).toBe('number');
    expect(typeof data.outputs.snap_income_eligible).toBe('boolean');
  });

  test('the answer is JSON in the envelope, as every route answers (the data is written from cached fragments, not by Fastify)', async () => {
    for (const res of [await calculate(SNAP_REQUEST), await batch([SNAP_REQUEST, SNAP_REQUEST])]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
      const body = res.json();
      expect(Object.keys(body)).toEqual(['status', 'data', 'meta']);
      expect(body.status).toBe('ok');
      expect(body.meta).toEqual({ request_id: expect.any(String), api_version: expect.any(String), environment: expect.any(String) });
      expect(res.body).toBe(JSON.stringify(body)); // no spacing or key order of its own
    }
  });

  test('outputs are keyed by the requested name, aliases included', async () => {
    const data = expectOk(await calculate({ ...SNAP_REQUEST, variables: ['allotment', 'snap_allotment'] }));
    expect(Object.keys(data.outputs).sort()).toEqual(['allotment', 'snap_allotment']);
    expect(data.outputs.allotment).toBe(data.outputs.snap_allotment);
  });

  test('omitted variables take the package default_outputs', async () => {
    for (const jurisdiction of ['us', 'us-co']) {
      const pkg = expectOk(await t.app.inject({ method: 'GET', url: `/v1/runtime/packages/${jurisdiction}/${SNAP_IDS[jurisdiction]}`, headers: auth(KEYS.read) })).package;
      const data = expectOk(await calculate(single(2, jurisdiction)));
      expect(Object.keys(data.outputs).sort()).toEqual([...pkg.default_outputs].sort());
    }
  });

  test('omitted inputs take the package defaults (one person, no income: the FY 2026 maximum allotment)', async () => {
    const data = expectOk(await calculate({ ...single(1), variables: ['snap_allotment', 'snap_gross_income'] }));
    expect(data.outputs).toEqual({ snap_allotment: 298, snap_gross_income: 0 });
  });

  test('each trace entry attributes a variable to its rule and sources; requested outputs are traced', async () => {
    const data = expectOk(await calculate({ ...SNAP_REQUEST, variables: ['snap_allotment'] }));
    expect(data.trace.length).toBeGreaterThan(1);
    const entry = data.trace.find((e: { variable: string }) => e.variable === 'snap_allotment');
    expect(entry).toBeDefined();
    expect(entry.rule_id).toBe('us:statutes/7/2017/a#snap_allotment');
    expect(entry.value).toBe(data.outputs.snap_allotment);
    expect(entry.sources.length).toBeGreaterThan(0);
  });

  test('household conventions: aliases in facts, the first spm_unit, an invalid period falling back to the default', async () => {
    const base = expectOk(await calculate({ ...single(1, 'us', { snap_earned_income: 1000 }), variables: ['snap_allotment'] })).outputs;
    expect(expectOk(await calculate({ program_id: 'snap', jurisdiction: 'us', household: { facts: { size: 1, earned_income: 1000 } }, variables: ['snap_allotment'] })).outputs).toEqual(base);
    expect(expectOk(await calculate({ program_id: 'snap', jurisdiction: 'us', household: { spm_units: { u1: { household_size: 1, snap_earned_income: 1000 } } }, variables: ['snap_allotment'] })).outputs).toEqual(base);
    const fallback = expectOk(await calculate({ ...single(1, 'us', { snap_earned_income: 1000 }), household: { facts: { household_size: 1, snap_earned_income: 1000 }, period: '2026-13' }, variables: ['snap_allotment'] }));
    expect(fallback.outputs).toEqual(base);
  });

  test('warnings is an array of strings: empty for a household that gives every input the outputs read (the package sample_request)', async () => {
    const detail = expectOk(await t.app.inject({ method: 'GET', url: '/v1/runtime/packages/us/snap', headers: auth(KEYS.calc) })) as { package: { sample_request: CalculateRequest } };
    const clean = expectOk(await calculate(detail.package.sample_request));
    expect(clean.warnings).toEqual([]);
    expect(clean.assumptions).toEqual([]);
    const partial = expectOk(await calculate(SNAP_REQUEST));
    expect(partial.warnings).toEqual([expect.stringMatching(/^assumed \d+ inputs the household does not give/)]);
  });

  describe('400 invalid_request (schema)', () => {
    test.each([
      ['program_id over 120 characters', { ...SNAP_REQUEST, program_id: 'p'.repeat(121) }, 'program_id'],
      ['jurisdiction over 120 characters', { ...SNAP_REQUEST, jurisdiction: 'j'.repeat(121) }, 'jurisdiction'],
      ['empty program_id', { ...SNAP_REQUEST, program_id: '' }, 'program_id'],
      ['empty jurisdiction', { ...SNAP_REQUEST, jurisdiction: '' }, 'jurisdiction'],
      ['missing program_id', { jurisdiction: 'us', household: {} }, 'program_id'],
      ['missing jurisdiction', { program_id: 'snap', household: {} }, 'jurisdiction'],
      ['missing household', { program_id: 'snap', jurisdiction: 'us' }, 'household'],
      ['household not an object', { ...SNAP_REQUEST, household: [1, 2] }, 'household'],
      ['household a string', { ...SNAP_REQUEST, household: 'three people' }, 'household'],
      ['more than 100 variables', { ...SNAP_REQUEST, variables: Array(101).fill('snap_allotment') }, 'variables'],
      ['a variable over 200 characters', { ...SNAP_REQUEST, variables: ['v'.repeat(201)] }, 'variables'],
      ['variables not an array', { ...SNAP_REQUEST, variables: 'snap_allotment' }, 'variables'],
      ['a variable not a string', { ...SNAP_REQUEST, variables: [42] }, 'variables'],
    ])('%s', async (_name, body, field) => {
      const res = await calculate(body);
      expect(expectError(res, 400, 'invalid_request').error.message).toContain(field);
    });

    test('not an object at all', async () => {
      expectError(await calculate([SNAP_REQUEST]), 400, 'invalid_request');
    });

    test('program_id and jurisdiction of exactly 120 characters and 100 variables are within the caps (422, not 400)', async () => {
      expectError(await calculate({ ...SNAP_REQUEST, program_id: 'p'.repeat(120), jurisdiction: 'j'.repeat(120) }), 422, 'unsupported_program');
      expectOk(await calculate({ ...SNAP_REQUEST, variables: Array(100).fill('snap_allotment') }));
    });
  });

  describe('400 invalid_household (runtime validation)', () => {
    test.each([
      ['missing household size (nobody listed)', { facts: {} }],
      ['an empty household', {}],
      ['negative income', { facts: { household_size: 2, snap_earned_income: -100 } }],
      ['negative unearned income', { facts: { household_size: 2, snap_unearned_income: -1 } }],
      ['a household size of zero', { facts: { household_size: 0 } }],
      ['a negative household size', { facts: { household_size: -1 } }],
      ['household size of the wrong type', { facts: { household_size: 'two' } }],
      ['a fractional household size', { facts: { household_size: 1.5 } }],
      ['people of the wrong type', { people: 'two adults' }],
      ['a boolean input of the wrong type', { facts: { household_size: 1, snap_categorically_eligible: 'maybe' } }],
    ])('%s', async (_name, household) => {
      expectError(await calculate({ program_id: 'snap', jurisdiction: 'us', household }), 400, 'invalid_household');
    });
  });

  describe('422 unsupported_program', () => {
    test.each([
      ['an unknown program', 'medicaid', 'us'],
      ['a jurisdiction without the program', 'snap', 'us-tx'],
      ['the jurisdiction and program swapped', 'us', 'snap'],
      ['a different case', 'SNAP', 'us'],
    ])('%s', async (_name, program_id, jurisdiction) => {
      const body = expectError(await calculate({ program_id, jurisdiction, household: { facts: { household_size: 1 } } }), 422, 'unsupported_program');
      expect(body.error.message.length).toBeGreaterThan(0);
    });
  });

  describe('502 runtime_error', () => {
    test('the engine fails (division by zero in the encoding)', async () => {
      expect(expectOk(await calculate(ratio(4), lab)).outputs).toEqual({ ratio: 25 });
      expectError(await calculate(ratio(0), lab), 502, 'runtime_error');
    });

    test('the calculation runs past its time limit', async () => {
      const request = { program_id: LAB.math, jurisdiction: LAB.jurisdiction, household: {}, variables: [`step_${CHAIN}`] };
      const timed = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { compiled: labOutput(), config: { calculateTimeoutMs: 1 } });
      try {
        // every clock reading is 50 ms later than the last: the deadline passes while evaluating
        let clock = Date.now();
        vi.spyOn(Date, 'now').mockImplementation(() => (clock += 50));
        expectError(await calculate(request, timed), 502, 'runtime_error');
        vi.restoreAllMocks();
        // the same request with time to spare computes
        expect(expectOk(await calculate(request, lab)).outputs).toEqual({ [`step_${CHAIN}`]: 100 + CHAIN - 1 });
      } finally {
        vi.restoreAllMocks();
        await timed.app.close();
      }
    });
  });
});

describe('POST /v1/calculate/batch', () => {
  const JURISDICTIONS = ['us', 'us-co', 'us-ny', 'us-ca'];

  test('1 entry', async () => {
    const data = expectOk(await batch([SNAP_REQUEST]));
    expect(data.summary).toEqual({ total: 1, succeeded: 1, failed: 0 });
    expect(data.results).toHaveLength(1);
    expect(data.results[0].status).toBe('ok');
    expectCalculateResponse(data.results[0].result, SNAP_REQUEST);
  });

  test('25 entries run one per turn of the event loop, so other requests are served between them', async () => {
    let turns = 0;
    let counting = true;
    const tick = () => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const data = expectOk(await batch(Array.from({ length: 25 }, () => SNAP_REQUEST)));
    counting = false;
    expect(data.summary.succeeded).toBe(25);
    expect(turns).toBeGreaterThanOrEqual(25);
  });

  test('25 entries: results are positional and equal to single calculations', async () => {
    const requests = Array.from({ length: 25 }, (_, i) => single((i % 8) + 1, JURISDICTIONS[i % 4], { snap_earned_income: 100 * i }));
    const data = expectOk(await batch(requests));
    expect(data.summary).toEqual({ total: 25, succeeded: 25, failed: 0 });
    expect(data.results).toHaveLength(25);
    for (const [i, r] of data.results.entries()) {
      expect(r.status).toBe('ok');
      expect(r.result.jurisdiction).toBe(requests[i].jurisdiction);
    }
    for (const i of [0, 7, 13, 24]) {
      expect(data.results[i].result.outputs).toEqual(expectOk(await calculate(requests[i])).outputs);
    }
  });

  test('runtime failures stay in their entry: unsupported_program, invalid_household, runtime_error', async () => {
    const requests = [ratio(4), { program_id: 'medicaid', jurisdiction: LAB.jurisdiction, household: {} }, { ...ratio(4), household: { facts: { divisor: 'zero' } } }, ratio(0), ratio(5)];
    const data = expectOk(await batch(requests, lab));
    expect(data.summary).toEqual({ total: 5, succeeded: 2, failed: 3 });
    expect(data.results.map((r: { status: string }) => r.status)).toEqual(['ok', 'error', 'error', 'error', 'ok']);
    expect(data.results.map((r: { error?: { code: string } }) => r.error?.code ?? null)).toEqual([null, 'unsupported_program', 'invalid_household', 'runtime_error', null]);
    for (const r of data.results.filter((x: { status: string }) => x.status === 'error')) {
      expect(Object.keys(r).sort()).toEqual(['error', 'status']);
      expect(typeof r.error.message).toBe('string');
    }
    expect(data.results[0].result.outputs).toEqual({ ratio: 25 });
    expect(data.results[4].result.outputs).toEqual({ ratio: 20 });
  });

  test('invalid households in an otherwise valid batch fail only their entry', async () => {
    const data = expectOk(await batch([single(1), { program_id: 'snap', jurisdiction: 'us', household: { facts: { household_size: -3 } } }]));
    expect(data.summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(data.results[1]).toEqual({ status: 'error', error: { code: 'invalid_household', message: expect.any(String) } });
  });

  test.each([
    ['missing household', { program_id: 'snap', jurisdiction: 'us' }],
    ['program_id over 120 characters', { ...SNAP_REQUEST, program_id: 'p'.repeat(121) }],
    ['more than 100 variables', { ...SNAP_REQUEST, variables: Array(101).fill('snap_allotment') }],
  ])('one schema-invalid entry (%s) fails the whole batch with 400 naming requests[i]', async (_name, bad) => {
    const body = expectError(await batch([SNAP_REQUEST, single(2), bad]), 400, 'invalid_request');
    expect(body.error.message).toMatch(/^requests\[2\]/);
  });

  // An entry that is not an object is rejected by the BatchRequest schema (items: {type: object}) in
  // Fastify's validation, before checkEntries: the message is `body.requests.2: must be object`.
  test('an entry that is not an object also gets the positional `requests[i]` message', async () => {
    for (const url of ['/v1/calculate/batch', '/v1/jobs/calculate']) {
      const body = expectError(await post(t, url, { requests: [SNAP_REQUEST, single(2), 'snap please'] }), 400, 'invalid_request');
      expect(body.error.message).toMatch(/^requests\[2\]/);
    }
  });

  // The specification gives the form `requests[i]: …`; server/schemas.ts describeValidation appends the
  // field path to the prefix instead (`requests[2].household: is required`).
  test('the positional message has the literal form `requests[i]: …`', async () => {
    const body = expectError(await batch([SNAP_REQUEST, single(2), { program_id: 'snap', jurisdiction: 'us' }]), 400, 'invalid_request');
    expect(body.error.message).toMatch(/^requests\[2\]: /);
  });

  test.each([
    ['26 entries', Array(26).fill(SNAP_REQUEST)],
    ['0 entries', []],
  ])('%s → 400 invalid_request', async (_name, requests) => {
    expectError(await batch(requests), 400, 'invalid_request');
  });

  test.each([
    ['missing requests', {}],
    ['requests not an array', { requests: SNAP_REQUEST }],
  ])('%s → 400 invalid_request', async (_name, body) => {
    expectError(await post(t, '/v1/calculate/batch', body), 400, 'invalid_request');
  });
});

describe('jobs', () => {
  test('POST /v1/jobs/calculate: 202 {job_id, status, total, status_url, durable}; polling gives positional results', async () => {
    const requests = Array.from({ length: 10 }, (_, i) => single((i % 4) + 1, ['us', 'us-co', 'us-ny', 'us-ca'][i % 4]));
    const data = expectOk(await submit(requests), 202);
    expect(Object.keys(data).sort()).toEqual(['durable', 'job_id', 'status', 'status_url', 'total']);
    expect(typeof data.job_id).toBe('string');
    expect(['pending', 'running', 'succeeded', 'failed']).toContain(data.status);
    expect(data.total).toBe(10);
    expect(data.status_url).toMatch(/^\//);
    expect(data.status_url).toContain(data.job_id);
    expect(data.durable).toBe(t.store.kind !== 'memory'); // the memory store is per instance (RULES_TEST_STORE picks another)

    const seen = await pollUntilDone(data.status_url);
    const done = seen[seen.length - 1];
    expect(done.status).toBe('succeeded');
    expect(done.id).toBe(data.job_id);
    expect(done.total).toBe(10);
    expect(done.completed).toBe(10);
    expect(done.api_key_id).toBe('calc');
    for (const k of ['created_at', 'started_at', 'finished_at'] as const) expect(Number.isNaN(Date.parse(done[k]!)), k).toBe(false);
    expect(Date.parse(done.started_at!)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect(Date.parse(done.finished_at!)).toBeGreaterThanOrEqual(Date.parse(done.started_at!));
    expect(done.error).toBeUndefined();
    expect(done.results).toHaveLength(10);
    for (const [i, r] of done.results!.entries()) {
      expect(r.status).toBe('ok');
      if (r.status === 'ok') expect(r.result.jurisdiction).toBe(requests[i].jurisdiction);
    }
    const direct = expectOk(await calculate(requests[5]));
    const fifth = done.results![5];
    expect(fifth.status === 'ok' && fifth.result.outputs).toEqual(direct.outputs);
  });

  test('`completed` grows toward `total` while the job runs; results appear once succeeded', async () => {
    const slow = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { compiled: labOutput(), config: { jobConcurrency: 1 } });
    try {
      const request = { program_id: LAB.slow, jurisdiction: LAB.jurisdiction, household: slowHousehold(30) };
      const data = expectOk(await submit(Array(8).fill(request), slow), 202);
      const seen = await pollUntilDone(data.status_url, slow);
      const completed = seen.map((r) => r.completed);
      expect(completed).toEqual([...completed].sort((a, b) => a - b));
      expect(completed.some((c) => c > 0 && c < 8)).toBe(true);
      for (const r of seen) {
        expect(r.total).toBe(8);
        if (r.status !== 'succeeded') expect(r.results).toBeUndefined();
        if (r.status === 'running') expect(r.started_at).toBeDefined();
        if (r.status === 'pending') expect(r.completed).toBe(0);
      }
      expect(seen.some((r) => r.status === 'running')).toBe(true);
      const done = seen[seen.length - 1];
      expect(done).toMatchObject({ status: 'succeeded', completed: 8 });
      expect(done.results!.map((r) => r.status)).toEqual(Array(8).fill('ok'));
      const first = done.results![0];
      expect(first.status === 'ok' && first.result.outputs).toEqual({ slow_total: 300_000 });
    } finally {
      await slow.app.close();
    }
  });

  test('keys take turns: one key\'s one-entry job finishes before another key\'s second heavy job starts', async () => {
    const slow = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { compiled: labOutput(), config: { jobConcurrency: 1 } });
    try {
      const heavy = { program_id: LAB.slow, jurisdiction: LAB.jurisdiction, household: slowHousehold(100) };
      // long enough for both to be waiting when the small one comes, however loaded the machine
      const first = expectOk(await submit(Array(25).fill(heavy), slow), 202);
      const second = expectOk(await submit(Array(25).fill(heavy), slow), 202);
      const small = expectOk(await submit([heavy], slow, KEYS.all), 202);
      const firstAtSubmission = (expectOk(await poll(first.status_url, slow)) as ApiJob).completed;
      const smallDone = (await pollUntilDone(small.status_url, slow, KEYS.all, 60_000)).pop()!;
      expect(smallDone.status).toBe('succeeded');
      const secondNow = expectOk(await poll(second.status_url, slow)) as ApiJob;
      expect(secondNow.started_at === undefined || Date.parse(secondNow.started_at) >= Date.parse(smallDone.finished_at!)).toBe(true);
      // the small job waited for the entry running and at most one more of the other key's
      expect((expectOk(await poll(first.status_url, slow)) as ApiJob).completed).toBeLessThanOrEqual(firstAtSubmission + 2);
    } finally {
      await slow.app.close();
    }
  });

  test('a key may have RULES_MAX_PENDING_JOBS_PER_KEY unfinished jobs: one more is 429 rate_limited with retry-after; other keys are not held back', async () => {
    const capped = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { compiled: labOutput(), config: { jobConcurrency: 1, maxPendingJobsPerKey: 2 } });
    try {
      const heavy = { program_id: LAB.slow, jurisdiction: LAB.jurisdiction, household: slowHousehold(100) };
      const jobs = [expectOk(await submit(Array(6).fill(heavy), capped), 202), expectOk(await submit(Array(6).fill(heavy), capped), 202)];
      const refused = await submit([heavy], capped);
      const body = expectError(refused, 429, 'rate_limited');
      expect(body.error.message).toMatch(/already has 2 unfinished jobs .*RULES_MAX_PENDING_JOBS_PER_KEY/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(body.data.retry_after_seconds).toBe(Number(refused.headers['retry-after']));
      expectOk(await submit([heavy], capped, KEYS.all), 202);
      for (const job of jobs) await pollUntilDone(job.status_url, capped, KEYS.calc, 60_000);
      expectOk(await submit([heavy], capped), 202);
    } finally {
      await capped.app.close();
    }
  });

  test('runtime failures stay per entry in the job record', async () => {
    const data = expectOk(await submit([ratio(2), ratio(0), { program_id: 'nope', jurisdiction: LAB.jurisdiction, household: {} }], lab), 202);
    const done = (await pollUntilDone(data.status_url, lab)).pop()!;
    expect(done.status).toBe('succeeded');
    expect(done.results!.map((r) => (r.status === 'error' ? r.error.code : r.status))).toEqual(['ok', 'runtime_error', 'unsupported_program']);
  });

  test('1-50 entries: 50 and 26 are accepted, 51 and 0 are 400', async () => {
    expect(expectOk(await submit(Array(50).fill(single(1))), 202).total).toBe(50);
    expect(expectOk(await submit(Array(26).fill(single(1))), 202).total).toBe(26);
    expectError(await submit(Array(51).fill(single(1))), 400, 'invalid_request');
    expectError(await submit([]), 400, 'invalid_request');
    expectError(await post(t, '/v1/jobs/calculate', {}), 400, 'invalid_request');
  });

  test('one schema-invalid entry fails the submission with 400 naming requests[i]', async () => {
    const body = expectError(await submit([single(1), { program_id: 'snap' }]), 400, 'invalid_request');
    expect(body.error.message).toMatch(/^requests\[1\]/);
  });

  test('a job is visible only to the key that created it; unknown and foreign ids are both 404', async () => {
    const data = expectOk(await submit([single(1)]), 202);
    await pollUntilDone(data.status_url);
    const foreign = expectError(await poll(data.status_url, t, KEYS.all), 404, 'not_found');
    const unknown = expectError(await poll('/v1/jobs/job_0000000000000000', t, KEYS.calc), 404, 'not_found');
    expect(foreign.error.code).toBe(unknown.error.code);
    expect(expectOk(await poll(data.status_url)).status).toBe('succeeded');
    expectError(await poll(`${data.status_url}x`), 404, 'not_found');
  });

  describe('503 when the job store is unreachable', () => {
    class NoJobStore extends MemoryStore {
      override async createJob(): Promise<void> {
        throw new StoreUnavailableError('down');
      }
      override async job(): Promise<JobRecord | undefined> {
        throw new StoreUnavailableError('down');
      }
    }
    test('on submission and on polling', async () => {
      const down = await testApp({}, { store: new NoJobStore() });
      try {
        expectError(await submit([single(1)], down), 503, 'store_unavailable');
        expectError(await poll('/v1/jobs/job_1', down), 503, 'store_unavailable');
      } finally {
        await down.app.close();
      }
    });
  });
});

describe('fixture mode', () => {
  let fixture: TestApp;
  beforeAll(async () => {
    fixture = await testApp({ RULES_API_KEYS: GENEROUS_KEYS }, { mode: 'fixture' });
  });
  afterAll(async () => {
    await fixture.app.close();
  });

  const expectFixtureWarning = (data: { runtime: { mode: string }; warnings: string[] }) => {
    expect(data.runtime.mode).toBe('fixture');
    expect(data.warnings.length).toBeGreaterThan(0);
    const warning = data.warnings.find((w) => /experimental/i.test(w));
    expect(warning, JSON.stringify(data.warnings)).toBeDefined();
    expect(warning).toMatch(/not (an )?authoritative/i);
  };

  test('every calculation carries a warning that the runtime is experimental and not authoritative', async () => {
    for (const jurisdiction of ['us', 'us-co', 'us-ny', 'us-ca']) expectFixtureWarning(expectOk(await calculate(single(2, jurisdiction), fixture)));
  });

  test('batch entries and job results carry it too', async () => {
    const results = expectOk(await batch([single(1), single(3, 'us-ny')], fixture)).results;
    for (const r of results) expectFixtureWarning(r.result);
    const job = expectOk(await submit([single(1)], fixture), 202);
    const done = (await pollUntilDone(job.status_url, fixture)).pop()!;
    const entry = done.results![0];
    expect(entry.status).toBe('ok');
    if (entry.status === 'ok') expectFixtureWarning(entry.result);
  });

  test('packages report fixture mode', async () => {
    const packages = expectOk(await fixture.app.inject({ method: 'GET', url: '/v1/runtime/packages', headers: auth(KEYS.read) })).packages;
    expect(packages.every((p: { mode: string }) => p.mode === 'fixture')).toBe(true);
  });
});
