import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Catalog } from '../../../server/catalog/catalog.js';
import { auth, bundledOutput, KEYS, testApp, type TestApp } from '../../support/app.js';

// Time coverage: a package knows the periods its figures cover. Before them a calculation is
// refused; after them it runs on the newest figures and says so in `warnings` (which makes the
// result not authoritative), in every way a calculation is asked for.

const household = (period: string) => ({ period, facts: { household_size: 1, snap_earned_income: 1000 }, people: { p: { age: 40 } } });
/** The warnings other than the assumptions one (the household gives few facts: tested in calculation.test.ts). */
const coverageWarnings = (warnings: string[]) => warnings.filter((w) => !w.startsWith('assumed '));
const LATE = /^(\d{4}-\d{2}) is after the period this package's figures cover \(through 2026-09-30, the program spec's valid_through \(2026-09\)\): the result uses those figures and is not authoritative for this period$/;

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.app.close();
});

const post = async (url: string, payload: unknown) => (await t.app.inject({ method: 'POST', url, headers: auth(KEYS.all), payload: payload as object })).json();

describe('package coverage', () => {
  test('the bundled SNAP packages cover fiscal year 2026 (October 2025 to September 2026)', () => {
    const catalog = Catalog.load(bundledOutput(), 'compiled');
    for (const entry of catalog.packages) {
      expect(catalog.package(entry.jurisdiction, entry.program_id)!.pkg.coverage, entry.runtime_id).toEqual({ from: '2025-10-01', through: '2026-09-30', basis: "the program spec's valid_through (2026-09)" });
    }
  });

  test.each(['2025-10', '2026-01', '2026-09'])('%s is covered: no warning', async (period) => {
    const out = await post('/v1/calculate', { program_id: 'co-snap', jurisdiction: 'us-co', household: household(period) });
    expect(coverageWarnings(out.data.warnings)).toEqual([]);
  });

  test.each(['2026-10', '2027-03', '2099-01'])('%s is after the figures: answered with a warning naming the period used', async (period) => {
    const out = await post('/v1/calculate', { program_id: 'co-snap', jurisdiction: 'us-co', household: household(period) });
    const warnings = coverageWarnings(out.data.warnings);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(LATE);
    expect(LATE.exec(warnings[0])![1]).toBe(period);
  });

  test('a period before the figures is refused', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.all), payload: { program_id: 'co-snap', jurisdiction: 'us-co', household: household('2025-09') } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_household');
  });

  test('batch entries and the migration sidecar carry the warning too', async () => {
    const batch = await post('/v1/calculate/batch', { requests: [{ program_id: 'snap', jurisdiction: 'us', household: household('2026-11') }, { program_id: 'snap', jurisdiction: 'us', household: household('2026-01') }] });
    expect(batch.data.results.map((r: { result: { warnings: string[] } }) => coverageWarnings(r.result.warnings).length)).toEqual([1, 0]);
    const migration = await post('/v1/household/us/calculate', {
      household: { people: { p: { age: { 2026: 40 }, employment_income: { 2026: 12000 } } }, spm_units: { s: { members: ['p'], snap: { '2026-11': null } } }, households: { h: { members: ['p'], state_code: { 2026: 'CA' } } } },
    });
    expect(coverageWarnings(migration.sidecar.warnings)).toEqual([expect.stringMatching(/^2026-11 is after the period/)]);
  });
});
