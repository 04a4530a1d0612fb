import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { sha256 } from '../../../server/auth/keys.js';
import { testApp, type TestApp } from '../../support/app.js';
import { expectError, SNAP_REQUEST } from '../../support/lab.js';

// Rules API, "Authentication" and the rate limits of "Limits".

const K = {
  all: 'auth-test-key-all-00000000000000000001',
  rules: 'auth-test-key-rules-00000000000000000001',
  sources: 'auth-test-key-sources-00000000000000000001',
  graphs: 'auth-test-key-graphs-00000000000000000001',
  calc: 'auth-test-key-calc-00000000000000000001',
  parity: 'auth-test-key-parity-00000000000000000001',
  keysOnly: 'auth-test-key-admin-keys-00000000000000000001',
  limited: 'auth-test-key-limited-00000000000000000001',
  expired: 'auth-test-key-expired-00000000000000000001',
};

const KEYS_ENV = JSON.stringify([
  { id: 'all', key: K.all, scopes: ['*'] },
  { id: 'rules', key: K.rules, scopes: ['rules:read'] },
  { id: 'sources', key: K.sources, scopes: ['sources:read'] },
  { id: 'graphs', key: K.graphs, scopes: ['graphs:read'] },
  { id: 'calc', key: K.calc, scopes: ['calculate:run'] },
  { id: 'parity', key: K.parity, scopes: ['admin:parity'] },
  { id: 'keys-only', key: K.keysOnly, scopes: ['admin:keys'] },
  { id: 'limited', key: K.limited, scopes: ['*'], rate_limit: { requests: 3, window_seconds: 60 } },
  { id: 'expired', key: K.expired, scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' },
]);

const app = (env: Record<string, string> = {}) => testApp({ RULES_API_KEYS: KEYS_ENV, ...env });
const withKey = (key: string) => ({ 'x-api-key': key });

const RULE = 'us:statutes/7/2017/a%23snap_allotment';
const RULE_PATH = 'us/statutes/7/2017/a/snap_allotment';

type Req = { name: string; request: (headers: Record<string, string>) => InjectOptions; ok: number };
const get = (url: string, ok = 200): Req => ({ name: `GET ${url}`, request: (headers) => ({ method: 'GET', url, headers }), ok });
const post = (url: string, payload: unknown, ok = 200): Req => ({
  name: `POST ${url}`,
  request: (headers) => ({ method: 'POST', url, headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' }, payload: payload === undefined ? undefined : JSON.stringify(payload) }),
  ok,
});

/** Each scope and the routes it guards (Authentication, scope table; rules:read is the default). */
const FAMILIES: { scope: string; key: string; other: string; routes: Req[] }[] = [
  {
    scope: 'rules:read',
    key: K.rules,
    other: K.calc,
    routes: [
      get('/v1/capabilities'),
      get('/v1/programs'),
      get('/v1/runtime/packages'),
      get('/v1/runtime/packages/us/snap'),
      get('/v1/runtime/packages/us/snap/graph'),
      post('/v1/search', { query: 'snap allotment' }),
      get(`/v1/rules/${RULE}`),
      get(`/v1/rules/${RULE_PATH}`),
      get(`/v1/graph/compose?focus=${RULE}`),
    ],
  },
  { scope: 'sources:read', key: K.sources, other: K.rules, routes: [get(`/v1/rules/${RULE}/sources`), get(`/v1/rules/${RULE_PATH}/sources`)] },
  { scope: 'graphs:read', key: K.graphs, other: K.rules, routes: [get(`/v1/rules/${RULE}/dependencies`), get(`/v1/rules/${RULE_PATH}/dependencies`)] },
  {
    scope: 'calculate:run',
    key: K.calc,
    other: K.rules,
    routes: [post('/v1/calculate', SNAP_REQUEST), post('/v1/calculate/batch', { requests: [SNAP_REQUEST] }), post('/v1/jobs/calculate', { requests: [SNAP_REQUEST] }, 202), get('/v1/jobs/job_unknown', 404)],
  },
  { scope: 'admin:parity', key: K.parity, other: K.rules, routes: [get('/v1/parity/cases'), post('/v1/parity/run', undefined)] },
];

describe('scopes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });
  afterAll(async () => {
    await t.app.close();
  });

  for (const family of FAMILIES) {
    describe(family.scope, () => {
      test.each(family.routes.map((r) => [r.name, r] as const))('%s: a key with only this scope passes', async (_name, route) => {
        const res = await t.app.inject(route.request(withKey(family.key)));
        expect(res.statusCode, res.body.slice(0, 300)).toBe(route.ok);
      });

      test.each(family.routes.map((r) => [r.name, r] as const))('%s: a key without it gets 403 insufficient_scope naming the scope', async (_name, route) => {
        for (const key of [family.other, K.keysOnly]) {
          const body = expectError(await t.app.inject(route.request(withKey(key))), 403, 'insufficient_scope');
          expect(body.error.message).toContain(family.scope);
        }
      });

      test.each(family.routes.map((r) => [r.name, r] as const))('%s: `*` passes', async (_name, route) => {
        expect((await t.app.inject(route.request(withKey(K.all)))).statusCode).toBe(route.ok);
      });
    });
  }

  test('an unknown rule asked for its sources or dependencies still needs the view scope', async () => {
    const sources = expectError(await t.app.inject(get('/v1/rules/us:nothing%23here/sources').request(withKey(K.rules))), 403, 'insufficient_scope');
    expect(sources.error.message).toContain('sources:read');
    expectError(await t.app.inject(get('/v1/rules/us:nothing%23here/sources').request(withKey(K.sources))), 404, 'not_found');
  });
});

describe('presenting a key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });
  afterAll(async () => {
    await t.app.close();
  });

  test('x-api-key works', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/programs', headers: { 'x-api-key': K.rules } })).statusCode).toBe(200);
  });

  test('Authorization: Bearer works', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/programs', headers: { authorization: `Bearer ${K.rules}` } })).statusCode).toBe(200);
  });

  test('when both are sent x-api-key wins (its scopes decide)', async () => {
    // x-api-key: rules:read only; bearer: everything → the calculation is refused
    const refused = await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: { 'x-api-key': K.rules, authorization: `Bearer ${K.all}` }, payload: SNAP_REQUEST });
    expect(expectError(refused, 403, 'insufficient_scope').error.message).toContain('calculate:run');
    // and the other way round
    const allowed = await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: { 'x-api-key': K.all, authorization: `Bearer ${K.rules}` }, payload: SNAP_REQUEST });
    expect(allowed.statusCode).toBe(200);
  });

  test('when both are sent an invalid x-api-key is not rescued by a valid bearer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/programs', headers: { 'x-api-key': 'wrong-key', authorization: `Bearer ${K.all}` } });
    expectError(res, 401, 'unauthorized');
  });
});

