import type { DeclaredInput } from '../1-parse/module.js';
import type { InputInfo, Program } from '../3-lower/ir.js';
import { SCALAR_ENTITY } from '../2-resolve/namespace.js';
import type { PackageEntity, PackageInput } from './package-types.js';
import { snakeCase } from '../names.js';
import { isSizeInput, kindDefault, valueKind } from '../dtypes.js';

// The input catalogue of a package: every input slot its formulas read, grouped by entity,
// with a dtype and a default. Declarations (`inputs:` in a module) win; otherwise the dtype is
// inferred from how formulas use the input. Inputs without a default must be supplied.

export function declaredInput(program: Program, slot: string): DeclaredInput | undefined {
  return declarations(program).get(slot);
}

/** Every input a program's modules declare, the first module's declaration of each: gathered
 *  once per program (a package asks for each of its inputs, some once per member). */
const declared = new WeakMap<Program, Map<string, DeclaredInput>>();
function declarations(program: Program): Map<string, DeclaredInput> {
  let all = declared.get(program);
  if (!all) {
    all = new Map();
    for (const mod of program.modules) for (const [slot, d] of mod.declaredInputs) if (!all.has(slot)) all.set(slot, d);
    declared.set(program, all);
  }
  return all;
}

function inferDtype(info: InputInfo | undefined): string {
  const uses = info?.uses ?? new Set();
  if (uses.has('condition')) return 'Boolean';
  if (uses.has('text')) return 'Text';
  if (uses.has('date')) return 'Date';
  if (uses.has('integer') && !uses.has('number')) return 'Integer';
  return 'Decimal';
}

function defaultFor(name: string, dtype: string, info: InputInfo | undefined, declared: DeclaredInput | undefined): unknown {
  if (declared) return declared.default;
  // a size (household_size, assistance_unit_size, …) is at least 1: it has no sensible default
  if (isSizeInput(name)) return undefined;
  // a count used to index a table (household size) has no sensible default
  if (valueKind(dtype) === 'whole' && info?.uses.has('integer')) return undefined;
  return kindDefault(dtype);
}

function entityOf(info: InputInfo | undefined, declared: DeclaredInput | undefined, main: string): string {
  if (declared?.entity) return declared.entity;
  const entities = [...(info?.entities ?? [])].filter((e) => e !== SCALAR_ENTITY && e !== '');
  if (entities.includes(main) || entities.length === 0) return main;
  return entities[0];
}

export interface InputCatalogue {
  entities: PackageEntity[];
  mainEntity: string;
  personEntity: string | null;
}

export function catalogueInputs(program: Program, mainEntity: string): InputCatalogue {
  const main = mainEntity === SCALAR_ENTITY ? 'Household' : mainEntity;
  const byEntity = new Map<string, PackageInput[]>([[main, []]]);
  for (const slot of [...program.inputSlots].sort()) {
    const info = program.inputs.get(slot);
    const declared = declaredInput(program, slot);
    const dtype = declared?.dtype ?? inferDtype(info);
    const entity = entityOf(info, declared, main);
    const reader = info ? [...info.readers][0] : program.modules.find((m) => m.rules.some((r) => r.indexedBy === slot));
    const values = info?.literals.size ? [...info.literals].sort() : undefined;
    const input: PackageInput = {
      name: slot,
      dtype,
      legal_id: `${reader?.target ?? program.root.target}#input.${slot}`,
      required: false,
    };
    const dflt = defaultFor(slot, dtype, info, declared);
    if (dflt !== undefined) input.default = dflt;
    else input.required = true;
    if (declared?.unit) input.unit = declared.unit;
    if (declared?.description) input.description = declared.description;
    if (values) input.values = values;
    if (!byEntity.has(entity)) byEntity.set(entity, []);
    byEntity.get(entity)!.push(input);
  }

  const sizeInput = byEntity.get(main)!.find((i) => isSizeInput(i.name));
  const memberRelations = program.relations.filter((r) => r.kind !== 'derived');
  const entities: PackageEntity[] = [];
  let personEntity: string | null = null;
  for (const [entity, inputs] of byEntity) {
    const relations = memberRelations
      .filter((r) => (r.arguments[0] || 'Member') === entity)
      .map((r) => ({ name: r.id, tuple: [entity, r.arguments[1] || main] }));
    if (entity === main) {
      entities.unshift({ entity, id_template: snakeCase(entity), count: 1, inputs });
      continue;
    }
    if (relations.length && !personEntity) personEntity = entity;
    entities.push({
      entity,
      id_template: `${snakeCase(entity)}-{index}`,
      ...(sizeInput && relations.length ? { count_from: sizeInput.name } : {}),
      inputs,
      ...(relations.length ? { relations } : {}),
    });
  }
  // a relation whose members read no input still lets `people` populate it
  if (!personEntity) {
    const rel = memberRelations.find((r) => r.arguments[1] === main || !r.arguments[1]);
    if (rel) {
      personEntity = rel.arguments[0] || 'Person';
      const relation = { name: rel.id, tuple: [personEntity, main] };
      // an entity with inputs but no relation of its own (its inputs read through another one)
      const known = entities.find((e) => e.entity === personEntity);
      if (known) known.relations = [relation];
      else entities.push({ entity: personEntity, id_template: `${snakeCase(personEntity)}-{index}`, inputs: [], relations: [relation] });
    }
  }
  // An entity no relation links to anything only labels inputs, which formulas read where the
  // reading rule's entity is: it takes the ids of the main entity or of the member entity whose
  // rules read it (a Person's inputs read by Member rules sit on the members).
  for (const e of entities) {
    if (e.entity === main || e.relations?.length) continue;
    const readers = new Set(e.inputs.flatMap((i) => [...(program.inputs.get(i.name)?.entities ?? [])]));
    const host = readers.has(main) ? entities[0] : entities.find((o) => o.relations?.length && readers.has(o.entity));
    if (!host && readers.size) continue;
    e.id_template = (host ?? entities[0]).id_template;
    if (host?.count_from) e.count_from = host.count_from;
    else if (!host || host === entities[0]) e.count = 1;
  }
  return { entities, mainEntity: main, personEntity };
}

/** The prefix friendly names drop: `snap_` for the program path `snap` (and so for `co-snap`). */
export const aliasPrefix = (programPath: string): string => `${programPath.split('/').pop()!.replace(/-/g, '_')}_`;

/** Friendly names for inputs: declared aliases, and the name without the program's prefix. */
export function householdAliases(program: Program, entities: PackageEntity[], prefix: string): Record<string, string> {
  const all = new Set(entities.flatMap((e) => e.inputs.map((i) => i.name)));
  const aliases: Record<string, string> = {};
  const taken = (a: string) => all.has(a) || a in aliases;
  for (const name of [...all].sort()) {
    for (const alias of declaredInput(program, name)?.aliases ?? []) if (!taken(alias)) aliases[alias] = name;
    if (name.startsWith(prefix) && name.length > prefix.length && !taken(name.slice(prefix.length))) aliases[name.slice(prefix.length)] = name;
  }
  return aliases;
}
