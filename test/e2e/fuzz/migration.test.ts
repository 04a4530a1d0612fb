import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ERROR_STATUS } from '../../../server/errors.js';
import { ALL_ROUTES } from '../../../server/routes/index.js';
import { errorsOf } from '../../../server/routes/route.js';
import { ajv } from '../../../server/schemas.js';
import type { TestApp } from '../../support/app.js';
import { PROJECT } from '../../support/paths.js';
import { FUZZ_KEYS, fuzzApp, jsonOf } from './api.js';
import { itFuzz } from './harness.js';
import { editedDocument, oddValue } from './mutate.js';

// The migration endpoint (POST /v1/household/us/calculate): the bundled partner households in
// PolicyEngine-US's wire format, mutated (variables dropped, retyped, moved; periods, states and
// members changed; values asked for with null), and bodies of other shapes. Never a 500 or an
// engine failure; an error is the endpoint's own shape `{status: "error", message, result: null,
// sidecar}` at a documented status; an answer matches its schema and accounts for every value
// asked for: computed in `result`, or listed in `sidecar.unsupported` with a reason.

const route = ALL_ROUTES.find((r) => r.path === '/v1/household/{country_id}/calculate')!;
const documented = new Set(errorsOf(route).map((code) => ERROR_STATUS[code]));
const answer = ajv.compile({ $ref: 'MigrationResponse' });
const households = (JSON.parse(readFileSync(path.join(PROJECT, 'fixtures/validation/policyengine-snap-2026-01.json'), 'utf8')) as { households: { situation: unknown }[] }).households.map((h) => h.situation);

const wireValue = fc.oneof(oddValue, fc.constant(null), fc.dictionary(fc.constantFrom('2026', '2026-01', '2026-02', '2025', 'x', ''), fc.oneof(fc.integer({ min: -100, max: 100_000 }), fc.constant(null), oddValue), { maxKeys: 2 }));
const body = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...households).chain((h) => editedDocument(h, wireValue)).map((household) => ({ household })) },
  { weight: 1, arbitrary: fc.constantFrom(...households).map((household) => ({ household, axes: [[{ name: 'employment_income', count: 2, min: 0, max: 1 }]] })) },
  { weight: 1, arbitrary: oddValue.map((household) => ({ household })) },
  { weight: 1, arbitrary: oddValue },
);

type Wire = Record<string, Record<string, Record<string, unknown>>>;

/** Every value the request asks for: [entity group, entity id, variable, period] of each null. */
function asked(household: unknown): string[][] {
  if (!household || typeof household !== 'object') return [];
  const out: string[][] = [];
  for (const [group, entities] of Object.entries(household as Wire)) {
    if (!entities || typeof entities !== 'object' || Array.isArray(entities)) continue;
    for (const [id, variables] of Object.entries(entities)) {
      if (!variables || typeof variables !== 'object' || Array.isArray(variables)) continue;
      for (const [variable, periods] of Object.entries(variables)) {
        if (periods && typeof periods === 'object' && !Array.isArray(periods)) for (const [period, v] of Object.entries(periods)) if (v === null) out.push([group, id, variable, period]);
      }
    }
  }
  return out;
}

let api: TestApp;
beforeAll(async () => {
  api = await fuzzApp();
});
afterAll(() => api.app.close());

describe('fuzz: the migration endpoint', () => {
  itFuzz('migration', { share: 0.25, small: 250 }, () => body, async (payload) => {
    const res = await api.app.inject({ method: 'POST', url: '/v1/household/us/calculate', headers: { 'x-api-key': FUZZ_KEYS.migration }, payload: JSON.stringify(payload) });
    const json = jsonOf(res);
    if (res.statusCode !== 200) {
      expect(json, res.body.slice(0, 500)).toMatchObject({ status: 'error', message: expect.any(String), result: null, sidecar: { request_id: expect.any(String) } });
      expect([...documented], `${res.statusCode}: ${String(json.message)}`).toContain(res.statusCode);
      expect(res.statusCode, String(json.message)).not.toBe(502);
      return;
    }
    expect(answer(json), JSON.stringify(answer.errors)).toBe(true);
    const result = json.result as Wire;
    const sidecar = json.sidecar as { unsupported: { entity_group: string; entity_id: string; variable: string; period: string }[] };
    const household = (payload as { household: unknown }).household;
    for (const [group, id, variable, period] of asked(household)) {
      const computed = (result[group]?.[id]?.[variable] as Record<string, unknown> | undefined)?.[period];
      const listed = sidecar.unsupported.some((u) => u.entity_group === group && u.entity_id === id && u.variable === variable && u.period === period);
      expect(computed !== null && computed !== undefined || listed, `${group}.${id}.${variable}[${period}] neither computed nor listed as unsupported`).toBe(true);
    }
  });
});
