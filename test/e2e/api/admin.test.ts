import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../../server/auth/keys.js';
import type { ServerConfig } from '../../../server/config.js';
import type { Store } from '../../../server/store/store.js';
import { KEYS, testApp, type TestApp } from '../../support/app.js';
import { ADMIN_ENV, ADMIN_KEYS, caller, secondsToNextUtcDay, STORE_KINDS, withOutage } from '../../support/admin.js';

// Trial keys and every admin route, through app.inject, against each store.

type Call = ReturnType<typeof caller>;

const ISSUE = { id: 'partner-one', scopes: ['rules:read', 'calculate:run'] };
const RUN = {
  kind: 'parity',
  api_version: '0.1.0',
  base_url: 'http://localhost:8080',
  model_versions: { engine: '1.2.3' },
  rows: [
    { variable: 'snap', status: 'parity_match', state: 'co' },
    { variable: 'snap', status: 'parity_diff', state: 'ny' },
    { variable: 'tanf', status: 'uncovered' },
    { variable: 'wic', status: 'drift_diff' },
    { variable: 'wic', status: 'uncovered' },
    { variable: 'eitc', status: 'covered' },
    { variable: 'ssi', status: 'uncovered' },
  ],
  cases: [{ id: 'a', latency_ms: 10 }, { id: 'b', latency_ms: 15 }, { id: 'c' }],
};

/** Every admin route with the scope it needs and a valid body. */
const ADMIN_ROUTES: { method: 'GET' | 'POST'; url: string; scope: 'admin:keys' | 'admin:analytics'; body?: unknown }[] = [
  { method: 'GET', url: '/v1/admin/keys', scope: 'admin:keys' },
  { method: 'POST', url: '/v1/admin/keys', scope: 'admin:keys', body: ISSUE },
  { method: 'POST', url: '/v1/admin/keys/reader/revoke', scope: 'admin:keys' },
  { method: 'GET', url: '/v1/admin/audit', scope: 'admin:keys' },
  { method: 'GET', url: '/v1/admin/kill', scope: 'admin:keys' },
  { method: 'POST', url: '/v1/admin/kill', scope: 'admin:keys', body: { switch: 'trial_mint', engaged: true, reason: 'test' } },
  { method: 'GET', url: '/v1/admin/usage', scope: 'admin:analytics' },
  { method: 'GET', url: '/v1/admin/analytics', scope: 'admin:analytics' },
  { method: 'POST', url: '/v1/admin/validation/runs', scope: 'admin:analytics', body: RUN },
  { method: 'GET', url: '/v1/admin/validation/runs', scope: 'admin:analytics' },
  { method: 'GET', url: '/v1/admin/validation/runs/run_x', scope: 'admin:analytics' },
  { method: 'GET', url: '/v1/admin/validation/migration', scope: 'admin:analytics' },
];