describe('401 unauthorized', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
    // a store key, accepted, then revoked
    const raw = 'auth-test-key-revoked-00000000000000000001';
    await t.store.createKey({ id: 'revoked', key_sha256: sha256(raw), prefix: raw.slice(0, 8), scopes: ['*'], status: 'active', kind: 'admin', created_at: new Date().toISOString() });
    await t.ctx.keys.refresh();
  });
  afterAll(async () => {
    await t.app.close();
  });

  const strip = (res: LightMyRequestResponse) => {
    const body = res.json();
    return { status: res.statusCode, body: { ...body, meta: { ...body.meta, request_id: '-' } } };
  };

  test('missing, unknown, expired and revoked keys get the identical 401 body', async () => {
    const url = '/v1/programs';
    expect((await t.app.inject({ method: 'GET', url, headers: withKey('auth-test-key-revoked-00000000000000000001') })).statusCode).toBe(200);
    await t.store.revokeKey('revoked', new Date().toISOString());
    await t.ctx.keys.refresh();

    const answers = [
      await t.app.inject({ method: 'GET', url }),
      await t.app.inject({ method: 'GET', url, headers: withKey('no-such-key-at-all') }),
      await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer no-such-key-at-all' } }),
      await t.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${Buffer.from(`x:${K.all}`).toString('base64')}` } }),
      await t.app.inject({ method: 'GET', url, headers: withKey(K.expired) }),
      await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${K.expired}` } }),
      await t.app.inject({ method: 'GET', url, headers: withKey('auth-test-key-revoked-00000000000000000001') }),
    ];
    for (const res of answers) expectError(res, 401, 'unauthorized');
    const first = strip(answers[0]);
    for (const res of answers.slice(1)) expect(strip(res)).toEqual(first);
  });

  test('a valid key with trailing characters is unknown', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(`${K.all}x`) }), 401, 'unauthorized');
  });
});

describe('503 auth_not_configured', () => {
  test('protected routes answer 503 when no key is configured, with or without a key', async () => {
    const t = await testApp({ RULES_API_KEYS: '' });
    for (const request of [
      { method: 'GET', url: '/v1/programs' },
      { method: 'GET', url: '/v1/capabilities', headers: withKey(K.all) },
      { method: 'POST', url: '/v1/calculate', headers: withKey(K.all), payload: SNAP_REQUEST },
      { method: 'GET', url: '/v1/parity/cases', headers: { authorization: `Bearer ${K.all}` } },
    ] as InjectOptions[]) {
      expectError(await t.app.inject(request), 503, 'auth_not_configured');
    }
    await t.app.close();
  });
});

