import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLedger, referenceFiles, type LedgerVariable } from '../../../server/migration/ledger.js';
import { DEFAULT_REFERENCE, REFERENCE_DIR } from '../../../server/migration/reference.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import { bundledOutput } from '../../support/app.js';

// The migration ledger behind GET /v1/admin/validation/migration: the variables the bundled
// partner households request and send, whether the mapping tables cover them, demand weights,
// and the states with a package. No bundled demand data means no ledger (404).

const catalog = () => Catalog.load(bundledOutput(), 'compiled');
const find = (ledger: Record<string, unknown>, name: string, direction: string) => (ledger.variables as LedgerVariable[]).find((v) => v.name === name && v.direction === direction);

describe('the migration ledger', () => {
  it('reads the bundled reference households as demand data', () => {
    expect(referenceFiles(REFERENCE_DIR)).toEqual([DEFAULT_REFERENCE]);
    expect(referenceFiles(path.join(tmpdir(), 'no-such-ledger-dir'))).toEqual([]);
  });

  it('marks every demanded variable mapped or awaiting, with its weight and our names', () => {
    const ledger = buildLedger([DEFAULT_REFERENCE], catalog());
    expect(find(ledger, 'snap', 'output')).toEqual({ name: 'snap', entity: 'spm_units', direction: 'output', status: 'mapped', demand_weight: 1, households: 90, maps_to: ['snap_allotment'] });
    expect(find(ledger, 'employment_income', 'input')).toMatchObject({ status: 'mapped', maps_to: ['snap_earned_income'] });
    expect(find(ledger, 'is_disabled', 'input')).toMatchObject({ status: 'mapped', maps_to: [], note: expect.stringContaining('7 USC 2012(j)') });
    expect(find(ledger, 'state_code', 'input')).toMatchObject({ status: 'mapped', note: 'selects the state package' });
    const states = ledger.states as { state: string; jurisdiction: string; program_id: string; runtime_id: string; status: string; tables: string[] }[];
    expect(states.map((s) => [s.state, s.jurisdiction, s.program_id, s.status, s.tables])).toEqual([
      ['CA', 'us-ca', 'ca-snap', 'covered', ['bundled federal', 'bundled CA']],
      ['CO', 'us-co', 'co-snap', 'covered', ['bundled federal', 'bundled CO']],
      ['NY', 'us-ny', 'ny-snap', 'covered', ['bundled federal', 'bundled NY']],
    ]);
    for (const s of states) expect(s.runtime_id).toMatch(new RegExp(`^${s.jurisdiction}/${s.program_id}@`));
    const weights = (ledger.variables as LedgerVariable[]).map((v) => v.demand_weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
  });

  it('lists a variable no table covers as awaiting', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rules-ledger-'));
    const file = path.join(dir, 'demand.json');
    writeFileSync(
      file,
      JSON.stringify({
        engine: 'policyengine-us',
        engine_version: '1.817.0',
        period: '2026-01',
        households: [
          { id: 'h1', situation: { people: { p: { age: { 2026: 30 }, wic: { '2026-01': null } } }, spm_units: { s: { members: ['p'], snap: { '2026-01': null } } } }, expected: { snap: 0 } },
          { id: 'h2', situation: { people: { p: { age: { 2026: 40 } } }, spm_units: { s: { members: ['p'], school_meal_subsidy: { 2026: 5 } } } }, expected: { snap: 0 } },
        ],
      }),
    );
    const ledger = buildLedger([file], catalog());
    expect(find(ledger, 'wic', 'output')).toMatchObject({ status: 'awaiting', demand_weight: 0.5, maps_to: [] });
    expect(find(ledger, 'school_meal_subsidy', 'input')).toMatchObject({ status: 'awaiting', households: 1 });
    expect(ledger.totals).toMatchObject({ awaiting: 2 });
  });
});
