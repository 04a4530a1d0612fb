import type { CalculateRequest } from '../../compiler/4-package/package-types.js';
import type { Condition, InputMapping } from './mapping.js';
import type { PackageMapping, ResolvedInput } from './package-mapping.js';
import { isObj, valueIn, type EntityGroup, type WireHousehold } from './wire.js';

// One SPM unit of an external household turned into a CalculateRequest household for the
// unit's state package, by the package's resolved mapping tables: the household's own inputs on
// the package's main entity, each member's on every entity the package relates to it (a person
// and a SNAP member alike). Every external value a row reads is recorded as used; a component
// that an aggregate replaced is recorded with the reason; an input fed from the external
// engine's own default for a variable the household does not give is recorded as such.

export class WireValueError extends Error {}

/** `group.entity_id.variable` */
export const refOf = (group: EntityGroup, id: string, variable: string) => `${group}.${id}.${variable}`;

/** A package input fed from the external engine's default for a variable the household does not give. */
export interface EngineDefault {
  input: string;
  legal_id: string;
  entity: string;
  entity_id: string;
  /** `group.variable` of the external variable, and its default. */
  variable: string;
  value: unknown;
}

/** A package input given the table's presumption. */
export interface Presumed {
  input: string;
  legal_id: string;
  entity: string;
  entity_id: string;
  value: unknown;
  reason: string;
}

export interface MappedUnit {
  household: CalculateRequest['household'];
  /** Every external value the request was built from. */
  used: Set<string>;
  /** External values read but replaced by their aggregate, with why. */
  replaced: Map<string, string>;
  /** Each package input set, with the external variables it came from. */
  sources: Map<string, string[]>;
  defaults: EngineDefault[];
  presumed: Presumed[];
  /** What the mapping could not do as the tables say, and what it did instead. */
  warnings: string[];
  /** The values given to the main entity's inputs, by input name. */
  facts: Record<string, unknown>;
}

interface Unit {
  id: string;
  entity: Record<string, unknown>;
  members: string[];
  householdId: string | undefined;
}

type Found = { value: unknown; yearly: boolean };

