import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { expectError, expectOk, GENEROUS_KEYS, SNAP_IDS } from '../../support/lab.js';

// The conventions the hosted service's clients rely on where the specification is silent:
// slug program ids (co-snap), the snap_benefit_amount output, and a sample_request a client fills
// in (`household.entities`) whose values change the answer.

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ RULES_API_KEYS: GENEROUS_KEYS });
});
afterAll(async () => {
  await t.app.close();
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: auth(KEYS.read) });
const calculate = (payload: unknown) => t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: payload as object });

type Sample = { program_id: string; jurisdiction: string; household: { period: string; entities: Record<string, Record<string, Record<string, unknown>>> }; variables: string[] };

describe('a client filling in the sample_request of GET /v1/runtime/packages/us-co/co-snap', () => {
  let pkg: { program_id: string; entities: { entity: string; id_template: string; inputs: { name: string; default?: unknown }[] }[]; sample_request: Sample };
  beforeAll(async () => {
    pkg = expectOk(await get('/v1/runtime/packages/us-co/co-snap')).package;
  });

  test('the sample holds every entity by the id the detail gives, every input present', () => {
    const { household } = pkg.sample_request;
    expect(Object.keys(household)).toEqual(['period', 'entities']);
    expect(Object.keys(household.entities).sort()).toEqual(pkg.entities.map((e) => e.entity).sort());
    for (const entity of pkg.entities) {
      const ids = Object.keys(household.entities[entity.entity]);
      for (const id of ids) expect(id, entity.entity).toMatch(new RegExp(`^${entity.id_template.replace('{index}', '\\d+')}$`));
      for (const id of ids) expect(Object.keys(household.entities[entity.entity][id]).sort(), `${entity.entity}.${id}`).toEqual(entity.inputs.map((i) => i.name).sort());
      // inputs with a default carry it, unless the encoding gives an example
      for (const input of entity.inputs) if (input.default !== undefined && input.name.startsWith('snap_pays')) expect(household.entities[entity.entity][ids[0]][input.name]).toBe(input.default);
    }
  });

  test('posted as given, it computes: earned 1,500, shelter 900, three people → 609', async () => {
    // 1,500 - 300 (20%) - 209 = 991; shelter 900 - 495.50 = 404.50 (no utility billed);
    // net 586.50; 30% = 175.95 → 176; 785 - 176 = 609
    const data = expectOk(await calculate(pkg.sample_request));
    expect(data).toMatchObject({ program_id: 'co-snap', jurisdiction: 'us-co', warnings: [] });
    expect(data.outputs).toMatchObject({ snap_allotment: 609, snap_net_income: 586.5, snap_utility_allowance: 0 });
  });

  test('values written into it change the answer: the Colorado family earning $1,200 with heating costs → 782', async () => {
    // CO HCUA 594 (10 CCR 2506-1 4.407.31); 1,200 - 240 - 209 = 751; shelter 900 + 594 - 375.50
    // = 1,118.50, capped at 744; net 7; 30% = 2.10 → 3; 785 - 3 = 782
    const request = structuredClone(pkg.sample_request);
    Object.assign(request.household.entities.Household.household, { snap_earned_income: 1200, snap_pays_heating_or_cooling_separately: true });
    const data = expectOk(await calculate({ ...request, variables: ['snap_benefit_amount', 'snap_allotment', 'snap_net_income', 'snap_utility_allowance'] }));
    expect(data.outputs).toEqual({ snap_benefit_amount: 782, snap_allotment: 782, snap_net_income: 7, snap_utility_allowance: 594 });
    expect(data.warnings).toEqual([]);

    // a person's value too: a member aged 70 lifts the shelter cap (net 0, the full 785)
    request.household.entities.Person['person-3'].age = 70;
    expect(expectOk(await calculate(request)).outputs.snap_allotment).toBe(785);
  });

  test('an input the package does not have is a 400 invalid_household naming it; an unknown household key a warning naming it', async () => {
    const request = structuredClone(pkg.sample_request);
    (request.household.entities.Household.household as Record<string, unknown>).snap_earned_incme = 5;
    const error = expectError(await calculate(request), 400, 'invalid_household').error;
    expect(error.message).toContain('household.entities.Household.household.snap_earned_incme');
    expect(error.message).toContain('did you mean `snap_earned_income`');

    const warned = expectOk(await calculate({ ...pkg.sample_request, household: { ...pkg.sample_request.household, peopel: {} } }));
    expect(warned.warnings).toEqual([expect.stringContaining('household.peopel: not a household convention')]);
  });
});

describe('every bundled package', () => {
  test.each(Object.entries(SNAP_IDS))('%s/%s: answers to snap_benefit_amount, and its own sample filled in changes the answer', async (jurisdiction, programId) => {
    const pkg = expectOk(await get(`/v1/runtime/packages/${jurisdiction}/${programId}`)).package;
    expect(pkg.program_id).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
    expect(pkg.output_aliases.snap_benefit_amount).toBe('snap_allotment');
    const before = expectOk(await calculate({ ...pkg.sample_request, variables: ['snap_benefit_amount', 'snap_allotment'] })).outputs;
    expect(before.snap_benefit_amount).toBe(before.snap_allotment);
    const request = structuredClone(pkg.sample_request) as Sample;
    request.household.entities.Household.household.snap_earned_income = 4000;
    const after = expectOk(await calculate({ ...request, variables: ['snap_benefit_amount'] })).outputs;
    expect(after.snap_benefit_amount).toBe(0);
    expect(before.snap_benefit_amount).toBeGreaterThan(0);
  });
});
