import type { CalculateRequest, RuntimePackage } from '../../compiler/4-package/package-types.js';
import type { InputMapping, MappingTable } from './mapping.js';
import { isObj, valueIn, type EntityGroup, type WireHousehold } from './wire.js';

// One SPM unit of an external household turned into a CalculateRequest household for the
// unit's state package, by its mapping table. Every external value the table reads is
// recorded as used; a component that an aggregate replaced is recorded with the reason.

export class WireValueError extends Error {}

/** `group.entity_id.variable` */
export const refOf = (group: EntityGroup, id: string, variable: string) => `${group}.${id}.${variable}`;

export interface MappedUnit {
  household: CalculateRequest['household'];
  /** Every external value the request was built from. */
  used: Set<string>;
  /** External values read but replaced by their aggregate, with why. */
  replaced: Map<string, string>;
  /** Each package input set, with the external variables it came from. */
  sources: Map<string, string[]>;
}

interface Unit {
  id: string;
  entity: Record<string, unknown>;
  members: string[];
  householdId: string | undefined;
}

/** A number read from the wire; a yearly amount read for one month is divided by 12. */
function amount(found: { value: unknown; yearly: boolean }, ref: string): number {
  const { value } = found;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new WireValueError(`${ref}: must be a number, got ${JSON.stringify(value)}`);
  return found.yearly ? value / 12 : value;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function applyTable(table: MappingTable, pkg: RuntimePackage, wire: WireHousehold, unit: Unit, month: string): MappedUnit {
  const used = new Set<string>();
  const replaced = new Map<string, string>();
  const sources = new Map<string, string[]>();
  const personInputs = new Set(pkg.entities.find((e) => e.entity === pkg.person_entity)?.inputs.map((i) => i.name) ?? []);
  const facts: Record<string, unknown> = { household_size: unit.members.length };
  const people: Record<string, Record<string, unknown>> = Object.fromEntries(unit.members.map((id) => [id, {}]));

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

  for (const row of table.inputs) {
    const perPerson = personInputs.has(row.input) && row.entity === 'people';
    for (const [id, entity] of entitiesOf(row)) {
      const ref = refOf(row.entity, id, row.variable);
      const found = valueIn(entity[row.variable], month);
      if (!found) continue;
      // an aggregate on the entity itself, or on its unit (a unit's housing_cost covers members' rent)
      const aggregate = row.replaced_by
        ?.map((a) => (valueIn(entity[a], month) ? refOf(row.entity, id, a) : valueIn(unit.entity[a], month) ? refOf('spm_units', unit.id, a) : undefined))
        .find(Boolean);
      if (aggregate) {
        replaced.set(ref, `replaced by ${aggregate}, which includes it`);
        continue;
      }
      used.add(ref);
      note(row.input, row.variable);
      const target = perPerson ? people[id] : facts;
      const current = target[row.input];
      switch (row.combine) {
        case 'sum':
          target[row.input] = round2(((current as number | undefined) ?? 0) + amount(found, ref));
          break;
        case 'count_positive':
          target[row.input] = ((current as number | undefined) ?? 0) + (amount(found, ref) > 0 ? 1 : 0);
          break;
        case 'any_positive':
          target[row.input] = current === true || amount(found, ref) > 0;
          break;
        case 'flag':
          if (typeof found.value !== 'boolean') throw new WireValueError(`${ref}: must be true or false, got ${JSON.stringify(found.value)}`);
          target[row.input] = current === true || found.value;
          break;
        case 'value':
          target[row.input] = found.value;
          break;
        case 'map': {
          const key = found.value;
          const mapped = typeof key === 'string' ? (row.values?.[key] ?? (row.otherwise && key.endsWith(row.otherwise.suffix) ? row.otherwise.value : undefined)) : undefined;
          if (mapped === undefined) {
            used.delete(ref);
            replaced.set(ref, `${JSON.stringify(key)} is not a value this table knows for ${row.input}`);
          } else target[row.input] = mapped;
          break;
        }
        case 'all_members_positive':
          break; // decided over the whole unit below
      }
    }
    if (row.combine === 'all_members_positive') {
      const values = unit.members.map((id) => {
        const found = valueIn((wire.people?.[id] as Record<string, unknown> | undefined)?.[row.variable], month);
        if (found) used.add(refOf('people', id, row.variable));
        return found ? amount(found, refOf('people', id, row.variable)) : 0;
      });
      if (values.some((v) => v > 0)) note(row.input, row.variable);
      facts[row.input] = facts[row.input] === true || (values.length > 0 && values.every((v) => v > 0));
    }
  }
  for (const id of unit.members) if (!isObj(wire.people?.[id])) delete people[id];
  return { household: { period: month, facts, people }, used, replaced, sources };
}
