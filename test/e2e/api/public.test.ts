import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MemoryStore } from '../../../server/store/memory.js';
import { StoreUnavailableError } from '../../../server/store/store.js';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { API_VERSION, expectError, expectOk } from '../../support/lab.js';

// Rules API, "Endpoints › Public (no key)", "Health, readiness, version" and "Versioning" (the
// OpenAPI 3.1 contract).

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.app.close();
});

const DEP_STATUS = ['ready', 'degraded', 'unavailable'];
const worst = (statuses: string[]) => statuses.reduce((w, s) => (DEP_STATUS.indexOf(s) > DEP_STATUS.indexOf(w) ? s : w), 'ready');

/** ReadyResponse: ready, status (the worst dependency status), source, dependencies. */
function expectReadyResponse(data: { ready: unknown; status: string; source: unknown; dependencies: { name: string; status: string; detail?: string }[] }) {
  expect(typeof data.ready).toBe('boolean');
  expect(DEP_STATUS).toContain(data.status);
  expect(typeof data.source).toBe('string');
  expect(Array.isArray(data.dependencies)).toBe(true);
  // auth configuration, shared counter store, rule index, calculation runtime
  expect(data.dependencies.length).toBeGreaterThanOrEqual(4);
  for (const d of data.dependencies) {
    expect(typeof d.name).toBe('string');
    expect(DEP_STATUS).toContain(d.status);
    if (d.detail !== undefined) expect(typeof d.detail).toBe('string');
  }
  expect(new Set(data.dependencies.map((d) => d.name)).size).toBe(data.dependencies.length);
  expect(data.status).toBe(worst(data.dependencies.map((d) => d.status)));
  expect(data.ready).toBe(data.dependencies.every((d) => d.status === 'ready'));
}

class DownStore extends MemoryStore {
  override async ping(): Promise<void> {
    throw new StoreUnavailableError('connection refused');
  }
}

describe('GET /v1/health', () => {
  test('200 {service: rules-api, live: true} without a key', async () => {
    expect(expectOk(await t.app.inject({ method: 'GET', url: '/v1/health' }))).toEqual({ service: 'rules-api', live: true });
  });

  test('still 200 when dependencies are not ready (no keys, store down): no dependency checks', async () => {
    const { app } = await testApp({ RULES_API_KEYS: '' }, { store: new DownStore() });
    expect(expectOk(await app.inject({ method: 'GET', url: '/v1/health' }))).toEqual({ service: 'rules-api', live: true });
    await app.close();
  });
});

describe('GET /v1/ready', () => {
  test('200 with ready true when every dependency is ready', async () => {
    const data = expectOk(await t.app.inject({ method: 'GET', url: '/v1/ready' }));
    expectReadyResponse(data);
    expect(data.ready).toBe(true);
    expect(data.status).toBe('ready');
    expect(data.source.length).toBeGreaterThan(0);
  });

  test('503 not_ready with the ReadyResponse in data when no keys are configured', async () => {
    const { app } = await testApp({ RULES_API_KEYS: '' });
    const body = expectError(await app.inject({ method: 'GET', url: '/v1/ready' }), 503, 'not_ready');
    expectReadyResponse(body.data);
    expect(body.data.ready).toBe(false);
    expect(body.data.status).not.toBe('ready');
    await app.close();
  });

  test('503 not_ready with status unavailable when the store is unreachable', async () => {
    const { app } = await testApp({}, { store: new DownStore() });
    const body = expectError(await app.inject({ method: 'GET', url: '/v1/ready' }), 503, 'not_ready');
    expectReadyResponse(body.data);
    expect(body.data.ready).toBe(false);
    expect(body.data.status).toBe('unavailable');
    expect(body.data.dependencies.filter((d: { status: string }) => d.status === 'unavailable').length).toBeGreaterThanOrEqual(1);
    await app.close();
  });
});

describe('GET /v1/version', () => {
  test('api_version 0.1.0 and the environment', async () => {
    expect(expectOk(await t.app.inject({ method: 'GET', url: '/v1/version' }))).toEqual({ api_version: API_VERSION, environment: 'local' });
    const { app } = await testApp({ RULES_ENVIRONMENT: 'production' });
    expect(expectOk(await app.inject({ method: 'GET', url: '/v1/version' }), 200, 'production')).toEqual({ api_version: API_VERSION, environment: 'production' });
    await app.close();
  });
});

describe('public endpoints need no key', () => {
  test.each(['/v1/health', '/v1/ready', '/v1/version', '/v1/openapi.json'])('GET %s answers 200 without a key and with a wrong one', async (url) => {
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url, headers: auth('not-a-key') })).statusCode).toBe(200);
  });

  test('and they answer even when no key is configured at all (no 503 auth_not_configured)', async () => {
    const { app } = await testApp({ RULES_API_KEYS: '' });
    for (const url of ['/v1/health', '/v1/version', '/v1/openapi.json']) expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
    await app.close();
  });
});