/** A number read from the wire; a yearly amount read for one month is divided by 12 (by 52 for a weekly input). */
function amount(found: Found, ref: string, per?: 'week'): number {
  const n = number(found, ref);
  if (per === 'week') return found.yearly ? n / 52 : (n * 12) / 52;
  return found.yearly ? n / 12 : n;
}
function number(found: Found, ref: string): number {
  const { value } = found;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new WireValueError(`${ref}: must be a number, got ${JSON.stringify(value)}`);
  return value;
}
function boolean(found: Found, ref: string): boolean {
  if (typeof found.value !== 'boolean') throw new WireValueError(`${ref}: must be true or false, got ${JSON.stringify(found.value)}`);
  return found.value;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function holds(c: Condition, found: Found | undefined, ref: string): boolean {
  if (!found) return false;
  if (c.equals !== undefined) return found.value === c.equals;
  const n = number(found, ref);
  return (c.above === undefined || n > c.above) && (c.at_least === undefined || n >= c.at_least);
}

export function applyTable(mapping: PackageMapping, wire: WireHousehold, unit: Unit, month: string): MappedUnit {
  const used = new Set<string>();
  const replaced = new Map<string, string>();
  const sources = new Map<string, string[]>();
  const defaults: EngineDefault[] = [];
  const members = unit.members.filter((id) => isObj(wire.people?.[id]));
  // the members the size counts: all, or those a flag of theirs does not exclude
  const excludes = mapping.family.federal.size_excludes;
  const counted = excludes
    ? unit.members.filter((id) => {
        const found = valueIn((wire.people?.[id] as Record<string, unknown> | undefined)?.[excludes.variable], month);
        if (found) used.add(refOf('people', id, excludes.variable));
        return !(found && boolean(found, refOf('people', id, excludes.variable)));
      })
    : unit.members;
  // a unit no member is left in still needs a size the package accepts: every member is counted,
  // and each is ineligible by the flag that excluded it
  const warnings =
    excludes && unit.members.length && !counted.length && mapping.sizeInput
      ? [`every member of ${unit.id} is excluded from the household size (${excludes.reason}); ${mapping.jurisdiction}/${mapping.program_id} takes a size of at least 1, so ${mapping.sizeInput} counts them all`]
      : [];
  const facts: Record<string, unknown> = mapping.sizeInput ? { [mapping.sizeInput]: (counted.length ? counted : unit.members).length } : {};
  const mainId = mapping.main.id;
  // entity label → id → inputs: every member is an instance of each entity related to the main
  // one, and every id carries the label entities (so their defaults are there wherever read)
  const entities: Record<string, Record<string, Record<string, unknown>>> = { [mapping.main.entity]: { [mainId]: facts } };
  for (const label of mapping.memberEntities) entities[label] = Object.fromEntries(members.map((id) => [id, {}]));
  for (const label of mapping.labelEntities) entities[label] = Object.fromEntries([mainId, ...members].map((id) => [id, {}]));

  /** The entities a row reads: the unit's members, the unit itself, or its household. */
  const entitiesOf = (row: InputMapping): [string, Record<string, unknown>][] => {
    if (row.entity === 'people') return unit.members.map((id) => [id, (wire.people?.[id] ?? {}) as Record<string, unknown>]);
    if (row.entity === 'spm_units') return [[unit.id, unit.entity]];
    const household = unit.householdId ? wire.households?.[unit.householdId] : undefined;
    return household && unit.householdId ? [[unit.householdId, household]] : [];
  };
  const note = (input: string, variable: string) => {
    const list = sources.get(input) ?? [];
    if (!list.includes(variable)) sources.set(input, [...list, variable]);
  };
  /** Per target, the running counts of `count_at_least` inputs. */
  const counts = new Map<Record<string, unknown>, Map<string, number>>();
  /** Where a row's value goes for one entity read: the member's own inputs (each member's, for a unit's variable), or the household's. */
  const targetOf = (r: ResolvedInput, id: string): Record<string, unknown>[] => {
    const byId = entities[r.entity];
    if (r.level === 'household') return [byId[mainId]];
    return r.row.entity === 'people' ? (byId[id] ? [byId[id]] : []) : members.map((m) => byId[m]);
  };

  for (const r of mapping.inputs) {
    const { row } = r;
    const name = r.input.name;
    for (const [id, entity] of entitiesOf(row)) {
      const ref = refOf(row.entity, id, row.variable);
      let found = valueIn(entity[row.variable], month);
      if (!found && row.engine_default !== undefined) {
        found = { value: row.engine_default, yearly: false };
        const [entityLabel, entityId] = [r.entity, r.level === 'household' ? mainId : id];
        if (!defaults.some((d) => d.input === name && d.entity_id === entityId)) {
          defaults.push({ input: name, legal_id: r.input.legal_id, entity: entityLabel, entity_id: entityId, variable: `${row.entity}.${row.variable}`, value: row.engine_default });
        }
      } else if (!found) continue;
      else {
        // an aggregate on the entity itself, or on its unit (a unit's housing_cost covers members' rent)
        const aggregate = row.replaced_by
          ?.map((a) => (valueIn(entity[a], month) ? refOf(row.entity, id, a) : valueIn(unit.entity[a], month) ? refOf('spm_units', unit.id, a) : undefined))
          .find(Boolean);
        if (aggregate) {
          replaced.set(ref, `replaced by ${aggregate}, which includes it`);
          continue;
        }
        if (row.when) {
          const applies = row.when.some((c) => {
            const at = valueIn(entity[c.variable], month);
            if (at) used.add(refOf(row.entity, id, c.variable));
            return holds(c, at, refOf(row.entity, id, c.variable));
          });
          if (!applies) {
            used.add(ref);
            continue;
          }
        }
        used.add(ref);
        note(name, row.variable);
      }
      for (const target of targetOf(r, id)) {
        const current = target[name];
        switch (row.combine) {
          case 'sum':
            target[name] = round2(((current as number | undefined) ?? 0) + amount(found, ref, row.per));
            break;
          case 'count_positive':
            target[name] = ((current as number | undefined) ?? 0) + (amount(found, ref) > 0 ? 1 : 0);
            break;
          case 'count_at_least': {
            const n = (counts.get(target)?.get(name) ?? 0) + (amount(found, ref) > 0 ? 1 : 0);
            (counts.get(target) ?? counts.set(target, new Map()).get(target)!).set(name, n);
            target[name] = n >= (row.threshold ?? 1);
            break;
          }
          case 'any_positive':
            target[name] = current === true || amount(found, ref) > 0;
            break;
          case 'at_least':
            target[name] = current === true || number(found, ref) >= (row.threshold ?? 0);
            break;
          case 'flag':
            if (boolean(found, ref)) target[name] = row.as ?? true;
            else if (current === undefined && row.as === undefined) target[name] = false;
            break;
          case 'not':
            target[name] = !boolean(found, ref);
            break;
          case 'value':
            target[name] = found.value;
            break;
          case 'map': {
            const key = found.value;
            const known = typeof key === 'string' && row.values && key in row.values;
            const other = typeof key === 'string' && row.otherwise && (!row.otherwise.suffix || key.endsWith(row.otherwise.suffix));
            if (known) target[name] = row.values![key as string];
            else if (other) target[name] = row.otherwise!.value;
            else {
              used.delete(ref);
              replaced.set(ref, `${JSON.stringify(key)} is not a value this table knows for ${name}`);
            }
            break;
          }
          case 'all_members_positive':
            break; // decided over the whole unit below
        }
      }
    }
    if (row.combine === 'all_members_positive') {
      const values = unit.members.map((id) => {
        const found = valueIn((wire.people?.[id] as Record<string, unknown> | undefined)?.[row.variable], month);
        if (found) used.add(refOf('people', id, row.variable));
        return found ? amount(found, refOf('people', id, row.variable)) : 0;
      });
      if (values.some((v) => v > 0)) note(name, row.variable);
      const target = entities[r.entity][mainId] ?? facts;
      target[name] = target[name] === true || (values.length > 0 && values.every((v) => v > 0));
    }
  }
  const presumed: Presumed[] = [];
  for (const p of mapping.presumed) {
    const ids = p.level === 'household' ? [mainId] : p.level === 'member' ? members : [mainId, ...members];
    for (const id of ids) {
      const target = entities[p.entity][id];
      if (!target || p.input.name in target) continue; // a value the household fed wins
      target[p.input.name] = p.presumption.value;
      presumed.push({ input: p.input.name, legal_id: p.input.legal_id, entity: p.entity, entity_id: id, value: p.presumption.value, reason: p.presumption.reason });
    }
  }
  return { household: { period: month, entities }, used, replaced, sources, defaults, presumed, warnings, facts };
}
