import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { ErrorCode } from '../../../server/errors.js';
import { ALL_ROUTES } from '../../../server/routes/index.js';
import { errorsOf, type RouteDef } from '../../../server/routes/route.js';
import { ajv } from '../../../server/schemas.js';
import type { TestApp } from '../../support/app.js';
import { expectErrorEnvelope, FUZZ_KEYS, fuzzApp, jsonOf } from './api.js';
import { itFuzz } from './harness.js';
import { editedDocument, oddValue } from './mutate.js';
import { arbitraryOf } from './schema-arbitrary.js';

// Every route of the API (each path of the OpenAPI document, the rule routes' documented
// variants too), through the in-process app: path parameters, query strings, JSON bodies
// (generated from the route's own request schema, mutated, or not JSON at all) and keys of every
// kind. Never a 500; an error is the documented envelope (the migration route: its own shape)
// with one of the codes the route documents, at that code's status; a success matches the
// route's documented response schema.

const ROUTES = ALL_ROUTES.filter((r) => r.path !== '/v1/household/{country_id}/calculate'); // its own target
const KNOWN = {
  jurisdiction: ['us', 'us-co', 'us-ny', 'xx'],
  program_id: ['snap', 'co-snap', 'ny-snap', 'ca-snap', 'nope'],
  rule_id: ['us:statutes/7/2017/a#snap_allotment', 'us/statutes/7/2017/a/snap_allotment', 'us:statutes/7/2017/a', 'us-co:nope#x'],
  job_id: ['job-1', '00000000-0000-0000-0000-000000000000'],
  key_id: ['fuzz-issued', 'trial-1', 'k'],
  run_id: ['run-1'],
  country_id: ['us', 'uk'],
};
const segment = (name: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(KNOWN[name as keyof typeof KNOWN] ?? ['x'])) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom('.x', '%00', '\u00e9', 'a'.repeat(2000), '%', '%zz', ' ', '\\', '/') },
  );

/** A parameter as a client sends it: a rule id keeps its slashes, `#` and `?` are percent-encoded. A
 *  segment of dots only (even encoded) is one URL normalisation removes, and an empty one leaves a
 *  trailing slash: both reach another route, so neither is sent. */
function encoded(name: string, value: string): string {
  const text = name === 'rule_id' ? encodeURI(value).replace(/#/g, '%23').replace(/\?/g, '%3F') : encodeURIComponent(value);
  return text.split('/').map((part) => (/^\.*$/.test(part) ? `${part}_` : part)).join('/');
}

/** The URL of a route with its parameters filled in. */
const urlOf = (route: RouteDef) =>
  fc.tuple(...[...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => segment(m[1]!).map((v) => [m[1]!, v] as const))).map((params) =>
    params.reduce((url, [name, value]) => url.replace(`{${name}}`, encoded(name, value)), route.path),
  );

function queryOf(route: RouteDef): fc.Arbitrary<string> {
  const props = Object.entries((route.query?.properties ?? {}) as Record<string, Record<string, unknown>>);
  const known = fc.tuple(...props.map(([name, schema]) => fc.option(fc.oneof(arbitraryOf(schema), oddValue).map((v) => [name, typeof v === 'string' ? v : JSON.stringify(v)] as const), { nil: undefined })));
  const extra = fc.array(fc.tuple(fc.constantFrom('as_of', 'limit', 'x', '__proto__', 'focus'), fc.string({ maxLength: 10 })), { maxLength: 2 });
  return fc.tuple(known, fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extra })).map(([k, e]) => {
    const pairs = [...k.filter((p) => p !== undefined), ...e] as [string, string][];
    return pairs.length ? `?${new URLSearchParams(pairs)}` : '';
  });
}

type Body = { json: unknown } | { text: string } | undefined;
function bodyOf(route: RouteDef): fc.Arbitrary<Body> {
  const raw = fc.oneof(fc.constantFrom('{', '[1,', '{"a":}', 'null', '"x"', '1e999', '[]', '{}', `${'['.repeat(100)}${']'.repeat(100)}`, '\u0000'), fc.string({ maxLength: 20 })).map((text) => ({ text }));
  if (!route.body) return fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: oddValue.map((json) => ({ json })) }, { weight: 1, arbitrary: raw });
  const valid = arbitraryOf(route.body as Record<string, unknown>);
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((json) => ({ json })) },
    { weight: 3, arbitrary: valid.chain((v) => editedDocument(v)).map((json) => ({ json })) },
    { weight: 1, arbitrary: oddValue.map((json) => ({ json })) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Who asks: mostly a key with every scope; a narrow key, no key, a wrong key (from its own address, so the failed-auth throttle of one client does not end the run). */
const caller = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ 'x-api-key': FUZZ_KEYS.all }) },
  { weight: 2, arbitrary: fc.constant({ authorization: `Bearer ${FUZZ_KEYS.all}` }) },
  { weight: 2, arbitrary: fc.constant({ 'x-api-key': FUZZ_KEYS.read }) },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((k) => ({ 'x-api-key': k })) },
);

const request = fc.integer({ min: 0, max: ROUTES.length - 1 }).chain((index) => {
  const route = ROUTES[index]!;
  return fc.record({ route: fc.constant(index), url: urlOf(route), query: queryOf(route), body: bodyOf(route), headers: caller, address: fc.ipV4() });
});

/** The documented success response of each route, as a validator. */
const successOf = new Map(
  ROUTES.map((r) => [r, r.success.contentType ? undefined : ajv.compile(r.envelope === false ? r.success.schema : { type: 'object', required: ['status', 'data', 'meta'], properties: { status: { const: 'ok' }, data: r.success.schema, meta: { $ref: 'Meta' } } })]),
);

let api: TestApp;
beforeAll(async () => {
  api = await fuzzApp();
});
afterAll(() => api.app.close());

describe('fuzz: every route', () => {
  itFuzz('routes', { share: 0.33, small: 400 }, () => request, async ({ route: index, url, query, body, headers, address }) => {
    const route = ROUTES[index]!;
    const options: InjectOptions = { method: route.method, url: url + query, headers: { ...headers }, remoteAddress: address };
    if (body && 'json' in body) options.payload = JSON.stringify(body.json) ?? 'null';
    if (body && 'text' in body) options.payload = body.text;
    if (body) options.headers!['content-type'] = 'application/json';
    const res = await api.app.inject(options);
    const where = `${route.method} ${route.path} as ${url + query}`;
    expect(res.statusCode, `${where}: ${res.body.slice(0, 300)}`).not.toBe(500);
    if (res.statusCode < 400) {
      const validate = successOf.get(route);
      if (!validate) return expect(res.headers['content-type']).toMatch(route.success.contentType!);
      expect(validate(jsonOf(res)), `${where}: ${JSON.stringify(validate.errors?.slice(0, 2))}`).toBe(true);
      return;
    }
    // a 404 for a URL no route serves (a parameter that became two segments) is the not-found handler's
    expectErrorEnvelope(res, [...errorsOf(route), ...(res.statusCode === 404 ? (['not_found'] as ErrorCode[]) : [])]);
  });
});