// ---------------------------------------------------------------------------------------------
// The OpenAPI document

/** Every method and path of the specification's endpoint tables, with its success status and the
 *  error statuses the specification documents for it. */
const SPEC_OPERATIONS: { method: 'get' | 'post'; path: string; success: number; errors: number[]; key: boolean }[] = [
  // Public
  { method: 'get', path: '/docs', success: 200, errors: [], key: false },
  { method: 'get', path: '/docs/validation', success: 200, errors: [], key: false },
  { method: 'get', path: '/v1/health', success: 200, errors: [], key: false },
  { method: 'get', path: '/v1/ready', success: 200, errors: [503], key: false },
  { method: 'get', path: '/v1/version', success: 200, errors: [], key: false },
  { method: 'get', path: '/v1/openapi.json', success: 200, errors: [], key: false },
  { method: 'post', path: '/v1/keys/trial', success: 201, errors: [400, 413, 429, 503], key: false },
  // Discovery and rules
  { method: 'get', path: '/v1/capabilities', success: 200, errors: [401, 403, 429], key: true },
  { method: 'get', path: '/v1/programs', success: 200, errors: [], key: true },
  { method: 'get', path: '/v1/runtime/packages', success: 200, errors: [], key: true },
  { method: 'get', path: '/v1/runtime/packages/{jurisdiction}/{program_id}', success: 200, errors: [404], key: true },
  { method: 'get', path: '/v1/runtime/packages/{jurisdiction}/{program_id}/graph', success: 200, errors: [404], key: true },
  { method: 'get', path: '/v1/graph/compose', success: 200, errors: [400, 404, 503], key: true },
  { method: 'post', path: '/v1/search', success: 200, errors: [400, 413], key: true },
  { method: 'get', path: '/v1/rules/{rule_id}', success: 200, errors: [404], key: true },
  { method: 'get', path: '/v1/rules/{rule_id}/sources', success: 200, errors: [404], key: true },
  { method: 'get', path: '/v1/rules/{rule_id}/dependencies', success: 200, errors: [404], key: true },
  // Calculation
  { method: 'post', path: '/v1/calculate', success: 200, errors: [400, 413, 422, 502], key: true },
  { method: 'post', path: '/v1/calculate/batch', success: 200, errors: [400, 413], key: true },
  { method: 'post', path: '/v1/jobs/calculate', success: 202, errors: [400, 503], key: true },
  { method: 'get', path: '/v1/jobs/{job_id}', success: 200, errors: [404, 503], key: true },
  // Migration-only
  { method: 'post', path: '/v1/household/{country_id}/calculate', success: 200, errors: [400, 422, 502], key: true },
  // Parity
  { method: 'get', path: '/v1/parity/cases', success: 200, errors: [401], key: true },
  { method: 'post', path: '/v1/parity/run', success: 200, errors: [401], key: true },
  // Admin
  { method: 'get', path: '/v1/admin/analytics', success: 200, errors: [401, 403, 503], key: true },
  { method: 'get', path: '/v1/admin/usage', success: 200, errors: [400, 503], key: true },
  { method: 'get', path: '/v1/admin/audit', success: 200, errors: [503], key: true },
  { method: 'get', path: '/v1/admin/keys', success: 200, errors: [401, 403, 503], key: true },
  { method: 'post', path: '/v1/admin/keys', success: 201, errors: [400, 409, 503], key: true },
  { method: 'post', path: '/v1/admin/keys/{key_id}/revoke', success: 200, errors: [401, 403, 404, 503], key: true },
  { method: 'get', path: '/v1/admin/kill', success: 200, errors: [503], key: true },
  { method: 'post', path: '/v1/admin/kill', success: 200, errors: [400, 503], key: true },
  { method: 'get', path: '/v1/admin/validation/migration', success: 200, errors: [404], key: true },
  { method: 'post', path: '/v1/admin/validation/runs', success: 201, errors: [400, 503], key: true },
  { method: 'get', path: '/v1/admin/validation/runs', success: 200, errors: [503], key: true },
  { method: 'get', path: '/v1/admin/validation/runs/{run_id}', success: 200, errors: [404, 503], key: true },
];