// ---------------------------------------------------------------------------------------------
// Rate limits. Date is frozen so that a fixed window cannot roll over in the middle of a test.

const NOW = Date.UTC(2030, 0, 15, 12, 0, 5);

describe('rate limits', () => {
  let t: TestApp;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    t = await app();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await t.app.close();
  });

  const headerInt = (res: LightMyRequestResponse, name: string) => {
    const raw = res.headers[name];
    expect(raw, name).toMatch(/^\d+$/);
    return Number(raw);
  };

  function expectRateHeaders(res: LightMyRequestResponse, limit: number, windowSeconds: number) {
    expect(headerInt(res, 'x-ratelimit-limit')).toBe(limit);
    const remaining = headerInt(res, 'x-ratelimit-remaining');
    expect(remaining).toBeLessThanOrEqual(limit);
    const reset = headerInt(res, 'x-ratelimit-reset');
    // Unix seconds at the end of the current window
    expect(reset).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + windowSeconds);
    return { remaining, reset };
  }

  test('every authenticated response carries the headers: success, 400, 403, 404, 413', async () => {
    const responses = [
      await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.rules) }),
      await t.app.inject({ method: 'POST', url: '/v1/search', headers: withKey(K.rules), payload: { query: 'x' } }),
      await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: withKey(K.rules), payload: SNAP_REQUEST }),
      await t.app.inject({ method: 'GET', url: '/v1/rules/us:nothing%23here', headers: withKey(K.rules) }),
      await t.app.inject({ method: 'POST', url: '/v1/search', headers: { ...withKey(K.rules), 'content-type': 'application/json' }, payload: JSON.stringify({ query: 'snap', pad: 'x'.repeat(300_000) }) }),
      await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: { authorization: `Bearer ${K.calc}` }, payload: SNAP_REQUEST }),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 400, 403, 404, 413, 200]);
    for (const res of responses) expectRateHeaders(res, 120, 60);
  });

  test('x-ratelimit-remaining counts down per key, and each key has its own count', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push(expectRateHeaders(await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.rules) }), 120, 60).remaining);
    expect(seen).toEqual([119, 118, 117]);
    expect(expectRateHeaders(await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.all) }), 120, 60).remaining).toBe(119);
  });

  test('public routes carry no rate-limit headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health', headers: withKey(K.rules) });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  test('past the per-key limit: 429 rate_limited with retry-after and data.retry_after_seconds; other keys unaffected; the next window admits again', async () => {
    const remaining: number[] = [];
    let reset = 0;
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.limited) });
      expect(res.statusCode).toBe(200);
      const h = expectRateHeaders(res, 3, 60);
      remaining.push(h.remaining);
      reset = h.reset;
    }
    expect(remaining).toEqual([2, 1, 0]);

    const limited = await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.limited) });
    const body = expectError(limited, 429, 'rate_limited');
    const h = expectRateHeaders(limited, 3, 60);
    expect(h.remaining).toBe(0);
    expect(h.reset).toBe(reset);
    const retryAfter = headerInt(limited, 'retry-after');
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(body.data.retry_after_seconds).toBe(retryAfter);
    expect(Number.isInteger(body.data.retry_after_seconds)).toBe(true);
    // retry-after points at the end of the window
    expect(Math.abs(Math.floor(Date.now() / 1000) + retryAfter - reset)).toBeLessThanOrEqual(1);

    // any route, still limited
    expectError(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: withKey(K.limited), payload: SNAP_REQUEST }), 429, 'rate_limited');
    // another key is not
    expect((await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.all) })).statusCode).toBe(200);

    vi.setSystemTime(reset * 1000 + 1);
    const next = await t.app.inject({ method: 'GET', url: '/v1/programs', headers: withKey(K.limited) });
    expect(next.statusCode).toBe(200);
    expect(expectRateHeaders(next, 3, 60).remaining).toBe(2);
  });
});

