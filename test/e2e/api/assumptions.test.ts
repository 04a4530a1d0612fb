import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { expectError, expectOk, sleep } from '../../support/lab.js';

// What an answer assumed, and why it came out as it did, through every way the API calculates:
// /v1/calculate, batch entries and job results carry the same assumptions and explanation;
// `assumptions: "refuse"` turns an answer resting on defaults into 400 invalid_household with the
// list (per entry in batches and jobs), and filling the list in ends in an answer without any.

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.app.close();
});

const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: auth(KEYS.calc), payload: payload as object });

/** A Colorado screening with the facts a person has at hand (see test/compiler/runtime/calculate/assumptions.test.ts: 72). */
const SCREENING = { program_id: 'co-snap', jurisdiction: 'us-co', household: { period: '2026-03', facts: { earned_income: 1200 }, people: { a: { age: 35 } } } };
/** 5,200 earned for one person: fails the gross income test (1,696, 7 CFR 273.9(a)(1)). */
const FAILING = { program_id: 'co-snap', jurisdiction: 'us-co', household: { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } }, variables: ['snap_income_eligible', 'snap_allotment'], explain: true };

type Assumption = { input: string; entity: string; entity_id: string; value: unknown; field: string };

async function finishedJob(requests: unknown[]) {
  const accepted = expectOk(await post('/v1/jobs/calculate', { requests }), 202);
  for (const until = Date.now() + 20_000; Date.now() < until; await sleep(10)) {
    const job = expectOk(await t.app.inject({ method: 'GET', url: accepted.status_url, headers: auth(KEYS.calc) }));
    if (job.status === 'succeeded') return job;
  }
  throw new Error('the job did not finish');
}

describe('assumptions', () => {
  test('an answer lists what it assumed, the same through /v1/calculate, a batch entry and a job result', async () => {
    const single = expectOk(await post('/v1/calculate', SCREENING));
    expect(single.outputs.snap_allotment).toBe(72);
    const inputs = (single.assumptions as Assumption[]).map((a) => a.input);
    for (const input of ['snap_shelter_costs', 'snap_pays_heating_or_cooling_separately', 'snap_pays_telephone', 'snap_time_limit_exhausted']) expect(inputs).toContain(input);
    expect(single.warnings).toEqual([expect.stringMatching(/^assumed 14 inputs the household does not give/)]);
    const batch = expectOk(await post('/v1/calculate/batch', { requests: [SCREENING] }));
    expect(batch.results[0].result.assumptions).toEqual(single.assumptions);
    const job = await finishedJob([SCREENING]);
    expect(job.results[0].result.assumptions).toEqual(single.assumptions);
  });

  test('refused: 400 invalid_household with error.assumptions; filling them in round by round ends in an answer without any', async () => {
    const request = structuredClone({ ...SCREENING, assumptions: 'refuse' }) as typeof SCREENING & { household: { entities?: Record<string, Record<string, Record<string, unknown>>> } };
    const first = await post('/v1/calculate', request);
    const body = expectError(first, 400, 'invalid_household');
    expect(body.error.message).toContain('snap_shelter_costs');
    const listed = (body.error as { assumptions?: Assumption[] }).assumptions;
    expect(listed).toEqual(expectOk(await post('/v1/calculate', SCREENING)).assumptions);
    let rounds = 0;
    for (let answer = first; answer.statusCode === 400; answer = await post('/v1/calculate', request)) {
      expect(++rounds).toBeLessThan(10);
      for (const a of answer.json().error.assumptions as Assumption[]) {
        const entities = (request.household.entities ??= {});
        ((entities[a.entity] ??= {})[a.entity_id] ??= {})[a.input] = a.input === 'snap_shelter_costs' ? 700 : a.value;
      }
    }
    const done = expectOk(await post('/v1/calculate', request));
    expect(done.assumptions).toEqual([]);
    expect(done.warnings).toEqual([]);
  });

  test('refused in a batch or a job: that entry\'s error, with the list; the other entries answer', async () => {
    const requests = [{ ...SCREENING, assumptions: 'refuse' }, SCREENING];
    const batch = expectOk(await post('/v1/calculate/batch', { requests }));
    expect(batch.results[0]).toMatchObject({ status: 'error', error: { code: 'invalid_household', assumptions: expect.arrayContaining([expect.objectContaining({ input: 'snap_shelter_costs' })]) } });
    expect(batch.results[1].status).toBe('ok');
    const job = await finishedJob(requests);
    expect(job.results[0]).toEqual(batch.results[0]);
  });

  test('`assumptions` takes allow or refuse only', async () => {
    expectError(await post('/v1/calculate', { ...SCREENING, assumptions: 'ignore' }), 400, 'invalid_request');
    expectError(await post('/v1/calculate', { ...SCREENING, explain: 'yes' }), 400, 'invalid_request');
  });

  test('one input given twice with different values in one object is 400 naming both fields', async () => {
    const res = await post('/v1/calculate', { ...SCREENING, household: { ...SCREENING.household, facts: { earned_income: 100, snap_earned_income: 5000 } } });
    const body = expectError(res, 400, 'invalid_household');
    expect(body.error.message).toContain('household.facts.earned_income (100)');
    expect(body.error.message).toContain('household.facts.snap_earned_income (5000)');
  });
});

describe('explanations', () => {
  test('valid against the Explanation schema of the served OpenAPI document; the gross income test decides', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const validate = ajv.compile({ $ref: 'openapi#/components/schemas/Explanation' });
    const data = expectOk(await post('/v1/calculate', FAILING));
    expect(validate(data.explanation), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.components.schemas.CalculateResponse.properties.explanation).toEqual({ $ref: '#/components/schemas/Explanation' });
    for (const output of data.explanation.outputs) {
      expect(output.value).toEqual(data.outputs[output.output]);
      const gross = output.deciding.find((d: { name: string }) => d.name === 'snap_passes_gross_income_test');
      expect(gross.comparison).toMatchObject({ left: { value: 5200 }, right: { value: 1696 }, holds: false });
      expect(gross.citation[0]).toContain('7 CFR 273.9(a)');
    }
  });

  test('the same household explains identically through /v1/calculate, a batch entry and a job result', async () => {
    const single = expectOk(await post('/v1/calculate', FAILING));
    const batch = expectOk(await post('/v1/calculate/batch', { requests: [FAILING] }));
    const job = await finishedJob([FAILING]);
    expect(batch.results[0].result.explanation).toEqual(single.explanation);
    expect(job.results[0].result.explanation).toEqual(single.explanation);
  });

  test('without explain, no explanation', async () => {
    expect(expectOk(await post('/v1/calculate', SCREENING))).not.toHaveProperty('explanation');
  });
});
