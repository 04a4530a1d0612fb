import { connect, type AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MemoryStore } from '../../../server/store/memory.js';
import type { JobRecord } from '../../../server/store/store.js';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { expectError, expectMeta, expectOk, paddedBody, SNAP_REQUEST, UUID } from '../../support/lab.js';

// Rules API, "General rules", "Envelopes", "Errors", "Limits" (body size, CORS) and
// "Versioning" (as_of): behaviour every route shares.

const BODY_LIMIT = 262_144;
let t: TestApp;

beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.app.close();
});

const json = (url: string, payload: string, key = KEYS.all): InjectOptions => ({ method: 'POST', url, payload, headers: { ...auth(key), 'content-type': 'application/json' } });

describe('envelopes and meta', () => {
  test('a success is {status: ok, data, meta} with request_id, api_version 0.1.0 and environment local by default', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    const data = expectOk(res);
    expect(data).toEqual({ service: 'rules-api', live: true });
  });

  test('an error is {status: error, error: {code, message}, meta}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/programs' });
    const body = expectError(res, 401, 'unauthorized');
    expect(body.data).toBeUndefined();
  });

  test.each(['dev', 'staging', 'production'])('meta.environment follows RULES_ENVIRONMENT=%s on success and error responses', async (environment) => {
    const { app } = await testApp({ RULES_ENVIRONMENT: environment });
    expectOk(await app.inject({ method: 'GET', url: '/v1/programs', headers: auth(KEYS.read) }), 200, environment);
    expectError(await app.inject({ method: 'GET', url: '/v1/programs' }), 401, 'unauthorized', environment);
    expectError(await app.inject({ method: 'GET', url: '/v1/nowhere' }), 404, 'not_found', environment);
    await app.close();
  });
});

describe('x-request-id', () => {
  test('a client id is echoed in the header and meta.request_id (success, error, 404)', async () => {
    for (const [url, status] of [
      ['/v1/health', 200],
      ['/v1/programs', 401],
      ['/v1/no-such-route', 404],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'client-req-42' } });
      expect(res.statusCode).toBe(status);
      expect(res.headers['x-request-id']).toBe('client-req-42');
      expect(res.json().meta.request_id).toBe('client-req-42');
    }
  });

  test('the OpenAPI document (no envelope) still carries the echoed header', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: { 'x-request-id': 'doc-req-1' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('doc-req-1');
  });

  test('without one the server generates a UUID, different for each request', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/v1/health' });
    const b = await t.app.inject({ method: 'GET', url: '/v1/programs' });
    for (const res of [a, b]) {
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.json().meta.request_id).toBe(res.headers['x-request-id']);
    }
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  // server/app.ts genReqId only echoes ids matching /^[\x21-\x7e]{1,200}$/; anything else (a space, non-ASCII) is replaced by a UUID
  test('a client id containing a space is echoed too', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': 'trace 7' } });
    expect(res.headers['x-request-id']).toBe('trace 7');
    expect(res.json().meta.request_id).toBe('trace 7');
  });
});

describe('cache-control: no-store and x-request-id on every response', () => {
  const cases: [string, () => InjectOptions, number][] = [
    ['success', () => ({ method: 'GET', url: '/v1/health' }), 200],
    ['protected success', () => ({ method: 'GET', url: '/v1/programs', headers: auth(KEYS.read) }), 200],
    ['OpenAPI document', () => ({ method: 'GET', url: '/v1/openapi.json' }), 200],
    ['401', () => ({ method: 'GET', url: '/v1/programs' }), 401],
    ['403', () => ({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.read), payload: SNAP_REQUEST }), 403],
    ['404 route', () => ({ method: 'GET', url: '/v1/unknown' }), 404],
    ['404 resource', () => ({ method: 'GET', url: '/v1/rules/us:nothing%23here', headers: auth(KEYS.read) }), 404],
    ['400 malformed JSON', () => json('/v1/search', '{"query": '), 400],
    ['413', () => json('/v1/search', paddedBody({ query: 'snap' }, BODY_LIMIT + 1)), 413],
    ['HEAD', () => ({ method: 'HEAD', url: '/v1/health' }), 200],
  ];
  test.each(cases)('%s', async (_name, request, status) => {
    const res = await t.app.inject(request());
    expect(res.statusCode).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  // Fastify answers a URL with broken percent-encoding itself (FST_ERR_BAD_URL): its own body
  // {error, code, message, statusCode}, no x-request-id, no cache-control, no envelope.
  test('a URL with malformed percent-encoding still gets the error envelope, x-request-id and no-store', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/rules/%zz', headers: { ...auth(KEYS.read), 'x-request-id': 'bad-url-1' } });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    const body = res.json();
    expect(body.status).toBe('error');
    expect(['invalid_request', 'not_found']).toContain(body.error.code);
    expectMeta(body.meta);
  });
});

