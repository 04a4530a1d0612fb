import fc from 'fast-check';
import { SERVED_SCHEMAS } from '../../../server/schemas.js';

// Values for a JSON Schema of the API (the subset its schemas use: $ref by $id, allOf, oneOf,
// const, enum, types, properties, items, lengths, patterns, bounds, formats), mostly valid and
// now and then one step outside a bound, so both sides of every constraint are exercised.
// (No maintained library turns a JSON Schema into fast-check arbitraries.)

type Schema = Record<string, unknown>;
const byId = new Map(SERVED_SCHEMAS.map((s) => [s.$id as string, s as Schema]));
/** Arrays longer than this are rare in requests worth fuzzing (a 50-entry job runs 50 calculations). */
const LONGEST = 4;

export function arbitraryOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 8) return fc.constant(null);
  if (typeof schema.$ref === 'string') return arbitraryOf(byId.get(schema.$ref) ?? {}, depth + 1);
  if (Array.isArray(schema.allOf)) return arbitraryOf(Object.assign({}, ...(schema.allOf as Schema[]).map((s) => (s.$ref ? byId.get(s.$ref as string) : s)), { allOf: undefined }), depth + 1);
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as Schema[]).map((s) => arbitraryOf(s, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  if (!types.length) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((type) => ofType(type, schema, depth)));
}

function ofType(type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof({ weight: 9, arbitrary: fc.integer({ min: min ?? -10, max: max ?? Math.max(100, (min ?? 0) + 100) }) }, { weight: 1, arbitrary: fc.constantFrom((min ?? 0) - 1, (max ?? 2 ** 53) + 1, 1e300, 0.5) });
    case 'number':
      return fc.oneof({ weight: 9, arbitrary: fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true }) }, { weight: 1, arbitrary: fc.constantFrom((min ?? 0) - 1, 1e300) });
    case 'string':
      return stringOf(schema);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const prefix = (schema.prefixItems as Schema[] | undefined) ?? [];
      const minItems = (schema.minItems as number | undefined) ?? 0;
      const maxItems = Math.min((schema.maxItems as number | undefined) ?? LONGEST, Math.max(minItems, LONGEST));
      const rest = fc.array(arbitraryOf(items, depth + 1), { minLength: Math.max(0, minItems - prefix.length), maxLength: Math.max(0, maxItems - prefix.length) });
      return fc.tuple(fc.tuple(...prefix.map((p) => arbitraryOf(p, depth + 1))), rest).map(([head, tail]) => [...head, ...tail]);
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      const shape = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s, depth + 1)]));
      const record = fc.record(shape, { requiredKeys: required.filter((k) => k in shape) });
      // a free-form object (a household): some JSON under it
      return Object.keys(properties).length ? record : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    }
    default:
      return fc.constant(null);
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, 200);
  let valid: fc.Arbitrary<string>;
  if (typeof schema.pattern === 'string') valid = fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= maxLength);
  else if (schema.format === 'date-time') valid = fc.date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') }).map((d) => d.toISOString());
  else if (schema.format === 'date') valid = fc.date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') }).map((d) => d.toISOString().slice(0, 10));
  else valid = fc.string({ minLength, maxLength });
  const beyond = fc.constantFrom('', 'x'.repeat(maxLength + 1), ' ', '\u0000', '../..', '2026-13-45T99:00:00Z');
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: beyond });
}