describe('GET /v1/openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });

  test('is served without the envelope: an OpenAPI 3.1 document with JSON Schema dialect 2020-12', () => {
    expect(doc.status).toBeUndefined();
    expect(doc.meta).toBeUndefined();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info.version).toBe(API_VERSION);
    expect(typeof doc.info.title).toBe('string');
  });

  test('lists every path of the specification with the right methods', () => {
    const missing = SPEC_OPERATIONS.filter((op) => !doc.paths?.[op.path]?.[op.method]).map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(missing).toEqual([]);
  });

  test('has no operation the specification does not describe', () => {
    const described = new Set(SPEC_OPERATIONS.map((op) => `${op.method} ${op.path}`));
    const extra = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m} ${p}`)
        .filter((k) => !described.has(k)),
    );
    expect(extra).toEqual([]);
  });

  test('documents 400 unsupported_parameter on every operation that refuses `as_of`: all but the liveness check', () => {
    // found by fuzzing: GET /v1/version?as_of= answered a 400 its operation did not document
    const undocumented = SPEC_OPERATIONS.filter((op) => op.path !== '/v1/health' && !/unsupported_parameter/.test(doc.paths[op.path][op.method].responses['400']?.description ?? ''));
    expect(undocumented.map((op) => `${op.method.toUpperCase()} ${op.path}`)).toEqual([]);
  });

  test.each(SPEC_OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))('%s documents its success and error responses', (_name, op) => {
    const operation = doc.paths[op.path]?.[op.method];
    expect(operation, 'operation missing').toBeDefined();
    const statuses = Object.keys(operation.responses);
    expect(statuses).toContain(String(op.success));
    const expected = [...op.errors, ...(op.key ? [401, 403, 429] : [])].map(String);
    expect(statuses).toEqual(expect.arrayContaining(expected));
    for (const status of statuses.filter((s) => Number(s) >= 400)) {
      expect(typeof operation.responses[status].description).toBe('string');
      expect(operation.responses[status].content?.['application/json']?.schema, `${status} schema`).toBeDefined();
    }
  });

  test('path parameters are declared for every templated path', () => {
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>>)) {
      const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(ops)) {
        for (const name of names) {
          const param = op.parameters?.find((x) => x.name === name && x.in === 'path');
          expect(param, `${method} ${p} {${name}}`).toBeDefined();
          expect(param!.required).toBe(true);
        }
      }
    }
  });

  test('GET /v1/graph/compose declares its required focus query parameter', () => {
    const focus = doc.paths['/v1/graph/compose'].get.parameters.find((p: { name: string }) => p.name === 'focus');
    expect(focus).toMatchObject({ in: 'query', required: true });
  });

  test('every $ref resolves to a target inside the document', () => {
    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(20);
    const resolve = (ref: string) => {
      if (!ref.startsWith('#/')) return undefined;
      let node: any = doc;
      for (const raw of ref.slice(2).split('/')) {
        const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
        node = node[part];
      }
      return node;
    };
    const dangling = [...new Set(refs)].filter((ref) => resolve(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  test('components define the resources of the specification', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['CalculateRequest', 'CalculateResponse', 'RuntimePackageSummary', 'RuntimePackageDetail', 'ProgramGraph', 'RuleSummary', 'RuleDetail', 'SourceReference', 'ProgramSummary', 'TraceEntry', 'BatchResult', 'JobRecord', 'ParityCase', 'ParityRunResult']),
    );
  });

  test('request schemas carry the limits of the specification', () => {
    const s = doc.components.schemas;
    const calc = s.CalculateRequest;
    expect(calc.required).toEqual(expect.arrayContaining(['program_id', 'jurisdiction', 'household']));
    for (const k of ['program_id', 'jurisdiction']) expect(calc.properties[k]).toMatchObject({ type: 'string', minLength: 1, maxLength: 120 });
    expect(calc.properties.household.type).toBe('object');
    expect(calc.properties.variables).toMatchObject({ type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } });
    const search = s.SearchRequest;
    expect(search.required).toEqual(['query']);
    expect(search.properties.query).toMatchObject({ type: 'string', minLength: 2, maxLength: 500 });
    for (const k of ['jurisdiction', 'program_id']) expect(search.properties[k]).toMatchObject({ type: 'string', maxLength: 120 });
    expect(search.properties.limit.type).toBe('number');
    expect(s.BatchRequest.properties.requests).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    expect(s.Meta.properties.environment.enum).toEqual(['local', 'dev', 'staging', 'production']);
    expect(s.ErrorEnvelope.required).toEqual(expect.arrayContaining(['status', 'error', 'meta']));
  });

  test('the request example of POST /v1/calculate computes when posted', async () => {
    const content = doc.paths['/v1/calculate'].post.requestBody.content['application/json'];
    const example = content.example ?? Object.values((content.examples ?? {}) as Record<string, { value: unknown }>)[0]?.value;
    expect(example).toBeDefined();
    const data = expectOk(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: example }));
    expect(data.engine).toBe('rules');
    expect(Object.keys(data.outputs).length).toBeGreaterThan(0);
  });

  test('is the same document on every request', async () => {
    const again = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(again).toEqual(doc);
  });
});