describe.each(STORE_KINDS)('trial keys and admin routes ($name store)', (kind) => {
  let stores: Store[];
  let t: TestApp;
  let call: Call;

  /** An app over `store` (a fresh one by default); every store opened is closed after the test. */
  async function start(options: { store?: Store; config?: Partial<ServerConfig> } = {}): Promise<TestApp> {
    const store = options.store ?? await kind.create();
    stores.push(store);
    return testApp(ADMIN_ENV, { store, config: options.config });
  }

  beforeEach(async () => {
    stores = [];
    t = await start();
    call = caller(t.app);
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
  });

  const trial = async (options: Parameters<Call>[2] = {}) => call('POST', '/v1/keys/trial', options);
  const audit = async () => (await call('GET', '/v1/admin/audit', { key: KEYS.admin })).json().data.entries as Record<string, unknown>[];

  describe('POST /v1/keys/trial', () => {
    it('issues a key that works at once, with the trial scopes, lifetime, rate limit and quota', async () => {
      const before = Date.now();
      const res = await trial();
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.status).toBe('ok');
      const data = body.data;
      expect(Object.keys(data).sort()).toEqual(['durable', 'expires_at', 'key', 'key_id', 'quota_cu', 'rate_limit', 'scopes', 'ttl_days', 'warning']);
      expect(data.scopes).toEqual(['rules:read', 'sources:read', 'graphs:read', 'calculate:run']);
      expect(data.rate_limit).toEqual({ requests: 30, window_seconds: 60 });
      expect(data.quota_cu).toBe(10_000);
      expect(data.ttl_days).toBe(14);
      expect(data.durable).toBe(kind.durable);
      expect(data.warning).toMatch(/only once/);
      const lifetime = Date.parse(data.expires_at) - before;
      expect(lifetime).toBeGreaterThanOrEqual(14 * 86_400_000 - 1000);
      expect(lifetime).toBeLessThanOrEqual(14 * 86_400_000 + 5000);

      const used = await call('GET', '/v1/programs', { key: data.key });
      expect(used.statusCode).toBe(200);
      expect(used.headers['x-ratelimit-limit']).toBe('30');
      const admin = await call('GET', '/v1/admin/keys', { key: data.key });
      expect(admin.statusCode).toBe(403);
      expect(admin.json().error.code).toBe('insufficient_scope');
    });

    it('stores only the sha256 of the key, with the label as the note', async () => {
      const data = (await trial({ body: { label: 'my evaluation' } })).json().data;
      const stored = (await t.store.listKeys()).find((k) => k.id === data.key_id)!;
      expect(stored.key_sha256).toBe(sha256(data.key));
      expect(stored).toMatchObject({ kind: 'trial', note: 'my evaluation', quota_cu: 10_000, status: 'active', expires_at: data.expires_at });
      expect(JSON.stringify(stored)).not.toContain(data.key);
    });

    it('accepts an empty body, refuses an invalid one, and a body over the limit', async () => {
      expect((await trial({ body: {} })).statusCode).toBe(201);
      expect((await trial({ body: { label: 'x'.repeat(120) }, client: '198.51.100.1' })).statusCode).toBe(201);
      const long = await trial({ body: { label: 'x'.repeat(121) } });
      expect(long.statusCode).toBe(400);
      expect(long.json().error).toMatchObject({ code: 'invalid_request' });
      expect(long.json().error.message).toMatch(/label/);
      expect((await trial({ body: { label: 42 } })).statusCode).toBe(400);
      expect((await trial({ body: [] })).statusCode).toBe(400);
      const malformed = await trial({ body: '{"label":', headers: { 'content-type': 'application/json' } });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error.code).toBe('invalid_request');
      const huge = await trial({ body: { label: 'x'.repeat(300_000) } });
      expect(huge.statusCode).toBe(413);
      expect(huge.json().error.code).toBe('payload_too_large');
    });

    it('records every issuance in the audit trail', async () => {
      const data = (await trial({ body: { label: 'audited' }, client: '203.0.113.7', headers: { 'x-request-id': 'req-trial-1' } })).json().data;
      const [entry] = await audit();
      expect(entry).toMatchObject({ action: 'trial_key.issued', target: data.key_id, actor: null, client: '203.0.113.7', request_id: 'req-trial-1', detail: { label: 'audited' } });
      expect(Date.parse(entry!.at as string)).toBeGreaterThan(Date.now() - 60_000);
    });

    it('caps issuance per client per UTC day, with retry-after until the next UTC day', async () => {
      const app = caller((await start({ config: { trialClientDailyCap: 2 } })).app);
      for (let i = 0; i < 2; i++) expect((await app('POST', '/v1/keys/trial', { client: '192.0.2.1' })).statusCode).toBe(201);
      const refused = await app('POST', '/v1/keys/trial', { client: '192.0.2.1' });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      const retry = Number(refused.headers['retry-after']);
      expect(refused.json().data.retry_after_seconds).toBe(retry);
      expect(Math.abs(retry - secondsToNextUtcDay())).toBeLessThanOrEqual(2);
      expect((await app('POST', '/v1/keys/trial', { client: '192.0.2.2' })).statusCode).toBe(201);
    });

    it.each([
      ['a hop count', 1],
      ['a list of proxies', ['10.0.0.0/8']],
    ])('behind trusted proxies (%s), x-forwarded-for hops a client forges do not multiply its trial keys', async (_name, trustProxy) => {
      const app = caller((await start({ config: { trialClientDailyCap: 2, trialDailyCap: 10, trustProxy } })).app);
      const from = (client: string, forged: string) => app('POST', '/v1/keys/trial', { client: '10.0.0.1', headers: { 'x-forwarded-for': `${forged}, ${client}` } });
      for (let i = 0; i < 2; i++) expect((await from('192.0.2.1', `198.51.100.${i}`)).statusCode).toBe(201);
      for (let i = 2; i < 8; i++) expect((await from('192.0.2.1', `198.51.100.${i}`)).statusCode).toBe(429);
      // the day's global cap is left for everyone else
      expect((await from('192.0.2.2', '198.51.100.1')).statusCode).toBe(201);
    });

    it('caps issuance globally per UTC day', async () => {
      const app = caller((await start({ config: { trialDailyCap: 3 } })).app);
      for (let i = 0; i < 3; i++) expect((await app('POST', '/v1/keys/trial', { client: `192.0.2.${10 + i}` })).statusCode).toBe(201);
      const refused = await app('POST', '/v1/keys/trial', { client: '192.0.2.99' });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toMatchObject({ code: 'rate_limited' });
      expect(refused.json().error.message).toMatch(/this service/);
      expect(Math.abs(Number(refused.headers['retry-after']) - secondsToNextUtcDay())).toBeLessThanOrEqual(2);
    });

    it('refuses issuance with 429 while trial_mint is engaged', async () => {
      const engage = (engaged: boolean) => call('POST', '/v1/admin/kill', { key: KEYS.admin, body: { switch: 'trial_mint', engaged, reason: 'abuse wave' } });
      expect((await engage(true)).statusCode).toBe(200);
      const refused = await trial();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(refused.json().error.message).toMatch(/suspended/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.json().data.retry_after_seconds).toBe(Number(refused.headers['retry-after']));
      await engage(false);
      expect((await trial()).statusCode).toBe(201);
    });

    it('refuses requests made with trial keys while trial_traffic is engaged, and no others', async () => {
      const key = (await trial()).json().data.key;
      await call('POST', '/v1/admin/kill', { key: KEYS.admin, body: { switch: 'trial_traffic', engaged: true, reason: 'incident 42' } });
      const refused = await call('GET', '/v1/programs', { key });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_scope');
      expect(refused.json().error.message).toMatch(/suspended/);
      expect((await call('GET', '/v1/programs', { key: KEYS.read })).statusCode).toBe(200);
      expect((await trial()).statusCode).toBe(201); // minting is a separate switch
      await call('POST', '/v1/admin/kill', { key: KEYS.admin, body: { switch: 'trial_traffic', engaged: false, reason: 'resolved' } });
      expect((await call('GET', '/v1/programs', { key })).statusCode).toBe(200);
    });

    it('limits a trial key to 30 requests per 60 s', async () => {
      const key = (await trial()).json().data.key;
      for (let i = 0; i < 30; i++) expect((await call('GET', '/v1/programs', { key })).statusCode).toBe(200);
      const refused = await call('GET', '/v1/programs', { key });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(refused.headers['retry-after']).toBeDefined();
    });

    it('refuses a trial key once its compute-unit quota is spent', async () => {
      const raw = 'rk_trial_small_quota_key_for_tests';
      await t.store.createKey({ id: 'trial_small', key_sha256: sha256(raw), prefix: raw.slice(0, 12), scopes: ['rules:read', 'calculate:run'], status: 'active', kind: 'trial', created_at: new Date().toISOString(), quota_cu: 3 });
      await t.ctx.keys.refresh();
      for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/programs', { key: raw })).statusCode).toBe(200);
      const refused = await call('GET', '/v1/programs', { key: raw });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_scope');
      expect(refused.json().error.message).toMatch(/quota of 3 compute units/);
    });

    it('charges calculations 10 compute units against the issued quota', async () => {
      const data = (await trial()).json().data;
      await t.store.addComputeUnits(data.key_id, data.quota_cu - 15);
      const sample = (await call('GET', '/v1/capabilities', { key: data.key })).json().data.runtime.sample_requests[0].sample_request; // 1 unit
      expect((await call('POST', '/v1/calculate', { key: data.key, body: sample })).statusCode).toBe(200); // 10 units: 4 left
      const refused = await call('POST', '/v1/calculate', { key: data.key, body: sample });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toMatch(/quota/);
    });

    it('answers 503 store_unavailable when the store is unreachable', async () => {
      for (const method of ['killSwitches', 'hit', 'createKey', 'addAudit']) {
        const app = caller((await start({ store: withOutage(await kind.create(), new Set([method])) })).app);
        const res = await app('POST', '/v1/keys/trial');
        expect(res.statusCode, method).toBe(503);
        expect(res.json().error.code).toBe('store_unavailable');
      }
    });
  });

  describe('authentication of admin routes', () => {
    it.each(ADMIN_ROUTES)('$method $url: 401 without a valid key, 403 without $scope', async (route) => {
      let client = 0;
      const send = (key?: string) => call(route.method, route.url, { key, body: route.body, client: `10.0.0.${++client}` });
      for (const key of [undefined, 'not-a-key', KEYS.expired]) {
        const res = await send(key);
        expect(res.statusCode).toBe(401);
        expect(res.json().error.code).toBe('unauthorized');
      }
      for (const key of [KEYS.read, route.scope === 'admin:keys' ? ADMIN_KEYS.analyticsOnly : ADMIN_KEYS.keysOnly]) {
        const res = await send(key);
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'insufficient_scope' });
        expect(res.json().error.message).toContain(route.scope);
      }
      const allowed = await send(route.scope === 'admin:keys' ? ADMIN_KEYS.keysOnly : ADMIN_KEYS.analyticsOnly);
      expect([200, 201, 404]).toContain(allowed.statusCode);
      expect(allowed.headers['x-ratelimit-limit']).toBe('120');
    });
  });

  describe('keys', () => {
    it('lists environment and store keys without key material', async () => {
      const trialKey = (await trial()).json().data;
      const issued = (await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE })).json().data;
      const res = await call('GET', '/v1/admin/keys', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      const { keys, store } = res.json().data;
      expect(store).toBe(kind.name);
      expect(keys.map((k: { id: string }) => k.id)).toEqual(['all', 'reader', 'calc', 'admin', 'limited', 'expired', 'keys-admin', 'analytics-admin', trialKey.key_id, 'partner-one']);
      expect(keys.find((k: { id: string }) => k.id === 'reader')).toEqual({ id: 'reader', source: 'environment', scopes: ['rules:read'], status: 'active', runtime_revoked: false, prefix: `sha256:${sha256(KEYS.read).slice(0, 8)}` });
      expect(keys.find((k: { id: string }) => k.id === 'limited').rate_limit).toEqual({ requests: 3, window_seconds: 60 });
      expect(keys.find((k: { id: string }) => k.id === 'partner-one')).toMatchObject({ source: 'store', status: 'active', runtime_revoked: false, scopes: ISSUE.scopes, prefix: issued.entry.prefix, created_at: issued.entry.created_at });
      expect(keys.find((k: { id: string }) => k.id === trialKey.key_id)).toMatchObject({ source: 'store', scopes: trialKey.scopes, expires_at: trialKey.expires_at, rate_limit: { requests: 30, window_seconds: 60 } });
      for (const secret of [...Object.values(KEYS), trialKey.key, issued.key, sha256(trialKey.key), sha256(issued.key), sha256(KEYS.admin)]) expect(res.body).not.toContain(secret);
      expect(res.body).not.toMatch(/[0-9a-f]{64}/);
    });

    it('answers 503 when the key configuration cannot be loaded', async () => {
      const down = new Set<string>();
      const app = caller((await start({ store: withOutage(await kind.create(), down) })).app);
      down.add('listKeys');
      const res = await app('GET', '/v1/admin/keys', { key: KEYS.admin });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('store_unavailable');
    });

    it('issues a key that works at once, storing only its sha256, and audits it', async () => {
      const body = { id: 'ops-bot', scopes: ['rules:read', 'admin:analytics'], owner: 'ops team', note: 'dashboards', expires_at: '2099-01-01T00:00:00Z', rate_limit: { requests: 2, window_seconds: 60 } };
      const res = await call('POST', '/v1/admin/keys', { key: KEYS.admin, body, headers: { 'x-request-id': 'req-issue-1' }, client: '203.0.113.9' });
      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(Object.keys(data).sort()).toEqual(['durable', 'entry', 'key', 'warning']);
      expect(data.key.startsWith(data.entry.prefix)).toBe(true);
      expect(data.entry).toEqual({ id: 'ops-bot', prefix: data.entry.prefix, scopes: body.scopes, status: 'active', created_at: data.entry.created_at, owner: 'ops team', note: 'dashboards', expires_at: '2099-01-01T00:00:00.000Z', rate_limit: body.rate_limit });
      expect(data.durable).toBe(kind.durable);
      expect(data.warning).toMatch(/only once/);

      const stored = (await t.store.listKeys()).find((k) => k.id === 'ops-bot')!;
      expect(stored.key_sha256).toBe(sha256(data.key));
      expect(JSON.stringify(stored)).not.toContain(data.key);

      // works at once, with its own rate limit
      const first = await call('GET', '/v1/admin/usage', { key: data.key });
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect((await call('GET', '/v1/programs', { key: data.key })).statusCode).toBe(200);
      expect((await call('GET', '/v1/programs', { key: data.key })).statusCode).toBe(429);

      const [entry] = await audit();
      expect(entry).toMatchObject({ action: 'key.issued', target: 'ops-bot', actor: 'admin', client: '203.0.113.9', request_id: 'req-issue-1' });
      expect(entry!.detail).toMatchObject({ scopes: body.scopes, owner: 'ops team' });
      expect(JSON.stringify(entry)).not.toContain(data.key);
    });

    it('accepts the wildcard scope, and ids of 3 and 64 characters', async () => {
      for (const body of [
        { id: 'abc', scopes: ['*'] },
        { id: `a${'b'.repeat(63)}`, scopes: ['rules:read'] },
        { id: '0_x-y', scopes: ['compat:external', 'admin:parity'] },
      ]) {
        expect((await call('POST', '/v1/admin/keys', { key: KEYS.admin, body })).statusCode, body.id).toBe(201);
      }
    });

    it.each([
      ['a missing body', undefined, /body/],
      ['a missing id', { scopes: ['rules:read'] }, /id/],
      ['a 2-character id', { id: 'ab', scopes: ['rules:read'] }, /id/],
      ['a 65-character id', { id: 'a'.repeat(65), scopes: ['rules:read'] }, /id/],
      ['an upper-case id', { id: 'Partner', scopes: ['rules:read'] }, /id/],
      ['an id starting with -', { id: '-partner', scopes: ['rules:read'] }, /id/],
      ['an id with a space', { id: 'part ner', scopes: ['rules:read'] }, /id/],
      ['missing scopes', { id: 'partner' }, /scopes/],
      ['no scopes', { id: 'partner', scopes: [] }, /scopes/],
      ['an unknown scope', { id: 'partner', scopes: ['rules:write'] }, /scopes/],
      ['a 121-character owner', { id: 'partner', scopes: ['*'], owner: 'o'.repeat(121) }, /owner/],
      ['a 501-character note', { id: 'partner', scopes: ['*'], note: 'n'.repeat(501) }, /note/],
      ['an invalid expires_at', { id: 'partner', scopes: ['*'], expires_at: 'next week' }, /expires_at/],
      ['a past expires_at', { id: 'partner', scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' }, /expires_at/],
      ['a rate limit of 0 requests', { id: 'partner', scopes: ['*'], rate_limit: { requests: 0, window_seconds: 60 } }, /rate_limit/],
      ['a rate limit window of 0 s', { id: 'partner', scopes: ['*'], rate_limit: { requests: 10, window_seconds: 0 } }, /rate_limit/],
      ['a fractional rate limit', { id: 'partner', scopes: ['*'], rate_limit: { requests: 1.5, window_seconds: 60 } }, /rate_limit/],
      ['an incomplete rate limit', { id: 'partner', scopes: ['*'], rate_limit: { requests: 10 } }, /rate_limit/],
      ['a rate limit of 1e300 requests per 1e300 s', { id: 'partner', scopes: ['*'], rate_limit: { requests: 1e300, window_seconds: 1e300 } }, /body\.rate_limit\.requests: must be <= 1000000000/],
      ['a rate limit over a billion requests', { id: 'partner', scopes: ['*'], rate_limit: { requests: 1_000_000_001, window_seconds: 60 } }, /body\.rate_limit\.requests: must be <= 1000000000/],
      ['a rate limit window over a day', { id: 'partner', scopes: ['*'], rate_limit: { requests: 10, window_seconds: 86_401 } }, /body\.rate_limit\.window_seconds: must be <= 86400/],
    ])('refuses %s with 400', async (_what, body, field) => {
      const res = await call('POST', '/v1/admin/keys', { key: KEYS.admin, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toMatch(field);
      expect((await t.store.listKeys()).length).toBe(0);
    });

    it('accepts the largest rate limit, and its headers are whole numbers', async () => {
      const issued = await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: { id: 'bulk', scopes: ['*'], rate_limit: { requests: 1_000_000_000, window_seconds: 86_400 } } });
      expect(issued.statusCode).toBe(201);
      const res = await call('GET', '/v1/programs', { key: issued.json().data.key });
      expect(res.headers['x-ratelimit-limit']).toBe('1000000000');
      expect(res.headers['x-ratelimit-remaining']).toBe('999999999');
      expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    });

    it('holds a key stored before the bounds (a limit of 1e300 per 1e300 s) to them: whole-number headers', async () => {
      const raw = 'stored-before-bounds-key-000000000000000001';
      await t.store.createKey({ id: 'old-huge', key_sha256: sha256(raw), prefix: 'stored-befor', scopes: ['*'], status: 'active', kind: 'admin', created_at: new Date().toISOString(), rate_limit: { requests: 1e300, window_seconds: 1e300 } });
      await t.ctx.keys.refresh();
      const res = await call('GET', '/v1/programs', { key: raw });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('1000000000');
      expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    });

    it('accepts an owner of 120 and a note of 500 characters', async () => {
      const res = await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: { id: 'long-texts', scopes: ['*'], owner: 'o'.repeat(120), note: 'n'.repeat(500) } });
      expect(res.statusCode).toBe(201);
    });

    it('answers 409 key_id_conflict for an id used by a store key or an environment key', async () => {
      expect((await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE })).statusCode).toBe(201);
      const trialId = (await trial()).json().data.key_id;
      for (const id of [ISSUE.id, 'reader', 'admin', trialId]) {
        const res = await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: { id, scopes: ['*'] } });
        expect(res.statusCode, id).toBe(409);
        expect(res.json().error.code).toBe('key_id_conflict');
      }
      expect((await t.store.listKeys()).filter((k) => k.kind === 'admin')).toHaveLength(1);
    });

    it('sees a key issued on another instance (within the refresh window)', async () => {
      const other = await start({ store: await kind.sibling(t.store) });
      const issued = (await caller(other.app)('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE })).json().data;
      await t.ctx.keys.refresh(); // what the 15 s refresh does
      expect((await call('GET', '/v1/programs', { key: issued.key })).statusCode).toBe(200);
      expect((await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE })).statusCode).toBe(409);
    });

    it('revokes a store key with effect at once, and audits it once', async () => {
      const issued = (await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE })).json().data;
      expect((await call('GET', '/v1/programs', { key: issued.key })).statusCode).toBe(200);
      const res = await call('POST', `/v1/admin/keys/${ISSUE.id}/revoke`, { key: KEYS.admin, headers: { 'x-request-id': 'req-revoke-1' } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ id: ISSUE.id, revoked: true, durable: kind.durable });
      expect(res.json().data.note).toMatch(/30 s/);
      const refused = await call('GET', '/v1/programs', { key: issued.key });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('unauthorized');

      const keys = (await call('GET', '/v1/admin/keys', { key: KEYS.admin })).json().data.keys;
      expect(keys.find((k: { id: string }) => k.id === ISSUE.id)).toMatchObject({ status: 'revoked', runtime_revoked: true, source: 'store' });
      const again = await call('POST', `/v1/admin/keys/${ISSUE.id}/revoke`, { key: KEYS.admin });
      expect(again.statusCode).toBe(200);
      expect(again.json().data).toMatchObject({ id: ISSUE.id, revoked: true });
      expect(again.json().data.note).toMatch(/already revoked/);
      const revocations = (await audit()).filter((e) => e.action === 'key.revoked');
      expect(revocations).toHaveLength(1);
      expect(revocations[0]).toMatchObject({ target: ISSUE.id, actor: 'admin', request_id: 'req-revoke-1', detail: { source: 'store' } });
    });

    it('revokes an environment key at runtime: refused at once here, and by a restarted or other instance', async () => {
      expect((await call('GET', '/v1/programs', { key: KEYS.calc })).statusCode).toBe(200);
      const res = await call('POST', '/v1/admin/keys/calc/revoke', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ id: 'calc', revoked: true });
      expect(res.json().data.note).toMatch(/RULES_API_KEYS/);
      expect((await call('GET', '/v1/programs', { key: KEYS.calc })).statusCode).toBe(401);
      const listed = (await call('GET', '/v1/admin/keys', { key: KEYS.admin })).json().data.keys.filter((k: { id: string }) => k.id === 'calc');
      expect(listed).toEqual([{ id: 'calc', source: 'environment', scopes: ['calculate:run', 'rules:read'], status: 'revoked', runtime_revoked: true, prefix: `sha256:${sha256(KEYS.calc).slice(0, 8)}` }]);
      // another instance (or this one restarted) over the same store
      const other = caller((await start({ store: await kind.sibling(t.store) })).app);
      expect((await other('GET', '/v1/programs', { key: KEYS.calc })).statusCode).toBe(401);
      expect((await other('GET', '/v1/programs', { key: KEYS.read })).statusCode).toBe(200);
    });

    it('answers 404 for an unknown key id', async () => {
      const res = await call('POST', '/v1/admin/keys/no-such-key/revoke', { key: KEYS.admin });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
      expect((await audit()).filter((e) => e.action === 'key.revoked')).toHaveLength(0);
    });

    it('revokes a trial key', async () => {
      const data = (await trial()).json().data;
      expect((await call('POST', `/v1/admin/keys/${data.key_id}/revoke`, { key: KEYS.admin })).statusCode).toBe(200);
      expect((await call('GET', '/v1/programs', { key: data.key })).statusCode).toBe(401);
    });
  });

  describe('audit trail', () => {
    it('lists entries newest first with their full contents', async () => {
      const trialId = (await trial({ headers: { 'x-request-id': 'r1' }, client: '192.0.2.50' })).json().data.key_id;
      await call('POST', '/v1/admin/keys', { key: KEYS.admin, body: ISSUE, headers: { 'x-request-id': 'r2' }, client: '192.0.2.51' });
      await call('POST', '/v1/admin/kill', { key: KEYS.admin, body: { switch: 'trial_mint', engaged: true, reason: 'spam' }, headers: { 'x-request-id': 'r3' }, client: '192.0.2.51' });
      await call('POST', `/v1/admin/keys/${ISSUE.id}/revoke`, { key: ADMIN_KEYS.keysOnly, headers: { 'x-request-id': 'r4' }, client: '192.0.2.52' });
      const res = await call('GET', '/v1/admin/audit', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.store).toBe(kind.name);
      const entries = res.json().data.entries;
      expect(entries.map((e: { request_id: string }) => e.request_id)).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(entries).toMatchObject([
        { action: 'key.revoked', target: ISSUE.id, actor: 'keys-admin', client: '192.0.2.52' },
        { action: 'kill_switch.changed', target: 'trial_mint', actor: 'admin', client: '192.0.2.51', detail: { engaged: true, reason: 'spam' } },
        { action: 'key.issued', target: ISSUE.id, actor: 'admin', client: '192.0.2.51' },
        { action: 'trial_key.issued', target: trialId, actor: null, client: '192.0.2.50' },
      ]);
      const times = entries.map((e: { at: string }) => Date.parse(e.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('returns at most 200 entries, the newest', async () => {
      for (let i = 0; i < 205; i++) await t.store.addAudit({ at: new Date().toISOString(), action: 'test.entry', target: `t${i}`, actor: null, client: null, request_id: `q${i}` });
      const entries = (await call('GET', '/v1/admin/audit', { key: KEYS.admin })).json().data.entries;
      expect(entries).toHaveLength(200);
      expect(entries[0].target).toBe('t204');
      expect(entries[199].target).toBe('t5');
    });

    it('answers 503 when the store is unreachable', async () => {
      const app = caller((await start({ store: withOutage(await kind.create(), new Set(['audit'])) })).app);
      expect((await app('GET', '/v1/admin/audit', { key: KEYS.admin })).json().error.code).toBe('store_unavailable');
    });
  });

  describe('usage', () => {
    const month = new Date().toISOString().slice(0, 7);

    it("counts requests per key for the current UTC month, including this instance's unflushed counts", async () => {
      for (let i = 0; i < 3; i++) await call('GET', '/v1/programs', { key: KEYS.read });
      await call('GET', '/v1/programs', { key: KEYS.calc });
      await call('GET', '/v1/admin/keys', { key: KEYS.read }); // 403 still counts for the key
      const res = await call('GET', '/v1/admin/usage', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({ month, usage: [{ api_key_id: 'reader', requests: 4 }, { api_key_id: 'calc', requests: 1 }], store: kind.name });
      // flushed to the store: another instance sees them (this instance's admin request is counted after its answer)
      const other = caller((await start({ store: await kind.sibling(t.store) })).app);
      const seen = (await other('GET', `/v1/admin/usage?month=${month}`, { key: KEYS.admin })).json().data.usage;
      expect(seen).toEqual([{ api_key_id: 'reader', requests: 4 }, { api_key_id: 'calc', requests: 1 }]);
      expect((await call('GET', '/v1/admin/usage', { key: KEYS.admin })).json().data.usage).toContainEqual({ api_key_id: 'admin', requests: 1 });
    });

    it('reads a given month, sorted by requests descending', async () => {
      await t.store.addUsage('2024-02', 'small', 2);
      await t.store.addUsage('2024-02', 'big', 50);
      await t.store.addUsage('2024-03', 'other', 7);
      const res = await call('GET', '/v1/admin/usage?month=2024-02', { key: KEYS.admin });
      expect(res.json().data.usage).toEqual([{ api_key_id: 'big', requests: 50 }, { api_key_id: 'small', requests: 2 }]);
      expect((await call('GET', '/v1/admin/usage?month=2023-05', { key: KEYS.admin })).json().data.usage).toEqual([]);
    });

    it.each(['2024-13', '2024-00', '2024-1', '24-01', '2024-01-01', 'last'])('refuses month=%s with 400', async (bad) => {
      const res = await call('GET', `/v1/admin/usage?month=${bad}`, { key: KEYS.admin });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toMatch(/month/);
    });

    it('keeps unflushed counts when the store is unreachable', async () => {
      const down = new Set<string>();
      const app = caller((await start({ store: withOutage(await kind.create(), down) })).app);
      await app('GET', '/v1/programs', { key: KEYS.read });
      down.add('addUsage');
      const failed = await app('GET', '/v1/admin/usage', { key: KEYS.admin });
      expect(failed.statusCode).toBe(503);
      expect(failed.json().error.code).toBe('store_unavailable');
      down.clear();
      const usage = (await app('GET', '/v1/admin/usage', { key: KEYS.admin })).json().data.usage;
      expect(usage).toContainEqual({ api_key_id: 'reader', requests: 1 });
    });
  });

  describe('analytics', () => {
    it('returns the local snapshot by default and for scope=local', async () => {
      await call('GET', '/v1/programs', { key: KEYS.read });
      await call('GET', '/v1/programs', { key: 'wrong-key' });
      for (const url of ['/v1/admin/analytics', '/v1/admin/analytics?scope=local']) {
        const res = await call('GET', url, { key: KEYS.admin });
        expect(res.statusCode).toBe(200);
        const snapshot = res.json().data;
        expect(snapshot).toMatchObject({ instance_id: 'test', store_errors: 0 });
        expect(snapshot.auth_events).toMatchObject({ unauthorized: 1, insufficient_scope: 0, rate_limited: 0, auth_throttled: 0, auth_misconfigured: 0 });
        expect(snapshot.totals.requests).toBeGreaterThanOrEqual(2);
        expect(snapshot.totals.by_status['200']).toBeGreaterThanOrEqual(1);
        expect(snapshot.totals.by_status['401']).toBe(1);
        const programs = snapshot.routes.find((r: { route: string }) => r.route === 'GET /v1/programs');
        expect(programs).toMatchObject({ requests: 2, success: 1, client_errors: 1, server_errors: 0 });
        expect(Object.keys(programs.latency_buckets)).toEqual(['le_25ms', 'le_100ms', 'le_500ms', 'le_2000ms', 'gt_2000ms']);
        expect(snapshot.keys.find((k: { api_key_id: string }) => k.api_key_id === 'reader')).toMatchObject({ requests: 1, rate_limited: 0 });
      }
    });

    it('merges the snapshots of every live instance for scope=global', async () => {
      const now = Date.now();
      await t.store.putSnapshot('rules-other', { instance_id: 'rules-other', totals: { requests: 9, by_status: {} } }, now - 10_000);
      await t.store.putSnapshot('rules-gone', { instance_id: 'rules-gone', totals: { requests: 1, by_status: {} } }, now - 5 * 60_000);
      await call('GET', '/v1/programs', { key: KEYS.read });
      const res = await call('GET', '/v1/admin/analytics?scope=global', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.scope).toBe('global');
      expect(data.store).toBe(kind.name);
      expect(data.instances.map((s: { instance_id: string }) => s.instance_id).sort()).toEqual(['rules-other', 'test']);
      const mine = data.instances.find((s: { instance_id: string }) => s.instance_id === 'test');
      expect(mine.routes.some((r: { route: string }) => r.route === 'GET /v1/programs')).toBe(true);
    });

    it('answers 503 store_unavailable with the local snapshot when the store is unreachable', async () => {
      const down = new Set(['putSnapshot', 'snapshots']);
      const app = caller((await start({ store: withOutage(await kind.create(), down) })).app);
      const res = await app('GET', '/v1/admin/analytics?scope=global', { key: KEYS.admin });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('store_unavailable');
      expect(res.json().data).toMatchObject({ instance_id: 'test', totals: expect.any(Object), routes: expect.any(Array) });
      expect((await app('GET', '/v1/admin/analytics', { key: KEYS.admin })).statusCode).toBe(200);
    });

    it.each(['everything', 'GLOBAL', ''])('refuses scope=%s with 400', async (scope) => {
      const res = await call('GET', `/v1/admin/analytics?scope=${scope}`, { key: KEYS.admin });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    });
  });

  describe('kill switches', () => {
    it('reports both switches, disengaged by default', async () => {
      const res = await call('GET', '/v1/admin/kill', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        switches: [
          { switch: 'trial_traffic', engaged: false, reason: null, changed_at: null, changed_by: null },
          { switch: 'trial_mint', engaged: false, reason: null, changed_at: null, changed_by: null },
        ],
      });
    });

    it('engages and releases a switch, recording who, when and why', async () => {
      const res = await call('POST', '/v1/admin/kill', { key: KEYS.admin, body: { switch: 'trial_mint', engaged: true, reason: 'r'.repeat(500) } });
      expect(res.statusCode).toBe(200);
      const mint = res.json().data.switches.find((s: { switch: string }) => s.switch === 'trial_mint');
      expect(mint).toMatchObject({ engaged: true, reason: 'r'.repeat(500), changed_by: 'admin' });
      expect(Date.parse(mint.changed_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(res.json().data.switches.find((s: { switch: string }) => s.switch === 'trial_traffic').engaged).toBe(false);
      expect((await call('GET', '/v1/admin/kill', { key: KEYS.admin })).json().data).toEqual(res.json().data);
      const released = await call('POST', '/v1/admin/kill', { key: ADMIN_KEYS.keysOnly, body: { switch: 'trial_mint', engaged: false, reason: 'ok' } });
      expect(released.json().data.switches.find((s: { switch: string }) => s.switch === 'trial_mint')).toMatchObject({ engaged: false, reason: 'ok', changed_by: 'keys-admin' });
      expect((await audit()).filter((e) => e.action === 'kill_switch.changed').map((e) => e.detail)).toEqual([
        { engaged: false, reason: 'ok' },
        { engaged: true, reason: 'r'.repeat(500) },
      ]);
    });

    it.each([
      ['no body', undefined],
      ['a missing reason', { switch: 'trial_mint', engaged: true }],
      ['an empty reason', { switch: 'trial_mint', engaged: true, reason: '' }],
      ['a 501-character reason', { switch: 'trial_mint', engaged: true, reason: 'r'.repeat(501) }],
      ['an unknown switch', { switch: 'everything', engaged: true, reason: 'x' }],
      ['a missing switch', { engaged: true, reason: 'x' }],
      ['a string engaged', { switch: 'trial_mint', engaged: 'yes', reason: 'x' }],
      ['a missing engaged', { switch: 'trial_mint', reason: 'x' }],
    ])('refuses %s with 400 and changes nothing', async (_what, body) => {
      const res = await call('POST', '/v1/admin/kill', { key: KEYS.admin, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(await t.store.killSwitches()).toEqual([]);
    });
  });

  describe('validation runs', () => {
    const record = (body: unknown) => call('POST', '/v1/admin/validation/runs', { key: KEYS.admin, body });

    it('records a run and derives its totals from the rows', async () => {
      const res = await record(RUN);
      expect(res.statusCode).toBe(201);
      const summary = res.json().data;
      expect(Object.keys(summary).sort()).toEqual(['api_version', 'avg_case_latency_ms', 'base_url', 'contract_hash', 'id', 'kind', 'model_versions', 'recorded_at', 'totals']);
      expect(summary).toMatchObject({ kind: 'parity', api_version: '0.1.0', base_url: 'http://localhost:8080', model_versions: { engine: '1.2.3' }, avg_case_latency_ms: 13 });
      expect(summary.totals).toEqual({ variables: 5, covered: 3, parity_match: 1, parity_diff: 1, drift_diff: 1, uncovered: 3 });
      const served = await call('GET', '/v1/openapi.json');
      expect(summary.contract_hash).toBe(createHash('sha256').update(served.body).digest('hex').slice(0, 16));
    });

    it('defaults optional fields to null, and the latency to null without cases', async () => {
      const summary = (await record({ kind: 'drift', rows: [] })).json().data;
      expect(summary).toMatchObject({ api_version: null, base_url: null, model_versions: null, avg_case_latency_ms: null, totals: { variables: 0, covered: 0, parity_match: 0, parity_diff: 0, drift_diff: 0, uncovered: 0 } });
    });

    it('lists runs newest first and returns one with its rows and cases', async () => {
      const first = (await record(RUN)).json().data;
      const second = (await record({ kind: 'drift', rows: [{ variable: 'snap', status: 'covered' }], cases: [{ latency_ms: 3 }], api_version: null })).json().data;
      const list = await call('GET', '/v1/admin/validation/runs', { key: KEYS.admin });
      expect(list.statusCode).toBe(200);
      expect(list.json().data.runs).toEqual([second, first]);
      const one = await call('GET', `/v1/admin/validation/runs/${first.id}`, { key: KEYS.admin });
      expect(one.statusCode).toBe(200);
      expect(one.json().data).toEqual({ ...first, rows: RUN.rows, cases: RUN.cases });
      const missing = await call('GET', '/v1/admin/validation/runs/run_nope', { key: KEYS.admin });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('not_found');
    });

    it.each([
      ['no body', undefined],
      ['a missing kind', { rows: [] }],
      ['an empty kind', { kind: '', rows: [] }],
      ['missing rows', { kind: 'parity' }],
      ['rows that are not an array', { kind: 'parity', rows: {} }],
      ['a row that is not an object', { kind: 'parity', rows: ['snap'] }],
      ['a row without a variable', { kind: 'parity', rows: [{ status: 'covered' }] }],
      ['a row with an unknown status', { kind: 'parity', rows: [{ variable: 'snap', status: 'great' }] }],
      ['cases that are not objects', { kind: 'parity', rows: [], cases: [1] }],
      ['a negative latency', { kind: 'parity', rows: [], cases: [{ latency_ms: -1 }] }],
      ['a latency of 1e300 ms', { kind: 'parity', rows: [], cases: [{ latency_ms: 1e300 }] }],
      ['a latency over a day', { kind: 'parity', rows: [], cases: [{ latency_ms: 86_400_001 }] }],
      ['model_versions that is an array', { kind: 'parity', rows: [], model_versions: [] }],
      ['a numeric api_version', { kind: 'parity', rows: [], api_version: 1 }],
    ])('refuses %s with 400', async (_what, body) => {
      const res = await record(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      if (String(_what).startsWith('a latency')) expect(res.json().error.message).toMatch(/body\.cases\[0\]\.latency_ms: must be <= 86400000/);
      expect(await t.store.validationRuns()).toEqual([]);
    });

    it('answers the migration ledger built from the bundled partner demand data', async () => {
      const res = await call('GET', '/v1/admin/validation/migration', { key: KEYS.admin });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ engine: 'policyengine-us', covered_states: ['CA', 'CO', 'NY'] });
    });

    it('answers 503 when the store is unreachable', async () => {
      const app = caller((await start({ store: withOutage(await kind.create(), new Set(['addValidationRun', 'validationRuns', 'validationRun'])) })).app);
      for (const [method, url] of [['POST', '/v1/admin/validation/runs'], ['GET', '/v1/admin/validation/runs'], ['GET', '/v1/admin/validation/runs/x']] as const) {
        const res = await app(method, url, { key: KEYS.admin, body: method === 'POST' ? RUN : undefined });
        expect(res.statusCode, url).toBe(503);
        expect(res.json().error.code).toBe('store_unavailable');
      }
    });
  });
});

describe('the OpenAPI document', () => {
  it('documents every admin and key route with its scope, and resolves every schema reference', async () => {
    const { app } = await testApp();
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const scopes = Object.fromEntries(ADMIN_ROUTES.map((r) => [`${r.method} ${r.url.replace('/reader/', '/{key_id}/').replace('/run_x', '/{run_id}')}`, r.scope]));
    for (const [route, scope] of Object.entries(scopes)) {
      const [method, path] = route.split(' ');
      expect(doc.paths[path!]?.[method!.toLowerCase()]?.['x-required-scope'], route).toBe(scope);
    }
    const trialOp = doc.paths['/v1/keys/trial'].post;
    expect(trialOp.security).toEqual([]);
    expect(Object.keys(trialOp.responses).sort()).toEqual(['201', '400', '413', '429', '500', '503']);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref], ref).toBeDefined();
    expect(refs).toEqual(expect.arrayContaining(['IssueKeyRequest', 'IssuedKey', 'TrialKey', 'KeyList', 'AuditList', 'UsageReport', 'KillSwitchRequest', 'ValidationRunRequest', 'ValidationRunSummary', 'GlobalAnalytics']));
    expect(doc.paths['/v1/admin/validation/runs'].post.description).toMatch(/parity_match/);
  });
});
