import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serve, type Served } from '../../support/daemon.js';

// Bounds on what a client can send, through a real `rules serve`: one nesting limit for every
// JSON body (checked before any route runs, so nothing recursive ever sees a deeper body), and
// a plausible bound on the people in one household.

const KEY = 'input-bounds-test-key-all-scopes-0001';
const LIMIT = 64;
const BOUND = 100;

let served: Served;
beforeAll(async () => {
  served = await serve({ keys: [{ id: 'all', key: KEY, scopes: ['*'] }] });
});
afterAll(async () => {
  expect(await served?.stop()).toBe(0);
});

async function post(route: string, body: string) {
  const res = await fetch(`${served.url}${route}`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** `template` with `DEEP` replaced by nested arrays so that the body's deepest level is `depth`
 *  (the outermost container is level 1; templates hold no brackets inside strings). */
function nestedTo(template: string, depth: number): string {
  const at = template.indexOf('DEEP');
  const before = template.slice(0, at);
  const level = [...before].filter((c) => c === '{' || c === '[').length - [...before].filter((c) => c === '}' || c === ']').length;
  const arrays = depth - level;
  return `${before}${'['.repeat(arrays)}1${']'.repeat(arrays)}${template.slice(at + 4)}`;
}

const CALCULATION = '{"program_id":"snap","jurisdiction":"us","household":{"facts":{"household_size":1,"snap_earned_income":900},"notes":DEEP}}';

/** Every route that reads a JSON body, with a place for a deep value and what it answers when the value is within the limit. */
const ROUTES: { route: string; template: string; ok: number }[] = [
  { route: '/v1/calculate', template: CALCULATION, ok: 200 },
  { route: '/v1/calculate/batch', template: `{"requests":[${CALCULATION}]}`, ok: 200 },
  { route: '/v1/jobs/calculate', template: `{"requests":[${CALCULATION}]}`, ok: 202 },
  { route: '/v1/search', template: '{"query":"snap allotment","extra":DEEP}', ok: 200 },
  { route: '/v1/household/us/calculate', template: '{"household":{"people":{"you":{"age":{"2026":30},"notes":{"2026":DEEP}}}}}', ok: 200 },
  { route: '/v1/keys/trial', template: '{"extra":DEEP}', ok: 201 },
  { route: '/v1/admin/keys', template: '{"id":"deep-but-fine","scopes":["rules:read"],"extra":DEEP}', ok: 201 },
  { route: '/v1/admin/kill', template: '{"switch":"trial_mint","engaged":false,"reason":"depth test","extra":DEEP}', ok: 200 },
  { route: '/v1/admin/validation/runs', template: '{"kind":"depth test","rows":[],"model_versions":{"deep":DEEP}}', ok: 201 },
  { route: '/v1/parity/run', template: '{"extra":DEEP}', ok: 200 },
];

describe(`every JSON body: arrays and objects nested at most ${LIMIT} levels deep`, () => {
  test.each(ROUTES)('$route: a 10,000-level array is 400 naming the limit', async ({ route, template }) => {
    const res = await post(route, template.replace('DEEP', `${'['.repeat(10_000)}${']'.repeat(10_000)}`));
    expect(res.status).toBe(400);
    if (route.startsWith('/v1/household/')) {
      // the migration endpoint answers in its own error shape
      expect(res.json).toMatchObject({ status: 'error', result: null, message: expect.stringContaining(`more than ${LIMIT} levels deep`) });
    } else {
      expect(res.json.error).toEqual({ code: 'invalid_request', message: `the JSON body nests arrays and objects more than ${LIMIT} levels deep (the limit for every request body)` });
    }
  });

  test.each(ROUTES)(`$route: ${LIMIT} levels are served as usual, ${LIMIT + 1} are refused`, async ({ route, template, ok }) => {
    const at = await post(route, nestedTo(template, LIMIT));
    expect(at.status, JSON.stringify(at.json)).toBe(ok);
    const over = await post(route, nestedTo(template, LIMIT + 1));
    expect(over.status).toBe(400);
    expect(JSON.stringify(over.json)).toContain(`more than ${LIMIT} levels deep`);
  });

  test('brackets inside strings (escaped quotes included) are text, not nesting', async () => {
    const query = `snap \\"${'['.repeat(200)}`;
    const res = await post('/v1/search', `{"query":"${query}"}`);
    expect(res.status).toBe(200);
    expect(res.json.data.query).toBe(`snap "${'['.repeat(200)}`);
  });

  test('a calculation answered within the limit carries the ignored field as a warning, never silently', async () => {
    const res = await post('/v1/calculate', nestedTo(CALCULATION, LIMIT));
    // besides what the answer assumed (the household gives few facts) and its period
    expect(res.json.data.warnings).toContainEqual(expect.stringMatching(/^household\.notes: not a household convention/));
  });

  test('the limit is in the OpenAPI description and the error catalogue', async () => {
    const doc = (await (await fetch(`${served.url}/v1/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, any> };
    expect(doc.info.description).toContain(`nested at most ${LIMIT} levels deep`);
    expect(doc.paths['/v1/calculate'].post.responses['400'].description).toContain(`nested more than ${LIMIT} levels deep`);
  });
});

const calculation = (household: unknown) => JSON.stringify({ program_id: 'snap', jurisdiction: 'us', household, variables: ['snap_allotment'] });
const people = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i + 1}`, { age: 30 }]));

describe(`households: at most ${BOUND} people`, () => {
  test('household_size 1,000,000 is 400 invalid_household naming the field and the bound (not a $218 million allotment)', async () => {
    const res = await post('/v1/calculate', calculation({ facts: { household_size: 1_000_000 } }));
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({ code: 'invalid_household', message: `household.facts.household_size: must be at most ${BOUND} (the plausible bound on the people in one household), got 1000000` });
  });

  test(`a size of ${BOUND} is calculated; ${BOUND + 1} is refused, by alias too`, async () => {
    const at = await post('/v1/calculate', calculation({ facts: { household_size: BOUND } }));
    expect(at.status).toBe(200);
    expect(at.json.data.outputs.snap_allotment).toBeGreaterThan(0);
    const over = await post('/v1/calculate', calculation({ facts: { size: BOUND + 1 } }));
    expect(over.status).toBe(400);
    expect(over.json.error.code).toBe('invalid_household');
    expect(over.json.error.message).toMatch(new RegExp(`^household\\.facts\\.size: must be at most ${BOUND} `));
  });

  test(`${BOUND} people listed are calculated; ${BOUND + 1} are refused`, async () => {
    const at = await post('/v1/calculate', calculation({ people: people(BOUND) }));
    expect(at.status).toBe(200);
    const over = await post('/v1/calculate', calculation({ people: people(BOUND + 1) }));
    expect(over.status).toBe(400);
    expect(over.json.error).toEqual({ code: 'invalid_household', message: `household.people: lists ${BOUND + 1} people, more than the plausible bound of ${BOUND} in one household` });
  });

  test('a size that disagrees with the people listed is still used with a warning', async () => {
    const res = await post('/v1/calculate', calculation({ facts: { household_size: 3 }, people: people(2) }));
    expect(res.status).toBe(200);
    expect(res.json.data.warnings).toContain('household.facts.household_size is 3, but 2 people are listed; the calculation uses 3');
  });

  test('in a batch the entry fails with invalid_household; in the migration endpoint it is a 400', async () => {
    const batch = await post('/v1/calculate/batch', `{"requests":[${calculation({ facts: { household_size: 1 } })},${calculation({ facts: { household_size: 5000 } })}]}`);
    expect(batch.status).toBe(200);
    expect(batch.json.data.results[0].status).toBe('ok');
    expect(batch.json.data.results[1]).toEqual({ status: 'error', error: { code: 'invalid_household', message: expect.stringContaining(`must be at most ${BOUND}`) } });

    const crowd = Object.fromEntries(Array.from({ length: BOUND + 1 }, (_, i) => [`p${i}`, { age: { 2026: 30 } }]));
    const migration = await post('/v1/household/us/calculate', JSON.stringify({ household: { people: crowd, spm_units: { u: { snap: { 2026: null } } }, households: { h: { state_code: { 2026: 'CO' } } } } }));
    expect(migration.status).toBe(400);
    expect(migration.json).toMatchObject({ status: 'error', result: null, message: expect.stringContaining(`must be at most ${BOUND}`) });
  });
});
