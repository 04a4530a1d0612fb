import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serve, type Served } from '../daemon.js';

// Bounds on what a client can send, through a real `rules serve`: one nesting limit for every
// JSON body (checked before any route runs, so nothing recursive ever sees a deeper body).

const KEY = 'input-bounds-test-key-all-scopes-0001';
const LIMIT = 64;

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
    expect(res.json.data.warnings).toEqual([expect.stringMatching(/^household\.notes: not a household convention/)]);
  });

  test('the limit is in the OpenAPI description and the error catalogue', async () => {
    const doc = (await (await fetch(`${served.url}/v1/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, any> };
    expect(doc.info.description).toContain(`nested at most ${LIMIT} levels deep`);
    expect(doc.paths['/v1/calculate'].post.responses['400'].description).toContain(`nested more than ${LIMIT} levels deep`);
  });
});
