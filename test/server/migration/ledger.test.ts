import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLedger, referenceFiles, type LedgerVariable } from '../../../server/migration/ledger.js';
import { DEFAULT_REFERENCE, REFERENCE_DIR } from '../../../server/migration/reference.js';
import { Catalog } from '../../../server/catalog/catalog.js';
import { bundledOutput } from '../../support/app.js';
import { SNAP_STATES, snapCorpusOutput } from '../../support/corpus.js';
import { HAVE_CORPUS } from '../../support/paths.js';

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

describe.runIf(HAVE_CORPUS)('the ledger per state package of a served corpus', () => {
  type StatePackage = {
    state: string;
    status: string;
    tables: string[];
    corpus: { repo: string; commit: string };
    mapped_inputs: { variable: string; entity: string; feeds: { input: string; legal_id: string; via?: string }[] }[];
    mapped_outputs: { variable: string; rule?: string; input?: string }[];
    unanswered_outputs: { variable: string; reason: string }[];
    unfed_inputs: { input: string; entity: string; legal_id: string; default: unknown }[];
    totals: { inputs: number; fed: number; unfed: number };
  };
  const states = () => buildLedger([DEFAULT_REFERENCE], Catalog.load(snapCorpusOutput(), 'compiled')).states as StatePackage[];

  it('lists every state SNAP package served, with the tables that map onto it and the corpus version they were written for', () => {
    const all = states();
    expect(all.map((s) => s.state)).toEqual(SNAP_STATES);
    for (const s of all) {
      expect(s.status).toBe('covered');
      expect(s.tables[0]).toBe('rulespec-us federal');
      expect(s.corpus).toEqual({ repo: 'TheAxiomFoundation/rulespec-us', commit: 'c55778119c0dd208a5ea3366092a17d0b0392c8b' });
      expect(s.totals.fed + s.totals.unfed).toBe(s.totals.inputs);
    }
    expect(all.find((s) => s.state === 'FL')!.tables).toEqual(['rulespec-us federal']);
    expect(all.find((s) => s.state === 'GA')!.tables).toEqual(['rulespec-us federal', 'rulespec-us GA']);
  });

  it("Georgia: the variables mapped (through the state's binding where it has one), the outputs it has no rule for, the inputs nothing feeds", () => {
    const ga = states().find((s) => s.state === 'GA')!;
    expect(ga.mapped_inputs).toContainEqual({ variable: 'employment_income', entity: 'people', feeds: expect.arrayContaining([{ input: 'snap_gross_monthly_earned_income', legal_id: expect.stringMatching(/#input\.snap_gross_monthly_earned_income$/) }]) });
    expect(ga.mapped_inputs).toContainEqual({ variable: 'housing_cost', entity: 'spm_units', feeds: [{ input: 'monthly_allowable_shelter_costs', legal_id: expect.any(String), via: 'us-ga:programs/snap/2026-01#snap_total_allowable_shelter_expenses' }] });
    expect(ga.mapped_inputs).toContainEqual(expect.objectContaining({ variable: 'childcare_expenses', feeds: expect.arrayContaining([expect.objectContaining({ input: 'monthly_dependent_care_costs_incurred_or_billed_to_au' })]) }));
    expect(ga.mapped_outputs).toContainEqual({ variable: 'snap', rule: 'us-ga:programs/snap/2026-01#snap_benefit' });
    expect(ga.unanswered_outputs).toContainEqual({ variable: 'snap_utility_allowance', reason: 'no table maps it onto a rule of this package' });
    const unfed = ga.unfed_inputs.map((i) => i.input);
    expect(unfed).toEqual(expect.arrayContaining(['claimed_allowable_shelter_expense_amount', 'dependent_care_expense_information_appears_questionable']));
    expect(unfed).not.toContain('monthly_allowable_shelter_costs');
    expect(ga.totals.unfed).toBeGreaterThan(200);
  });
});
