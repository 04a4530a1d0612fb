import type { CalculateRequest } from '../compiler/4-package/package-types.js';
import { deriveProgramId } from '../compiler/4-package/program-id.js';
import type { CalculateResponse } from './calculation.js';
import { ApiError } from './errors.js';
import type { Catalog } from './runtime/catalog.js';

// The migration-only household endpoint: an external household-calculation engine's wire
// format (entity groups whose variables map period keys to values; null means "compute")
// mapped onto our state SNAP packages. Mapping (documented in the OpenAPI description):
//   snap (spm_units)                        ← the state package's snap_allotment (monthly);
//                                              a bare-year key gives the monthly value × 12
//   people.age                              → age
//   people.is_disabled                      → snap_member_is_disabled
//   people.employment_income, self_employment_income            → snap_earned_income
//   people.social_security, ssi, unemployment_compensation, pension_income,
//     child_support_received, tanf          → snap_unearned_income
//   people.child_support_expense            → snap_child_support_paid
//   people.medical_out_of_pocket_expenses   → snap_elderly_or_disabled_medical_expenses
//   spm_units.housing_cost (or rent)        → snap_shelter_costs
//   spm_units.childcare_expenses            → snap_dependent_care_costs
// Yearly amounts (bare-year keys) are divided by 12; monthly keys are taken as they are.

