import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { PackageInput } from '../../../compiler/4-package/package-types.js';
import { valueKind } from '../../../compiler/dtypes.js';
import { resolveOutput } from '../../../compiler/runtime/calculate.js';
import type { LoadedPackage } from '../../../compiler/runtime/loaded-package.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import { bundledOutput, type TestApp } from '../../support/app.js';
import { expectErrorEnvelope, FUZZ_KEYS, fuzzApp, jsonOf } from './api.js';
import { itFuzz } from './harness.js';
import { editedDocument, oddValue } from './mutate.js';

// Households against every bundled package, through POST /v1/calculate: generated from each
// package's input catalogue (names, aliases and legal ids; values of the input's dtype, at and
// past its bounds, and of other types), in every household convention, and mutated from the
// package's sample request. Never a 500 or an engine failure; a refusal is 400 or 422 in the
// envelope, naming the field; an accepted household answers every output asked for in the
// output's declared dtype.

const catalog = Catalog.load(bundledOutput(), 'compiled');
const packages = catalog.packages.map((p) => catalog.package(p.jurisdiction, p.program_id)!);

const MONTHS = ['2025-10', '2026-01', '2026-03', '2026-09', '2026-10', '2027-05', '2019-01', '2020-02'];

function validValue(input: PackageInput): fc.Arbitrary<unknown> {
  switch (valueKind(input.dtype)) {
    case 'boolean':
      return fc.boolean();
    case 'whole':
      return input.name.endsWith('_size') ? fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 100, 101, -1)) : fc.integer({ min: 0, max: 120 });
    case 'text':
      return input.values?.length ? fc.constantFrom(...input.values) : fc.string({ maxLength: 12 });
    case 'date':
      return fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    default:
      return fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 99_999 }).map((n) => (n / 100).toFixed(2)), fc.constantFrom(1e15, 1e15 + 2, -0.01));
  }
}

/** `{name: value}` for some inputs, named by name, alias or legal id, with now and then an unknown one. */
function inputsOf(loaded: LoadedPackage, inputs: PackageInput[]): fc.Arbitrary<Record<string, unknown>> {
  const aliases = Object.entries(loaded.pkg.household_aliases);
  const entry = (input: PackageInput) =>
    fc.tuple(
      fc.constantFrom(input.name, input.legal_id, ...aliases.filter(([, name]) => name === input.name).map(([alias]) => alias)),
      fc.oneof({ weight: 40, arbitrary: validValue(input) }, { weight: 1, arbitrary: oddValue }),
    );
  const unknown = fc.tuple(fc.constantFrom('typo', 'snap_earned_incom', '__proto__', 'constructor', '', 'household.size'), oddValue);
  return fc.tuple(fc.subarray(inputs).chain((chosen) => fc.tuple(...chosen.map(entry))), fc.oneof({ weight: 10, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(unknown, { maxLength: 1 }) })).map(([known, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of [...known, ...extra]) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

function household(loaded: LoadedPackage): fc.Arbitrary<unknown> {
  const { pkg } = loaded;
  const main = loaded.entity(pkg.main_entity)!;
  const person = pkg.person_entity ? loaded.entity(pkg.person_entity) : undefined;
  const personIds = fc.constantFrom('p1', 'p2', 'person-1', 'person-2', 'household', '', 'a.b', '__proto__');
  const people = fc.oneof(
    fc.dictionary(personIds, person ? inputsOf(loaded, person.inputs) : fc.constant({}), { maxKeys: 6 }),
    fc.integer({ min: 99, max: 102 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, {}]))),
  );
  const period = fc.option(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...MONTHS) }, { weight: 1, arbitrary: oddValue }), { nil: undefined });
  const conventions = fc.record(
    { period, facts: inputsOf(loaded, main.inputs), people, spm_units: fc.dictionary(fc.string({ maxLength: 4 }), inputsOf(loaded, main.inputs), { maxKeys: 2 }) },
    { requiredKeys: [] },
  );
  const sample = pkg.sample_request.household;
  return fc.oneof(
    { weight: 6, arbitrary: conventions },
    { weight: 3, arbitrary: editedDocument(sample, fc.oneof(oddValue, ...main.inputs.slice(0, 3).map(validValue))) },
    { weight: 1, arbitrary: fc.record({ entities: fc.constant(sample.entities), relations: fc.dictionary(fc.constantFrom(...(person?.relations ?? []).map((r) => r.name), 'member_of_household', 'x'), fc.array(fc.array(fc.constantFrom('household', 'person-1', 'p9', 'x'), { maxLength: 3 }), { maxLength: 3 }), { maxKeys: 2 }) }) },
    { weight: 1, arbitrary: oddValue },
  );
}