describe('unknown routes', () => {
  test.each([
    ['GET', '/v1/nope'],
    ['GET', '/v2/health'],
    ['GET', '/'],
    ['POST', '/v1/health'],
    ['GET', '/v1/calculate'],
    ['POST', '/v1/programs'],
    ['PUT', '/v1/programs'],
    ['DELETE', '/v1/jobs/job_1'],
    ['PATCH', '/v1/rules/us:statutes/7/2017/a%23snap_allotment'],
  ] as const)('%s %s → 404 not_found envelope', async (method, url) => {
    const res = await t.app.inject({ method, url, headers: auth(KEYS.all) });
    expectError(res, 404, 'not_found');
  });
});

describe('malformed JSON → 400 invalid_request', () => {
  test.each(['/v1/search', '/v1/calculate', '/v1/calculate/batch', '/v1/jobs/calculate'])('%s', async (url) => {
    expectError(await t.app.inject(json(url, '{"query": "snap",')), 400, 'invalid_request');
    expectError(await t.app.inject(json(url, "{'single': 'quotes'}")), 400, 'invalid_request');
  });
});

describe('JSON bodies are read as UTF-8 (an ASCII one is copied as it is)', () => {
  test('text beyond ASCII comes back as sent, in the message naming it', async () => {
    const name = 'é€😀_income';
    for (const payload of [JSON.stringify({ ...SNAP_REQUEST, household: { ...SNAP_REQUEST.household, facts: { [name]: 1 } } }), `{"program_id":"snap","jurisdiction":"us","household":{"facts":{"${name}":1}}}`]) {
      const res = await t.app.inject(json('/v1/calculate', payload));
      expectError(res, 400, 'invalid_household');
      expect(res.json().error.message).toContain(`household.facts.${name}`);
    }
    // and the same body all ASCII (escapes instead of the characters) reads the same
    const escaped = await t.app.inject(json('/v1/calculate', `{"program_id":"snap","jurisdiction":"us","household":{"facts":{"\\u00e9\\u20ac\\ud83d\\ude00_income":1}}}`));
    expect(escaped.json().error.message).toContain(`household.facts.${name}`);
  });

  test('a body that is not UTF-8 is 400 invalid_request saying so, not read with its bad bytes replaced', async () => {
    const payload = Buffer.concat([Buffer.from('{"program_id":"snap","jurisdiction":"us","household":{"facts":{"caf'), Buffer.from([0xe9]), Buffer.from('":1}}}')]); // latin1 é
    const res = await t.app.inject({ ...json('/v1/calculate', ''), payload });
    expectError(res, 400, 'invalid_request');
    expect(res.json().error.message).toContain('not valid UTF-8');
  });
});

describe('body limit: 262,144 bytes', () => {
  test('a body of exactly 262,144 bytes is accepted', async () => {
    const body = paddedBody({ query: 'snap allotment' }, BODY_LIMIT);
    expect(Buffer.byteLength(body)).toBe(BODY_LIMIT);
    expectOk(await t.app.inject(json('/v1/search', body)));
  });

  test.each(['/v1/search', '/v1/calculate', '/v1/calculate/batch', '/v1/jobs/calculate', '/v1/parity/run'])('one byte more → 413 payload_too_large on %s', async (url) => {
    const res = await t.app.inject(json(url, paddedBody({ query: 'snap' }, BODY_LIMIT + 1)));
    expectError(res, 413, 'payload_too_large');
  });

  test('a much larger body → 413 as well', async () => {
    expectError(await t.app.inject(json('/v1/calculate', paddedBody({ ...SNAP_REQUEST }, 1_000_000))), 413, 'payload_too_large');
  });
});

