import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../../server/routes/index.js';
import { errorsOf, refusesAsOf } from '../../../server/routes/route.js';
import { SERVED_SCHEMAS } from '../../../server/schemas.js';

// Schemas have one home in the server layer (server/schemas.ts, with the admin routes' in
// admin-schemas.ts): a route names its body and its answer by reference (or a choice of references). Only open objects (the
// OpenAPI document, the migration ledger) and plain strings (HTML pages) are written in place;
// query and path parameters stay with their route, as OpenAPI lists them there.
const served = new Set<string>(SERVED_SCHEMAS.map((s) => s.$id));
const named = (schema: Record<string, unknown>): boolean =>
  typeof schema.$ref === 'string' ? served.has(schema.$ref) : Array.isArray(schema.oneOf) && schema.oneOf.every(named);
const inPlace = (schema: Record<string, unknown>) => Object.keys(schema).every((k) => ['type', 'description'].includes(k)) && ['object', 'string'].includes(schema.type as string);

describe('the route list', () => {
  it('names every body and answer by a served schema, or is an open object or a string', () => {
    const strays = ALL_ROUTES.flatMap((r) => [
      ...(r.body ? [{ at: `${r.method} ${r.path} body`, schema: r.body }] : []),
      { at: `${r.method} ${r.path} ${r.success.status}`, schema: r.success.schema },
    ]).filter(({ schema }) => !named(schema) && !inPlace(schema));
    expect(strays.map((s) => s.at)).toEqual([]);
  });
});

describe('the documented errors', () => {
  // Found by fuzzing (test/e2e/fuzz/routes.test.ts): GET /v1/version?as_of= answered 400
  // unsupported_parameter, a code its OpenAPI operation did not list.
  it('list unsupported_parameter wherever `as_of` is refused: every route but the liveness check', () => {
    const undocumented = ALL_ROUTES.filter((r) => refusesAsOf(r) && !errorsOf(r).includes('unsupported_parameter')).map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
    expect(ALL_ROUTES.filter((r) => !refusesAsOf(r)).map((r) => r.path)).toEqual(['/v1/health']);
  });

  // Found by fuzzing too: a program id of 2,000 characters is a 400 from the router, before the
  // route, and GET /v1/runtime/packages/{jurisdiction}/{program_id} did not document it.
  // And a malformed JSON body sent to POST /v1/parity/run (a route that reads none) is a 400 too.
  it('list invalid_request on every route with a path parameter or a body (refused before the route when unreadable)', () => {
    expect(ALL_ROUTES.filter((r) => (r.path.includes('{') || r.method === 'POST') && !errorsOf(r).includes('invalid_request')).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(ALL_ROUTES.filter((r) => r.method === 'POST' && !errorsOf(r).includes('payload_too_large')).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });
});
