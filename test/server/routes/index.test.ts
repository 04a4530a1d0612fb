import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../../server/routes/index.js';
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