function request(loaded: LoadedPackage) {
  const { pkg } = loaded;
  const outputs = [...pkg.outputs.map((o) => o.name), ...Object.keys(pkg.output_aliases)];
  return fc.record(
    {
      program_id: fc.oneof({ weight: 50, arbitrary: fc.constant(pkg.program_id) }, { weight: 1, arbitrary: fc.constantFrom('snap', 'co-snap', 'nope') }),
      jurisdiction: fc.oneof({ weight: 50, arbitrary: fc.constant(pkg.jurisdiction) }, { weight: 1, arbitrary: fc.constantFrom('us', 'us-co', 'xx') }),
      household: household(loaded),
      variables: fc.oneof({ weight: 10, arbitrary: fc.subarray(outputs, { minLength: 1 }) }, { weight: 1, arbitrary: fc.subarray([...outputs, 'snap_allotmen', 'us:statutes/7/2017/a#snap_allotment', ''], { minLength: 1 }) }),
    },
    { requiredKeys: ['program_id', 'jurisdiction', 'household'] },
  );
}

/** Whether a JSON output value is of the rule's dtype (judgments: true, false or null when undetermined). */
function ofDtype(value: unknown, dtype: string | null, judgment: boolean): boolean {
  if (judgment) return value === true || value === false || value === null;
  switch (valueKind(dtype ?? undefined)) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'whole':
      return Number.isInteger(value);
    case 'text':
      return typeof value === 'string';
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
    default:
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value));
  }
}

function expectOutputsOfTheirDtypes(loaded: LoadedPackage, variables: string[] | undefined, outputs: Record<string, unknown>): void {
  const asked = variables ?? loaded.pkg.default_outputs;
  expect(Object.keys(outputs).sort()).toEqual([...new Set(asked)].sort());
  for (const name of asked) {
    const target = resolveOutput(loaded, name)!;
    const rule = target.kind === 'rule' ? loaded.executable.rules[target.index]! : undefined;
    const { dtype } = rule ?? loaded.executable.parameters[target.index]!;
    const judgment = rule?.judgment ?? false;
    const value = outputs[name];
    // a per-person rule answers an object keyed by person id
    const values = value !== null && typeof value === 'object' ? Object.values(value) : [value];
    for (const v of values) expect(ofDtype(v, dtype, judgment), `${name} = ${JSON.stringify(value)} is not ${dtype}`).toBe(true);
  }
}

let api: TestApp;
beforeAll(async () => {
  api = await fuzzApp();
});
afterAll(() => api.app.close());

const byName = new Map(packages.map((p) => [`${p.pkg.jurisdiction}/${p.pkg.program_id}`, p]));
const calculation = fc.constantFrom(...byName.keys()).chain((name) => request(byName.get(name)!).map((body) => ({ name, body })));

describe('fuzz: households', () => {
  itFuzz('households', { share: 0.3, small: 400 }, () => calculation, async ({ name, body }) => {
    const loaded = byName.get(name)!;
    const res = await api.app.inject({ method: 'POST', url: '/v1/calculate', headers: { 'x-api-key': FUZZ_KEYS.all }, payload: body });
    if (res.statusCode === 200) {
      const data = jsonOf(res).data as { outputs: Record<string, unknown>; warnings: unknown[] };
      expect(data.warnings.every((w) => typeof w === 'string')).toBe(true);
      expectOutputsOfTheirDtypes(loaded, body.variables, data.outputs);
      return;
    }
    const { error } = expectErrorEnvelope(res, ['invalid_request', 'invalid_household', 'unsupported_program']);
    // a refusal names what it refuses: the field, or the program asked for
    if (error.code === 'unsupported_program') expect(error.message).toMatch(/no runtime package for program/);
    else expect(error.message).toMatch(/^(body|household|variables|program_id|jurisdiction)\b/);
  });
});
