import type { CalculateRequest } from '../../compiler/4-package/package-types.js';
import type { CalculateResponse } from '../calculation.js';
import { ApiError } from '../errors.js';
import type { Catalog } from '../catalog/catalog.js';
import { applyTable, refOf, WireValueError } from './apply-table.js';
import type { CorpusVersion, InputMapping, MappingTable, OutputMapping, TableFamily } from './mapping.js';
import { inputName, mappingIndex, TABLE_FAMILIES, type PackageMapping } from './package-mapping.js';
import { ENTITY_GROUPS, isObj, membersOf, periodOf, STRUCTURAL_KEYS, valueIn, type EntityGroup, type WireHousehold } from './wire.js';

// The migration-only household endpoint: an external engine's household (PolicyEngine-US's
// wire format) computed by our state SNAP packages through the mapping tables. Every null
// value is a request; every other value is an input, and an input no table uses is reported
// in `ignored_inputs`, so nothing is dropped in silence; a package input the answer read that no
// variable of the household fed is in `assumed_inputs`, with the variables that would have fed it.

export class MigrationError extends Error {
  constructor(
    readonly status: 400 | 422 | 502,
    message: string,
    readonly sidecar?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface WireRef {
  entity_group: string;
  entity_id: string;
  variable: string;
}
export interface Computed extends WireRef {
  period: string;
  value: unknown;
  /** The package rule (legal id) that computed it, or the package input whose value the table fed. */
  rule?: string;
  input?: string;
}
export interface Unsupported extends WireRef {
  period: string;
  reason: string;
  /**
   * `not_in_package`: the state's package has no rule for the variable (the ledger lists them per
   * package); `package_error`: a rule of the package fails for this household.
   */
  code?: 'not_in_package' | 'package_error';
}
export interface IgnoredInput extends WireRef {
  reason: string;
}
/**
 * A package input the answer read at its default because nothing in the household fed it, or
 * fed from the external engine's own default for a variable the household does not give.
 */
export interface AssumedInput {
  /** The SPM unit and month calculated. */
  spm_unit: string;
  period: string;
  input: string;
  legal_id: string | null;
  entity: string | null;
  entity_id: string | null;
  value: unknown;
  /** The external variables (`group.variable`) the mapping table feeds it from; empty when none can. */
  fed_by: string[];
  /** Fed from this external variable's own default (the household does not give it): the value the external engine takes too. */
  engine_default?: { variable: string; value: unknown };
  /** Given by the mapping table for every household, and why (the external engine's model holds it with no variable for it). */
  presumed?: string;
}
/** A value given under a package input's own name, which the external engine does not have. */
export interface OwnInput extends WireRef {
  input: string;
  note?: string;
}

export interface MigrationResult {
  result: WireHousehold;
  computed: Computed[];
  unsupported: Unsupported[];
  ignored_inputs: IgnoredInput[];
  assumed_inputs: AssumedInput[];
  own_inputs: OwnInput[];
  warnings: string[];
  /** Each package that answered, with the mapping tables that fed it and the corpus version they were written against. */
  packages: { program_id: string; jurisdiction: string; runtime_id: string; tables: string[]; corpus: CorpusVersion }[];
  periods: string[];
  /** Per calculated unit and month: the package's full answer and the request it came from. */
  calculations: { unit: string; month: string; request: CalculateRequest; response: CalculateResponse }[];
}

const STATE_NAMES: Record<string, string> = {
  alabama: 'AL', alaska: 'AK', arizona: 'AZ', arkansas: 'AR', california: 'CA', colorado: 'CO', connecticut: 'CT', delaware: 'DE', 'district of columbia': 'DC', florida: 'FL',
  georgia: 'GA', hawaii: 'HI', idaho: 'ID', illinois: 'IL', indiana: 'IN', iowa: 'IA', kansas: 'KS', kentucky: 'KY', louisiana: 'LA', maine: 'ME', maryland: 'MD',
  massachusetts: 'MA', michigan: 'MI', minnesota: 'MN', mississippi: 'MS', missouri: 'MO', montana: 'MT', nebraska: 'NE', nevada: 'NV', 'new hampshire': 'NH',
  'new jersey': 'NJ', 'new mexico': 'NM', 'new york': 'NY', 'north carolina': 'NC', 'north dakota': 'ND', ohio: 'OH', oklahoma: 'OK', oregon: 'OR', pennsylvania: 'PA',
  'rhode island': 'RI', 'south carolina': 'SC', 'south dakota': 'SD', tennessee: 'TN', texas: 'TX', utah: 'UT', vermont: 'VT', virginia: 'VA', washington: 'WA',
  'west virginia': 'WV', wisconsin: 'WI', wyoming: 'WY',
};
const STATE_CODES = new Set(Object.values(STATE_NAMES));

/** A state's name from its two-letter code (`GA` → `Georgia`). */
export function stateName(code: string): string | undefined {
  const name = Object.entries(STATE_NAMES).find(([, c]) => c === code.toUpperCase())?.[0];
  return name?.replace(/\b[a-z]/g, (ch) => ch.toUpperCase()).replace(/\bOf\b/, 'of');
}
/** Household variables that place the household; read by the endpoint itself, not by a table. */
const PLACE_VARIABLES = ['state_code', 'state_name', 'state_code_str'];

/** A state's two-letter code from an enum key (`CO`), a name (`Colorado`) or a code string. */
function stateCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (STATE_CODES.has(v.toUpperCase())) return v.toUpperCase();
  return STATE_NAMES[v.toLowerCase()];
}

export interface MigrationOptions {
  /** The table families to map with (default: every corpus the project has tables for). */
  families?: TableFamily[];
  calculate: (request: CalculateRequest) => CalculateResponse;
}

const tablesOf = (families: TableFamily[]) => families.flatMap((f) => [f.federal, ...f.states]);

export function runMigration(body: unknown, catalog: Catalog, options: MigrationOptions): MigrationResult {
  const families = options.families ?? TABLE_FAMILIES;
  const index = mappingIndex(catalog, families);
  const allOutputs = new Set(tablesOf(families).flatMap((t) => t.outputs.map((o) => o.variable)));
  if (!isObj(body) || !isObj(body.household)) throw new MigrationError(400, 'the body must be {household: {...}}');
  if ('axes' in body || 'axes' in body.household) throw new MigrationError(400, '`axes` are not supported by this endpoint');
  const unknownGroups = Object.keys(body.household).filter((g) => !(ENTITY_GROUPS as readonly string[]).includes(g));
  if (unknownGroups.length) throw new MigrationError(400, `household.${unknownGroups[0]}: not an entity group (groups: ${ENTITY_GROUPS.join(', ')})`);
  const household = structuredClone(body.household) as WireHousehold;
  for (const group of ENTITY_GROUPS) {
    const entities = household[group];
    if (entities === undefined) continue;
    if (!isObj(entities)) throw new MigrationError(400, `household.${group} must map entity ids to variables`);
    for (const [id, entity] of Object.entries(entities)) if (!isObj(entity)) throw new MigrationError(400, `household.${group}.${id} must be an object of variables`);
  }
  const usedTables: MappingTable[] = [];
  const out: MigrationResult = { result: household, computed: [], unsupported: [], ignored_inputs: [], assumed_inputs: [], own_inputs: [], warnings: [], packages: [], periods: [], calculations: [] };
  const used = new Set<string>(); // group.id.variable of every input value some calculation read
  const replaced = new Map<string, string>();
  const people = household.people ?? {};

  // every null value asks for that variable in that period
  type Ask = { group: EntityGroup; id: string; variable: string; key: string };
  const asks: Ask[] = [];
  for (const group of ENTITY_GROUPS) {
    for (const [id, entity] of Object.entries(household[group] ?? {})) {
      for (const [variable, values] of Object.entries(entity)) {
        if (!isObj(values)) continue;
        for (const [key, value] of Object.entries(values)) if (value === null) asks.push({ group, id, variable, key });
      }
    }
  }

  const unsupported = (a: Ask, reason: string, code?: Unsupported['code']) =>
    out.unsupported.push({ entity_group: a.group, entity_id: a.id, variable: a.variable, period: a.key, reason, ...(code ? { code } : {}) });
  // asks grouped by (unit, month), so each unit is calculated once per month
  const work = new Map<string, { unit: string; month: string; asks: { ask: Ask; annual: boolean; output: OutputMapping }[]; mapping: PackageMapping }>();
  for (const ask of asks) {
    const period = periodOf(ask.key);
    if (!period) {
      unsupported(ask, `period key ${ask.key} is neither YYYY nor YYYY-MM`);
      continue;
    }
    if (ask.group !== 'spm_units' || !allOutputs.has(ask.variable)) {
      unsupported(ask, `no mapping for ${ask.group}.${ask.variable}: the service computes ${[...allOutputs].join(', ')} on spm_units`);
      continue;
    }
    const unit = household.spm_units![ask.id];
    const members = membersOf(unit) ?? Object.keys(people);
    const missing = members.find((m) => !isObj(people[m]));
    if (missing) throw new MigrationError(400, `household.spm_units.${ask.id}.members lists ${missing}, which is not in household.people`);
    const owner = Object.entries(household.households ?? {}).find(([, h]) => {
      const hm = membersOf(h);
      return !hm || hm.some((m) => members.includes(m));
    });
    const state = owner && PLACE_VARIABLES.map((v) => stateCode(valueIn(owner[1][v], period.month)?.value)).find(Boolean);
    if (!state) {
      unsupported(ask, 'no state on the household (households.*.state_code or state_name)');
      continue;
    }
    const mapping = index.byState.get(state);
    if (!mapping) {
      unsupported(ask, `no executable package for the state ${state} (none serves us-${state.toLowerCase()}/${state.toLowerCase()}-snap)`);
      continue;
    }
    const answer = mapping.outputs.get(ask.variable);
    if (!answer) {
      const tables = mapping.tables.map((t) => t.name).join(' and ');
      unsupported(ask, `${mapping.jurisdiction}/${mapping.program_id} has no rule for ${ask.variable}: ${describeUnanswered(mapping, ask.variable) ?? `the ${tables} tables do not map it`}`, 'not_in_package');
      continue;
    }
    const output = answer.output;
    const key = `${ask.id}\u0000${period.month}`;
    const entry = work.get(key) ?? { unit: ask.id, month: period.month, asks: [], mapping };
    entry.asks.push({ ask, annual: period.annual, output });
    work.set(key, entry);
    for (const v of PLACE_VARIABLES) if (valueIn(owner![1][v], period.month)) used.add(refOf('households', owner![0], v));
  }

  for (const { unit: unitId, month, asks: unitAsks, mapping } of work.values()) {
    const unit = household.spm_units![unitId];
    const members = membersOf(unit) ?? Object.keys(people);
    const householdId = Object.entries(household.households ?? {}).find(([, h]) => !membersOf(h) || membersOf(h)!.some((m) => members.includes(m)))?.[0];
    usedTables.push(...mapping.tables.filter((t) => !usedTables.includes(t)));
    let mapped;
    try {
      mapped = applyTable(mapping, household, { id: unitId, entity: unit, members, householdId }, month);
    } catch (err) {
      if (err instanceof WireValueError) throw new MigrationError(400, `household.${err.message}`);
      throw err;
    }
    mapped.used.forEach((ref) => used.add(ref));
    mapped.replaced.forEach((why, ref) => replaced.set(ref, why));
    const ruleOf = (variable: string) => {
      const answer = mapping.outputs.get(variable)!;
      return 'rule' in answer ? answer.rule : undefined;
    };
    const rules = unitAsks.map((a) => ruleOf(a.ask.variable)).filter((r): r is string => r !== undefined);
    const request: CalculateRequest = { program_id: mapping.program_id, jurisdiction: mapping.jurisdiction, household: mapped.household, variables: [...new Set(rules)] };
    let response: CalculateResponse;
    try {
      response = options.calculate(request);
    } catch (err) {
      // a required input the household does not give leaves these values uncomputed; any other
      // household error (an impossible size, a bad value) fails the request with 400
      if (err instanceof ApiError && err.code === 'invalid_household' && /required input `\w+` is missing/.test(err.message)) {
        const reason = explainHouseholdError(err.message, mapping, mapped.sources);
        for (const { ask } of unitAsks) unsupported(ask, reason);
        continue;
      }
      // a rule of the package that fails for this household (a division by zero at its inputs)
      // leaves its values uncomputed, said with the failure; running out of time fails the request
      if (err instanceof ApiError && err.code === 'runtime_error' && !/time limit/.test(err.message)) {
        for (const { ask } of unitAsks) unsupported(ask, `${mapping.jurisdiction}/${mapping.program_id} cannot compute this household: ${err.message}`, 'package_error');
        continue;
      }
      throw err;
    }
    out.calculations.push({ unit: unitId, month, request, response });
    const fedBy = (input: string) => [...new Set(mapping.inputs.filter((r) => r.input.name === input).map((r) => `${r.row.entity}.${r.row.variable}`))];
    for (const a of response.assumptions) {
      // the period is the one asked for, never assumed here
      if (a.input === 'period') continue;
      out.assumed_inputs.push({ spm_unit: unitId, period: month, input: a.input, legal_id: a.legal_id, entity: a.entity, entity_id: a.entity_id, value: a.value, fed_by: fedBy(a.input) });
    }
    for (const p of mapped.presumed) {
      out.assumed_inputs.push({ spm_unit: unitId, period: month, input: p.input, legal_id: p.legal_id, entity: p.entity, entity_id: p.entity_id, value: p.value, fed_by: [], presumed: p.reason });
    }
    for (const d of mapped.defaults) {
      out.assumed_inputs.push({ spm_unit: unitId, period: month, input: d.input, legal_id: d.legal_id, entity: d.entity, entity_id: d.entity_id, value: d.value, fed_by: fedBy(d.input), engine_default: { variable: d.variable, value: d.value } });
    }
    for (const { ask, annual, output } of unitAsks) {
      const answer = mapping.outputs.get(ask.variable)!;
      const raw = 'rule' in answer ? response.outputs[answer.rule] : (mapped.facts[answer.input] ?? inputDefault(mapping, answer.input) ?? 0);
      const value = annual && output.kind === 'amount' ? Math.round(Number(raw) * 12 * 100) / 100 : raw;
      (household.spm_units![unitId][ask.variable] as Record<string, unknown>)[ask.key] = value;
      out.computed.push({ entity_group: 'spm_units', entity_id: unitId, variable: ask.variable, period: ask.key, value, ...('rule' in answer ? { rule: answer.rule } : { input: answer.input }) });
      if (!out.periods.includes(ask.key)) out.periods.push(ask.key);
    }
    out.warnings.push(...[...mapped.warnings, ...response.warnings].filter((w) => !out.warnings.includes(w)));
    if (!out.packages.some((p) => p.runtime_id === response.runtime.id)) {
      out.packages.push({ program_id: mapping.program_id, jurisdiction: mapping.jurisdiction, runtime_id: response.runtime.id, tables: mapping.tables.map((t) => t.name), corpus: mapping.family.corpus });
    }
  }

  if (out.computed.length === 0 && out.unsupported.some((u) => u.reason.startsWith('no executable package'))) {
    throw new MigrationError(422, "no executable package for the program in the household's state", { unsupported: out.unsupported });
  }
  const tables = usedTables.length ? usedTables : tablesOf(families);
  out.ignored_inputs = ignoredInputs(body.household as WireHousehold, asks.length > 0, used, replaced, tables, [...work.values()].map((w) => w.mapping));
  out.own_inputs = ownInputs(body.household as WireHousehold, used, tables);
  return out;
}

/** A package input's default, for an output the package answers with an input nothing fed. */
function inputDefault(mapping: PackageMapping, input: string): unknown {
  return mapping.loaded.pkg.entities.find((e) => e.entity === mapping.main.entity)?.inputs.find((i) => i.name === input)?.default;
}

/** Why a mapped output is not answered here: the rule the tables name, which this package lacks. */
function describeUnanswered(mapping: PackageMapping, variable: string): string | undefined {
  const missing = mapping.unanswered.find((u) => u.output.variable === variable);
  return missing ? `the ${missing.table} table answers it with ${missing.output.name}, which this package does not have` : undefined;
}

function ownInputs(household: WireHousehold, used: Set<string>, tables: MappingTable[]): OwnInput[] {
  const own = new Map<string, InputMapping>(tables.flatMap((t) => t.inputs.filter((r) => r.own).map((r) => [`${r.entity}.${r.variable}`, r] as const)));
  const found: OwnInput[] = [];
  for (const group of ENTITY_GROUPS) {
    for (const [id, entity] of Object.entries(household[group] ?? {})) {
      for (const variable of Object.keys(entity)) {
        const row = own.get(`${group}.${variable}`);
        if (row && used.has(refOf(group, id, variable))) found.push({ entity_group: group, entity_id: id, variable, input: inputName(row.input), ...(row.note ? { note: row.note } : {}) });
      }
    }
  }
  return found;
}

/** A missing package input named by the external variables that would have supplied it. */
function explainHouseholdError(message: string, mapping: PackageMapping, sources: Map<string, string[]>): string {
  const input = /`(\w+)`/.exec(message)?.[1];
  const feeders = input ? mapping.inputs.filter((r) => r.input.name === input).map((r) => `${r.row.entity}.${r.row.variable}`) : [];
  const given = input ? sources.get(input) : undefined;
  return feeders.length && !given ? `${message}; it comes from ${[...new Set(feeders)].join(' or ')}, which the household does not give` : message;
}

function ignoredInputs(household: WireHousehold, asked: boolean, used: Set<string>, replaced: Map<string, string>, tables: MappingTable[], mappings: PackageMapping[]): IgnoredInput[] {
  const resolved = new Set<string>(mappings.flatMap((m) => m.inputs.map((r) => `${r.row.entity}.${r.row.variable}`)));
  const mapped = new Set<string>(tables.flatMap((t) => t.inputs.map((r) => `${r.entity}.${r.variable}`)));
  /** A variable the tables map only to inputs the calculated packages do not read. */
  const notRead = (kind: string) => {
    if (resolved.has(kind) || !mappings.length) return undefined;
    const rows = mappings.flatMap((m) => m.unresolved.filter((u) => `${u.row.entity}.${u.row.variable}` === kind).map((u) => ({ ...u, pkg: `${m.jurisdiction}/${m.program_id}` })));
    return rows.length ? `the ${rows[0].table} table feeds it to ${[...new Set(rows.map((r) => r.row.input))].join(', ')}, which ${rows[0].pkg} does not read` : undefined;
  };
  const unusedReasons = new Map<string, string>(tables.flatMap((t) => t.unused.map((u) => [`${u.entity}.${u.variable}`, u.reason] as const)));
  const outputs = new Set(tables.flatMap((t) => t.outputs.map((o) => o.variable)));
  const ignored: IgnoredInput[] = [];
  for (const group of ENTITY_GROUPS) {
    for (const [id, entity] of Object.entries(household[group] ?? {})) {
      for (const [variable, values] of Object.entries(entity)) {
        if (STRUCTURAL_KEYS.has(variable)) continue;
        const ref = refOf(group, id, variable);
        const given = isObj(values) ? Object.values(values).some((v) => v !== null) : values !== null;
        if (!given || used.has(ref)) continue;
        const kind = `${group}.${variable}`;
        const reason = !asked
          ? 'nothing was requested (no variable has a null value to compute)'
          : replaced.get(ref) ??
            unusedReasons.get(kind) ??
            (outputs.has(variable) ? 'an output: only a null value asks for it, a given value is not used' : undefined) ??
            notRead(kind) ??
            (mapped.has(kind)
              ? 'not read: the entity is not part of a calculated unit, or the value is not for a calculated period'
              : `no mapping for ${kind} in the SNAP tables`);
        ignored.push({ entity_group: group, entity_id: id, variable, reason });
      }
    }
  }
  return ignored;
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