describe('internal errors', () => {
  class BrokenStore extends MemoryStore {
    override async job(_id: string): Promise<JobRecord | undefined> {
      throw new Error('SQLITE_CORRUPT: database disk image is malformed at /var/lib/rules/secret.db');
    }
  }

  test('an unexpected failure is 500 internal_error with a generic message and the request id', async () => {
    const { app } = await testApp({}, { store: new BrokenStore() });
    const res = await app.inject({ method: 'GET', url: '/v1/jobs/job_123', headers: { ...auth(KEYS.calc), 'x-request-id': 'boom-1' } });
    const body = expectError(res, 500, 'internal_error');
    expect(body.meta.request_id).toBe('boom-1');
    expect(body.error.message).not.toMatch(/SQLITE|secret|corrupt|\/var\//i);
    expect(res.headers['cache-control']).toBe('no-store');
    await app.close();
  });
});

describe('as_of is reserved: 400 unsupported_parameter', () => {
  test('in the search body', async () => {
    expectError(await t.app.inject({ method: 'POST', url: '/v1/search', headers: auth(KEYS.read), payload: { query: 'snap', as_of: '2024-01-01' } }), 400, 'unsupported_parameter');
  });
  test('in the search query string', async () => {
    expectError(await t.app.inject({ method: 'POST', url: '/v1/search?as_of=2024-01-01', headers: auth(KEYS.read), payload: { query: 'snap' } }), 400, 'unsupported_parameter');
  });
  test('in a calculation body', async () => {
    expectError(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: { ...SNAP_REQUEST, as_of: '2024-01-01' } }), 400, 'unsupported_parameter');
  });
  test.each(['/v1/programs?as_of=2024-01-01', '/v1/rules/us:statutes/7/2017/a%23snap_allotment?as_of=2024-01-01', '/v1/runtime/packages?as_of=2020-01-01'])('in the query of GET %s', async (url) => {
    expectError(await t.app.inject({ method: 'GET', url, headers: auth(KEYS.all) }), 400, 'unsupported_parameter');
  });
  test('but the liveness check is always 200', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/health?as_of=2024-01-01' })).statusCode).toBe(200);
  });
});

describe('a request the HTTP parser rejects', () => {
  test('is answered 400 in the error envelope with x-request-id and no-store', async () => {
    const own = await testApp();
    await own.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = own.app.server.address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nbad header: y\r\n\r\n'));
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toMatch(/cache-control: no-store/i);
    expect(raw).toMatch(/x-request-id: [0-9a-f-]{36}/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: 'error', error: { code: 'invalid_request' }, meta: { api_version: '0.1.0' } });
    await own.app.close();
  });
});

describe('CORS', () => {
  const accessControl = (headers: Record<string, unknown>) => Object.keys(headers).filter((h) => h.toLowerCase().startsWith('access-control-'));
  const preflight = (origin: string, url = '/v1/search'): InjectOptions => ({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
  });

  test('off by default: no access-control-* header at all, on GET, POST, errors and OPTIONS', async () => {
    const origin = 'https://app.example';
    for (const request of [
      { method: 'GET', url: '/v1/health', headers: { origin } },
      { method: 'GET', url: '/v1/programs', headers: { origin, ...auth(KEYS.read) } },
      { method: 'GET', url: '/v1/programs', headers: { origin } },
      { method: 'POST', url: '/v1/search', headers: { origin, ...auth(KEYS.read) }, payload: { query: 'snap' } },
      preflight(origin),
      preflight(origin, '/v1/calculate'),
    ] as InjectOptions[]) {
      const res = await t.app.inject(request);
      expect(accessControl(res.headers), `${request.method} ${request.url}`).toEqual([]);
    }
  });

  describe('with RULES_CORS_ORIGINS', () => {
    let cors: TestApp;
    beforeAll(async () => {
      cors = await testApp({ RULES_CORS_ORIGINS: 'https://app.example, https://admin.example' });
    });
    afterAll(async () => {
      await cors.app.close();
    });

    test.each(['https://app.example', 'https://admin.example'])('a preflight from %s allows GET and POST with the four headers', async (origin) => {
      for (const url of ['/v1/search', '/v1/calculate', '/v1/programs']) {
        const res = await cors.app.inject(preflight(origin, url));
        expect(res.statusCode).toBeGreaterThanOrEqual(200);
        expect(res.statusCode).toBeLessThan(300);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        const methods = String(res.headers['access-control-allow-methods']).toUpperCase().split(/\s*,\s*/);
        expect(methods).toEqual(expect.arrayContaining(['GET', 'POST']));
        const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
        expect(allowed).toEqual(expect.arrayContaining(['content-type', 'authorization', 'x-api-key', 'x-request-id']));
      }
    });

    test('responses to an allowlisted origin expose the request-id and rate-limit headers', async () => {
      const res = await cors.app.inject({ method: 'GET', url: '/v1/programs', headers: { origin: 'https://app.example', ...auth(KEYS.read) } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']));
    });

    test('another origin gets no access-control-* header, on preflight or request', async () => {
      for (const request of [
        preflight('https://evil.example'),
        preflight('https://app.example.evil.example'),
        { method: 'GET', url: '/v1/programs', headers: { origin: 'https://evil.example', ...auth(KEYS.read) } },
        { method: 'GET', url: '/v1/health', headers: { origin: 'http://app.example' } },
      ] as InjectOptions[]) {
        const res = await cors.app.inject(request);
        expect(accessControl(res.headers), `${request.method} ${request.url} from ${(request.headers as Record<string, string>).origin}`).toEqual([]);
      }
    });

    test('requests without an Origin get no access-control-* header', async () => {
      const res = await cors.app.inject({ method: 'GET', url: '/v1/health' });
      expect(accessControl(res.headers)).toEqual([]);
    });
  });
});