export class MigrationError extends Error {
  constructor(
    readonly status: 400 | 422 | 502,
    message: string,
    readonly sidecar?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const ENTITY_GROUPS = ['people', 'tax_units', 'spm_units', 'families', 'households', 'marital_units'] as const;

const STATES: Record<string, string> = {
  alabama: 'AL', alaska: 'AK', arizona: 'AZ', arkansas: 'AR', california: 'CA', colorado: 'CO', connecticut: 'CT', delaware: 'DE', 'district of columbia': 'DC', florida: 'FL',
  georgia: 'GA', hawaii: 'HI', idaho: 'ID', illinois: 'IL', indiana: 'IN', iowa: 'IA', kansas: 'KS', kentucky: 'KY', louisiana: 'LA', maine: 'ME', maryland: 'MD',
  massachusetts: 'MA', michigan: 'MI', minnesota: 'MN', mississippi: 'MS', missouri: 'MO', montana: 'MT', nebraska: 'NE', nevada: 'NV', 'new hampshire': 'NH',
  'new jersey': 'NJ', 'new mexico': 'NM', 'new york': 'NY', 'north carolina': 'NC', 'north dakota': 'ND', ohio: 'OH', oklahoma: 'OK', oregon: 'OR', pennsylvania: 'PA',
  'rhode island': 'RI', 'south carolina': 'SC', 'south dakota': 'SD', tennessee: 'TN', texas: 'TX', utah: 'UT', vermont: 'VT', virginia: 'VA', washington: 'WA',
  'west virginia': 'WV', wisconsin: 'WI', wyoming: 'WY',
};

const PERSON_SUMS: Record<string, string[]> = {
  snap_earned_income: ['employment_income', 'self_employment_income'],
  snap_unearned_income: ['social_security', 'ssi', 'unemployment_compensation', 'pension_income', 'child_support_received', 'tanf'],
  snap_child_support_paid: ['child_support_expense'],
  snap_elderly_or_disabled_medical_expenses: ['medical_out_of_pocket_expenses'],
};
const UNIT_SUMS: Record<string, string[]> = { snap_shelter_costs: ['housing_cost', 'rent'], snap_dependent_care_costs: ['childcare_expenses'] };
const COVERED: Record<string, string> = { snap: 'snap_allotment' };

type Group = Record<string, Record<string, unknown>>;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Period {
  key: string;
  month: string;
  annual: boolean;
}

function periodOf(key: string): Period | undefined {
  if (/^\d{4}$/.test(key)) return { key, month: `${key}-01`, annual: true };
  if (/^\d{4}-(0[1-9]|1[0-2])$/.test(key)) return { key, month: key, annual: false };
  return undefined;
}

/** A variable's monthly amount in a period (a yearly figure is divided by 12). */
function monthly(variables: Record<string, unknown>, name: string, period: Period): number {
  const values = variables[name];
  if (!isObj(values)) return 0;
  const direct = values[period.key] ?? values[period.month] ?? values[period.month.slice(0, 4)];
  if (direct === null || direct === undefined) return 0;
  if (typeof direct !== 'number' || !Number.isFinite(direct)) throw new MigrationError(400, `${name}: values must be numbers, got ${JSON.stringify(direct)}`);
  const fromYear = values[period.key] === undefined && values[period.month] === undefined;
  return period.annual || fromYear ? direct / 12 : direct;
}

function stateOf(household: Record<string, unknown>, period: Period): string | undefined {
  for (const name of ['state_code', 'state_name']) {
    const values = household[name];
    const v = isObj(values) ? (values[period.key] ?? values[period.month.slice(0, 4)] ?? Object.values(values)[0]) : values;
    if (typeof v === 'string' && v.trim()) {
      const code = name === 'state_code' ? v.trim().toUpperCase() : STATES[v.trim().toLowerCase()];
      if (code) return code;
    }
  }
  return undefined;
}

export interface MigrationResult {
  result: Record<string, unknown>;
  computed: { entity_group: string; entity_id: string; variable: string; period: string; value: unknown }[];
  unsupported: { entity_group: string; entity_id: string; variable: string; period: string; reason: string }[];
  warnings: string[];
  packages: { program_id: string; jurisdiction: string; runtime_id: string }[];
  periods: string[];
}

export function runMigration(body: unknown, catalog: Catalog, calculate: (r: CalculateRequest) => CalculateResponse): MigrationResult {
  if (!isObj(body) || !isObj(body.household)) throw new MigrationError(400, 'the body must be {household: {...}}');
  if ('axes' in body || 'axes' in body.household) throw new MigrationError(400, '`axes` are not supported by this endpoint');
  const household = structuredClone(body.household) as Record<string, Group>;
  for (const group of ENTITY_GROUPS) {
    if (household[group] !== undefined && !isObj(household[group])) throw new MigrationError(400, `household.${group} must map entity ids to variables`);
  }
  const out: MigrationResult = { result: household, computed: [], unsupported: [], warnings: [], packages: [], periods: [] };
  const people = household.people ?? {};

  // every null value is a request to compute that variable for that period
  for (const group of ENTITY_GROUPS) {
    for (const [entityId, variables] of Object.entries(household[group] ?? {})) {
      if (!isObj(variables)) throw new MigrationError(400, `household.${group}.${entityId} must be an object of variables`);
      for (const [variable, values] of Object.entries(variables)) {
        if (!isObj(values)) continue;
        for (const [key, value] of Object.entries(values)) {
          if (value !== null) continue;
          const period = periodOf(key);
          if (!period) {
            out.unsupported.push({ entity_group: group, entity_id: entityId, variable, period: key, reason: `period key ${key} is neither YYYY nor YYYY-MM` });
            continue;
          }
          if (group !== 'spm_units' || !COVERED[variable]) {
            out.unsupported.push({ entity_group: group, entity_id: entityId, variable, period: key, reason: `no mapping for ${group}.${variable}` });
            continue;
          }
          const unit = variables;
          const members = (Array.isArray(unit.members) ? unit.members : Object.keys(people)).map(String);
          const owner = Object.entries(household.households ?? {}).find(([, h]) => !Array.isArray(h.members) || (h.members as unknown[]).map(String).some((m) => members.includes(m)));
          const state = owner ? stateOf(owner[1], period) : undefined;
          if (!state) {
            out.unsupported.push({ entity_group: group, entity_id: entityId, variable, period: key, reason: 'no state on the household (households.*.state_code or state_name)' });
            continue;
          }
          const jurisdiction = `us-${state.toLowerCase()}`;
          // the state's SNAP package, named by the program id rule (us-co → co-snap)
          const programId = deriveProgramId(jurisdiction, 'snap');
          const pkg = catalog.package(jurisdiction, programId);
          if (!pkg) {
            out.unsupported.push({ entity_group: group, entity_id: entityId, variable, period: key, reason: `no executable package for the state ${state} (${jurisdiction}/${programId})` });
            continue;
          }
          const request = toCalculateRequest(members, people, unit, period, jurisdiction, programId);
          const response = calculate(request);
          const benefit = Number(response.outputs[COVERED[variable]] ?? 0);
          const result = period.annual ? Math.round(benefit * 12 * 100) / 100 : benefit;
          (values as Record<string, unknown>)[key] = result;
          out.computed.push({ entity_group: group, entity_id: entityId, variable, period: key, value: result });
          out.warnings.push(...response.warnings);
          if (!out.packages.some((p) => p.runtime_id === response.runtime.id)) out.packages.push({ program_id: programId, jurisdiction, runtime_id: response.runtime.id });
          if (!out.periods.includes(key)) out.periods.push(key);
        }
      }
    }
  }
  if (out.computed.length === 0 && out.unsupported.some((u) => u.reason.startsWith('no executable package'))) {
    throw new MigrationError(422, 'no executable package for the program in the household\'s state', { unsupported: out.unsupported });
  }
  return out;
}

function toCalculateRequest(members: string[], people: Group, unit: Record<string, unknown>, period: Period, jurisdiction: string, programId: string): CalculateRequest {
  const facts: Record<string, number> = { household_size: Math.max(1, members.length) };
  for (const [input, names] of Object.entries(PERSON_SUMS)) facts[input] = members.reduce((sum, id) => sum + names.reduce((s, n) => s + monthly(people[id] ?? {}, n, period), 0), 0);
  for (const [input, names] of Object.entries(UNIT_SUMS)) facts[input] = names.reduce((s, n) => s + monthly(unit, n, period), 0);
  const personOf = (id: string) => {
    const p = people[id] ?? {};
    const ageValues = p.age;
    const age = isObj(ageValues) ? Object.values(ageValues).find((v) => typeof v === 'number') : undefined;
    const disabled = isObj(p.is_disabled) ? Object.values(p.is_disabled).some((v) => v === true) : false;
    return { ...(typeof age === 'number' ? { age } : {}), snap_member_is_disabled: disabled };
  };
  return {
    program_id: programId,
    jurisdiction,
    household: { period: period.month, facts, people: Object.fromEntries(members.map((id) => [id, personOf(id)])) },
    variables: ['snap_allotment'],
  };
}

export function toMigrationError(err: unknown): MigrationError {
  if (err instanceof MigrationError) return err;
  if (err instanceof ApiError) {
    if (err.code === 'invalid_household' || err.code === 'invalid_request') return new MigrationError(400, err.message);
    if (err.code === 'unsupported_program') return new MigrationError(422, err.message);
    if (err.code === 'runtime_error') return new MigrationError(502, err.message);
  }
  return new MigrationError(502, 'the calculation engine failed');
}