describe('failed-authentication throttle: 20 failures within 300 s from one client', () => {
  let t: TestApp | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await t?.app.close();
    t = undefined;
  });

  const fail = (ip: string, xff?: string) =>
    t!.app.inject({ method: 'GET', url: '/v1/programs', remoteAddress: ip, headers: { 'x-api-key': 'wrong-key-attempt', ...(xff ? { 'x-forwarded-for': xff } : {}) } });
  const valid = (ip: string, xff?: string) => t!.app.inject({ method: 'GET', url: '/v1/programs', remoteAddress: ip, headers: { ...withKey(K.rules), ...(xff ? { 'x-forwarded-for': xff } : {}) } });

  test('the 21st request is 429 auth_throttled, valid key included, every route; other clients are unaffected', async () => {
    t = await app();
    for (let i = 0; i < 20; i++) expectError(await fail('10.0.0.1'), 401, 'unauthorized');
    expectError(await valid('10.0.0.1'), 429, 'auth_throttled');
    expectError(await fail('10.0.0.1'), 429, 'auth_throttled');
    expectError(await t.app.inject({ method: 'POST', url: '/v1/calculate', remoteAddress: '10.0.0.1', headers: withKey(K.all), payload: SNAP_REQUEST }), 429, 'auth_throttled');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/programs', remoteAddress: '10.0.0.1' }), 429, 'auth_throttled');
    expect((await valid('10.0.0.2')).statusCode).toBe(200);
  });

  test('a throttled client cannot mint trial keys either; requests without a key are not failed attempts', async () => {
    t = await app();
    for (let i = 0; i < 25; i++) expectError(await t.app.inject({ method: 'GET', url: '/v1/programs', remoteAddress: '10.0.0.3' }), 401, 'unauthorized');
    expect((await valid('10.0.0.3')).statusCode).toBe(200);
    for (let i = 0; i < 20; i++) await fail('10.0.0.1');
    expectError(await t.app.inject({ method: 'POST', url: '/v1/keys/trial', remoteAddress: '10.0.0.1' }), 429, 'auth_throttled');
    expect((await t.app.inject({ method: 'POST', url: '/v1/keys/trial', remoteAddress: '10.0.0.2' })).statusCode).toBe(201);
  });

  test('the throttle lasts until the window expires', async () => {
    t = await app();
    for (let i = 0; i < 20; i++) await fail('10.0.0.1');
    expectError(await valid('10.0.0.1'), 429, 'auth_throttled');
    vi.setSystemTime(NOW + 301_000);
    expect((await valid('10.0.0.1')).statusCode).toBe(200);
  });

  test('successful authentications never count (nor reset the count)', async () => {
    t = await app();
    for (let i = 0; i < 19; i++) await fail('10.0.0.1');
    for (let i = 0; i < 10; i++) expect((await valid('10.0.0.1')).statusCode).toBe(200);
    expectError(await fail('10.0.0.1'), 401, 'unauthorized'); // the 20th failure
    expectError(await valid('10.0.0.1'), 429, 'auth_throttled');
  });

  test('without RULES_TRUST_PROXY x-forwarded-for is ignored: the socket address is the client', async () => {
    t = await app();
    for (let i = 0; i < 20; i++) await fail('10.0.0.5', `198.51.100.${i + 1}`);
    expectError(await valid('10.0.0.5', '203.0.113.50'), 429, 'auth_throttled');
    // another socket claiming to be one of the failing forwarded clients is fine
    expect((await valid('10.0.0.6', '198.51.100.1')).statusCode).toBe(200);
  });

  test('with RULES_TRUST_PROXY=1 the client is the hop the proxy added (the last): hops a client sends before it change nothing', async () => {
    t = await app({ RULES_TRUST_PROXY: '1' });
    // one client (203.0.113.9) behind the proxy, forging a new first hop each time
    for (let i = 0; i < 20; i++) expectError(await fail('10.0.0.1', `198.51.100.${i + 1}, 203.0.113.9`), 401, 'unauthorized');
    expectError(await valid('10.0.0.1', '203.0.113.9'), 429, 'auth_throttled');
    expectError(await valid('10.0.0.2', 'forged, 203.0.113.9'), 429, 'auth_throttled');
    // another client behind the proxy, even one naming the throttled address as its first hop: not throttled
    expect((await valid('10.0.0.1', '203.0.113.9, 198.51.100.4')).statusCode).toBe(200);
  });

  test('with a list of proxies the client is the first address from the right that is not one of them', async () => {
    t = await app({ RULES_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1' });
    // the edge proxy 192.0.2.1 added the client, an internal proxy 10.0.0.7 added the edge proxy
    for (let i = 0; i < 20; i++) expectError(await fail('10.0.0.1', `spoof-${i}, 203.0.113.9, 192.0.2.1, 10.0.0.7`), 401, 'unauthorized');
    expectError(await valid('10.0.0.2', '203.0.113.9'), 429, 'auth_throttled');
    // a peer that is not a listed proxy is the client itself, whatever it forwards
    expect((await valid('198.51.100.1', '203.0.113.9')).statusCode).toBe(200);
    expect((await valid('10.0.0.1', '198.51.100.1')).statusCode).toBe(200);
  });
});
