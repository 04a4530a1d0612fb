import { Dataset, decimalOfGiven, type GivenRaw } from '../engine/dataset.js';
import { monthPeriod, type Period } from '../engine/period.js';
import { Day, Decimal, type Value } from '../values.js';
import type { PackageEntity, PackageInput } from '../4-package/package-types.js';
import type { LoadedPackage } from './loaded-package.js';
import { isAgeInput, isMoney, isNonNegative, isSizeInput, MAX_AGE_YEARS, valueKind } from '../dtypes.js';

// The household adapter: one documented mapping from a CalculateRequest household to the
// engine's inputs.
//
//   period     `YYYY-MM`; missing or invalid → the package's default period (with a warning)
//   facts      flat `{input: value}` for the package's main entity (names, aliases or legal ids)
//   spm_units  `{unit_id: {input: value}}`; the FIRST unit feeds the main entity like facts
//   people     `{person_id: {input: value}}`; each person is an instance of the package's person
//              entity and a member (relation tuple [person_id, main id]) of its relations
//   entities   `{Entity: {entity_id: {input: value}}}`: direct per-entity inputs, by the ids the
//              package detail gives; an instance of a member entity is a member of the main entity
//              through its relations (the form of a package's sample_request)
//   relations  `{relation: [[member_id, current_id], …]}`: explicit tuples
// The main entity's id is its `id_template` (e.g. `household`). An input of the main entity
// that counts people (`count_from`, e.g. household_size) defaults to the number of people.
// Omitted inputs take the package defaults; an input without a default is required when a
// formula reaches it. Nothing is dropped silently: unknown inputs, entities and ids are errors;
// unknown top-level keys, extra spm_units and unlinked entity instances are warnings; a default
// taken for an input the calculation reads is an assumption (see `origin`, and calculate.ts).
//
// One input, one value: two names for one input in one object (an alias, the canonical name, the
// legal id) with different values are an error naming both; across conventions the more specific
// wins (facts over entities over people and spm_units), with a warning naming both.

export class HouseholdError extends Error {
  constructor(
    readonly field: string,
    detail: string,
    /** A value that would be accepted instead, when one is known (e.g. a period in effect). */
    readonly hint?: unknown,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'HouseholdError';
  }
}

const CONVENTIONS = ['people', 'spm_units', 'facts', 'period', 'entities', 'relations'];
/** Inputs beyond this magnitude are almost certainly mistakes (and lose exactness as JSON numbers). */
const MAX_MAGNITUDE = new Decimal('1e15');
const MAX_MAGNITUDE_NUMBER = MAX_MAGNITUDE.toNumber();

/**
 * The most people one household can plausibly hold: the bound on every size input (`…_size`)
 * and on the instances of any entity. Households larger than the SNAP allotment tables (which
 * list sizes 1-8, then an amount per additional person) are real, and the largest recorded
 * U.S. households have a few dozen members; a size or count beyond 100 is a typo or an attack
 * (a size of 1,000,000 would otherwise answer an allotment of about $218 million).
 */
export const MAX_HOUSEHOLD_PEOPLE = 100;

/** Where an input's value for one entity id came from: the household (with the value, as the
 *  dataset reads it for the household's period), or the package default. */
export type InputOrigin = { given: true; field: string; value: GivenRaw } | { given: false; reason: 'not_given' | 'null'; field?: string };

/** Why the period was assumed: none given, or one that is not a YYYY-MM month. */
export type PeriodAssumption = { reason: 'not_given' } | { reason: 'invalid'; given: unknown };

export interface PreparedHousehold {
  dataset: Dataset;
  period: Period;
  periodLabel: string;
  /** Set when the package's default period was used. */
  periodAssumed: PeriodAssumption | undefined;
  mainId: string;
  warnings: string[];
  /** Given (and where) or assumed (and why), for an input the calculation read. */
  origin(slot: string, entityId: string): InputOrigin;
  /** The package entity whose input `slot` is, for that entity id (as the package detail names it). */
  entityOf(slot: string, entityId: string): string;
  /** Where each (input, entity id) came from, to name the field when it is missing. */
  fieldOf(slot: string, entityId: string): string;
  /** The entity ids a rule of `entity` is evaluated for (the main entity: its one id). */
  instancesOf(entity: string): string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a raw value given for one input: checked by its dtype and bounds, or a HouseholdError naming
 *  the field (`container.key`, or `container` without a key; written only when it fails); `warn`
 *  hears what was read other than as given (a number in text). A JSON number stays a number
 *  (GivenRaw) until a formula reads it, so the inputs no formula reaches cost no Decimal. */
type InputReader = (raw: unknown, container: string, key: string, warn?: (message: string) => void) => GivenRaw;

const fieldText = (container: string, key: string): string => (key ? `${container}.${key}` : container);

const readers = new WeakMap<PackageInput, InputReader>();

/** The reader of an input, made once per input of a loaded package: its dtype decoded, its bounds decided. */
function readerOf(input: PackageInput): InputReader {
  let reader = readers.get(input);
  if (!reader) readers.set(input, (reader = makeReader(input)));
  return reader;
}

function makeReader(input: PackageInput): InputReader {
  const kind = valueKind(input.dtype);
  const whole = kind === 'whole';
  const bounds: NumberBounds = { size: isSizeInput(input.name), nonNegative: isMoney(input.dtype, input.unit) || isNonNegative(input), age: isAgeInput(input) };
  const typed = `(${input.name} is ${input.dtype})`;
  const fail = (raw: unknown, container: string, key: string, what: string): never => {
    throw new HouseholdError(fieldText(container, key), `must be ${what} ${typed}, got ${JSON.stringify(raw)}`);
  };
  switch (kind) {
    case 'boolean':
      return (raw, container, key) => (typeof raw === 'boolean' ? raw : fail(raw, container, key, 'true or false'));
    case 'text':
      return (raw, container, key) => {
        if (typeof raw !== 'string') fail(raw, container, key, 'text');
        if (input.values && !input.values.includes(raw as string)) {
          throw new HouseholdError(fieldText(container, key), `must be one of ${input.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(raw)}`);
        }
        return raw as string;
      };
    case 'date':
      return (raw, container, key) => (typeof raw === 'string' ? Day.parse(raw) : undefined) ?? fail(raw, container, key, 'a date (YYYY-MM-DD)');
    default:
      return (raw, container, key, warn) => {
        if (typeof raw === 'number') {
          // JSON.parse reads a literal beyond the doubles (1e309) as Infinity: say so, not "got null"
          if (!Number.isFinite(raw)) throw new HouseholdError(fieldText(container, key), `must be a finite number ${typed}, got a number too large to represent`);
          if (whole && !Number.isInteger(raw)) fail(raw, container, key, 'a whole number');
          // the checks run on the double itself (exact against these whole thresholds); its Decimal is made when a formula reads it
          checkNumber(bounds, raw, raw, container, key, Math.abs(raw) > MAX_MAGNITUDE_NUMBER, raw < 1, raw > MAX_HOUSEHOLD_PEOPLE, raw < 0, raw > MAX_AGE_YEARS);
          return raw;
        }
        if (typeof raw !== 'string' || !/^-?(\d+\.?\d*|\.\d+)$/.test(raw.trim())) fail(raw, container, key, 'a number');
        const n = new Decimal((raw as string).trim());
        if (whole && !n.isInteger()) fail(raw, container, key, 'a whole number');
        checkNumber(bounds, raw, n, container, key, n.abs().gt(MAX_MAGNITUDE), n.lt(1), n.gt(MAX_HOUSEHOLD_PEOPLE), n.isNegative(), n.gt(MAX_AGE_YEARS));
        warn?.(`${fieldText(container, key)}: the number was given as text (${JSON.stringify(raw)}); read as ${n}`);
        return n;
      };
  }
}

/** Which bounds a number input has: a size (at least 1, at most the people in a household), never negative, an age. */
interface NumberBounds {
  size: boolean;
  nonNegative: boolean;
  age: boolean;
}

/** The range checks of a number input, given the comparisons already made on its value. */
/** `read`: the number as read (written in a message as its shortest decimal form). */
function checkNumber(bounds: NumberBounds, raw: unknown, read: number | Decimal, container: string, key: string, tooLarge: boolean, belowOne: boolean, beyondPeople: boolean, negative: boolean, beyondAge: boolean): void {
  let problem: string | undefined;
  if (tooLarge) problem = `is out of range (at most ${MAX_MAGNITUDE.toExponential()} in magnitude), got ${JSON.stringify(raw)}`;
  else if (bounds.size && belowOne) problem = `must be at least 1, got ${JSON.stringify(raw)}`;
  else if (bounds.size && beyondPeople) problem = `must be at most ${MAX_HOUSEHOLD_PEOPLE} (the plausible bound on the people in one household), got ${String(read)}`;
  else if (negative && bounds.nonNegative) problem = `must not be negative, got ${JSON.stringify(raw)}`;
  else if (beyondAge && bounds.age) problem = `must be at most ${MAX_AGE_YEARS} (the plausible bound on a person's age in years), got ${String(read)}`;
  if (problem !== undefined) throw new HouseholdError(fieldText(container, key), problem);
}

export function prepareHousehold(loaded: LoadedPackage, household: unknown): PreparedHousehold {
  if (!isObj(household)) throw new HouseholdError('household', 'must be an object');
  const h = new HouseholdReader(loaded, household);
  h.readSpmUnits();
  if (household.facts !== undefined) h.setAll(h.main.entity, h.mainId, household.facts, 'household.facts', PRECEDENCE.facts);
  h.readPeople();
  h.readEntities();
  h.readRelations();
  h.warnUnlinked();
  h.fillCount();
  checkPlausibleCounts(h.peopleCount, h.labels, h.main.entity, h.person?.entity);
  return h.prepared();
}

type Obj = Record<string, unknown>;

/** How specific each convention is: a value given in a more specific one wins (`facts` are overrides). */
const PRECEDENCE = { spm_units: 0, people: 0, entities: 1, facts: 2 } as const;

/** An object of the household values are given in (`container`, its path, to tell two names in one
 *  object from two conventions) and how specific its convention is. */
interface GivenIn {
  container: string;
  precedence: number;
}

/**
 * The values given to one entity id: each value, the key it was given under and the object it
 * was given in, in the order given, and where each input slot's value is (slots are the package's
 * numbering of its input names). The slots span those of the entity the id was first given for
 * (the id's other entities, rarely, widen them), so a household of hundreds of inputs costs a few
 * arrays, not a map entry and an object per input. A field is built from its object and key only
 * when a message needs it.
 */
class GivenColumns {
  /** By slot less `base`: the value's place in the lists below. */
  private at: (number | undefined)[];
  private readonly values: GivenRaw[] = [];
  private readonly keys: string[] = [];
  private readonly sources: GivenIn[] = [];

  /** Slots `base` up to `end` (not included) to begin with. */
  constructor(
    private base: number,
    end: number,
  ) {
    this.at = new Array(end - base);
  }

  private place(slot: number): number | undefined {
    const i = slot - this.base;
    return i >= 0 && i < this.at.length ? this.at[i] : undefined;
  }

  value(slot: number): GivenRaw | undefined {
    const k = this.place(slot);
    return k === undefined ? undefined : this.values[k];
  }

  source(slot: number): GivenIn | undefined {
    const k = this.place(slot);
    return k === undefined ? undefined : this.sources[k];
  }

  field(slot: number): string | undefined {
    const k = this.place(slot);
    return k === undefined ? undefined : fieldText(this.sources[k].container, this.keys[k]);
  }

  put(slot: number, value: GivenRaw, key: string, source: GivenIn): void {
    const k = this.place(slot);
    if (k !== undefined) {
      this.values[k] = value;
      this.keys[k] = key;
      this.sources[k] = source;
      return;
    }
    if (slot < this.base || slot >= this.base + this.at.length) this.widen(slot);
    this.at[slot - this.base] = this.values.length;
    this.values.push(value);
    this.keys.push(key);
    this.sources.push(source);
  }

  /** Make the span take in `slot` too. */
  private widen(slot: number): void {
    const base = Math.min(this.base, slot);
    const wider = new Array<number | undefined>(Math.max(this.base + this.at.length, slot + 1) - base);
    for (let i = 0; i < this.at.length; i++) wider[i + this.base - base] = this.at[i];
    this.at = wider;
    this.base = base;
  }
}

/** What the adapter reads of a package once rather than per household: each entity's labels (the
 *  entities whose inputs its ids carry) and each entity's inputs that have a default, by name. */
interface PackageShape {
  labels: Map<string, string[]>;
  defaulted: Map<string, Map<string, PackageInput>>;
  /** Per entity, each key a household has given an input under (name, alias or legal id): the input, its slot and its reader. */
  keys: Map<string, Map<string, KnownKey>>;
  /** Each input name's column in GivenColumns (one per name: the package's namespace is flat). */
  slots: Map<string, number>;
  /** Where the columns of an id begin and end, as [start, end), by the entity it is first given
   *  for: the main entity's inputs are numbered first, and every other entity's id takes the
   *  slots of all the others (an id often carries several: a person and a member). */
  spans: Map<string, [number, number]>;
}

interface KnownKey {
  input: PackageInput;
  slot: number;
  read: InputReader;
}

const shapes = new WeakMap<LoadedPackage, PackageShape>();

function shapeOf(loaded: LoadedPackage): PackageShape {
  let shape = shapes.get(loaded);
  if (shape) return shape;
  const entities = loaded.pkg.entities;
  shape = { labels: new Map(), defaulted: new Map(), keys: new Map(), slots: new Map(), spans: new Map() };
  const main = entities.find((e) => e.entity === loaded.pkg.main_entity);
  for (const entity of main ? [main, ...entities.filter((e) => e !== main)] : entities) {
    for (const name of [...entity.inputs.map((i) => i.name), ...(entity.count_from ? [entity.count_from] : [])]) if (!shape.slots.has(name)) shape.slots.set(name, shape.slots.size);
    if (entity === main) shape.spans.set(entity.entity, [0, shape.slots.size]);
  }
  const mainEnd = main ? shape.spans.get(main.entity)![1] : 0;
  for (const entity of entities) {
    if (entity !== main) shape.spans.set(entity.entity, [mainEnd, shape.slots.size]);
    // an entity that only labels inputs shares the ids of the entity whose rules read them (id_template)
    shape.labels.set(entity.entity, entities.filter((e) => e.entity === entity.entity || (e.id_template === entity.id_template && !e.relations?.length)).map((e) => e.entity));
    shape.defaulted.set(entity.entity, new Map(entity.inputs.filter((i) => i.default !== undefined).map((i) => [i.name, i])));
  }
  shapes.set(loaded, shape);
  return shape;
}

/** The household read convention by convention: values and fields per entity id, labels, relation tuples, warnings. */
class HouseholdReader {
  readonly warnings: string[] = [];
  readonly periodLabel: string;
  readonly periodAssumed: PeriodAssumption | undefined;
  readonly main: PackageEntity;
  readonly mainId: string;
  readonly person: PackageEntity | undefined;
  /** (entity id) → the values given to it */
  readonly given = new Map<string, GivenColumns>();
  /** (entity id) → (input name → the field given as null): the default is taken, and said to be */
  readonly nulls = new Map<string, Map<string, string>>();
  /** an entity id may carry inputs of several entities (entities label inputs; they do not
   *  partition evaluation), so each id has a set of labels */
  readonly labels = new Map<string, Set<string>>();
  readonly tuples: { relation: string; tuple: [string, string] }[] = [];
  peopleCount: number | undefined;
  private readonly shape: PackageShape;
  private readonly warn = (message: string) => this.warnings.push(message);

  constructor(
    private readonly loaded: LoadedPackage,
    private readonly household: Obj,
  ) {
    this.shape = shapeOf(loaded);
    const pkg = loaded.pkg;
    for (const key of Object.keys(household)) {
      if (!CONVENTIONS.includes(key)) this.warnings.push(`household.${key}: not a household convention (${CONVENTIONS.join(', ')}); ignored${suggest(key, CONVENTIONS)}`);
    }
    this.periodLabel = pkg.default_period;
    if (household.period === undefined || household.period === null) {
      this.periodAssumed = { reason: 'not_given' };
      this.warnings.push(`household.period is not given; assumed the package's default period ${pkg.default_period}`);
    } else if (typeof household.period === 'string' && monthPeriod(household.period)) {
      this.periodLabel = household.period;
    } else {
      this.periodAssumed = { reason: 'invalid', given: household.period };
      this.warnings.push(`household.period ${JSON.stringify(household.period)} is not a YYYY-MM month; assumed the package's default period ${pkg.default_period}`);
    }
    this.main = loaded.entity(pkg.main_entity)!;
    this.mainId = this.main.id_template;
    this.person = pkg.person_entity ? loaded.entity(pkg.person_entity) : undefined;
    this.addLabel(this.mainId, this.main.entity);
  }

  /** An entity that only labels inputs shares the ids of the entity whose rules read them
   *  (id_template), so its inputs (and their defaults) come with each of those ids. */
  private addLabel(id: string, entity: string): void {
    const set = this.labels.get(id) ?? this.labels.set(id, new Set()).get(id)!;
    for (const label of this.shape.labels.get(entity) ?? [entity]) set.add(label);
  }

  fieldOf(name: string, entityId: string): string | undefined {
    const slot = this.shape.slots.get(name);
    return slot === undefined ? undefined : this.given.get(entityId)?.field(slot);
  }

  valueOf(name: string, entityId: string): GivenRaw | undefined {
    const slot = this.shape.slots.get(name);
    return slot === undefined ? undefined : this.given.get(entityId)?.value(slot);
  }

  /** The values given to one entity id (`entity`: the entity they are inputs of). */
  private givenTo(entityId: string, entity: string): GivenColumns {
    let columns = this.given.get(entityId);
    if (!columns) this.given.set(entityId, (columns = new GivenColumns(...(this.shape.spans.get(entity) ?? [0, 0]))));
    return columns;
  }

  private set(entityLabel: string, entityId: string, columns: GivenColumns, known: Map<string, KnownKey>, key: string, raw: unknown, source: GivenIn): void {
    let found = known.get(key);
    if (!found) {
      const input = this.loaded.resolveInput(entityLabel, key);
      if (input) known.set(key, (found = { input, slot: this.shape.slots.get(input.name)!, read: readerOf(input) }));
    }
    if (!found) {
      const pkg = this.loaded.pkg;
      const names = this.loaded.entity(entityLabel)?.inputs.map((i) => i.name) ?? [];
      throw new HouseholdError(`${source.container}.${key}`, `unknown input for ${entityLabel} in ${pkg.jurisdiction}/${pkg.program_id}${suggest(key, names)}`);
    }
    if (raw === null || raw === undefined) {
      // explicit null: the default is taken, and reported as an assumption when it is read
      const { input } = found;
      const nullFields = this.nulls.get(entityId) ?? this.nulls.set(entityId, new Map()).get(entityId)!;
      if (!nullFields.has(input.name)) nullFields.set(input.name, `${source.container}.${key}`);
      return;
    }
    const value = found.read(raw, source.container, key, this.warn);
    this.keep(columns, found.slot, found.input.name, value, source, key);
  }

  /** One value per input and entity id (`columns`, its values): two in one object must agree; across conventions the more specific wins, with a warning. */
  private keep(columns: GivenColumns, slot: number, name: string, value: GivenRaw, source: GivenIn, key: string): void {
    const earlierSource = columns.source(slot);
    if (earlierSource === undefined) {
      columns.put(slot, value, key, source);
      return;
    }
    const earlierValue = columns.value(slot)!;
    if (sameValue(earlierValue, value)) return;
    const earlier = { value: earlierValue, field: columns.field(slot)!, precedence: earlierSource.precedence };
    const next = { value, field: fieldText(source.container, key), precedence: source.precedence };
    const both = `${earlier.field} (${formatGiven(earlier.value)}) and ${next.field} (${formatGiven(next.value)})`;
    if (earlierSource.container === source.container || earlier.precedence === next.precedence) {
      throw new HouseholdError(next.field, `gives input \`${name}\` a second, different value: ${both} name the same input; give it once`);
    }
    const [used, overridden] = next.precedence > earlier.precedence ? [next, earlier] : [earlier, next];
    if (used === next) columns.put(slot, value, key, source);
    this.warnings.push(`${used.field} (${formatGiven(used.value)}) overrides ${overridden.field} (${formatGiven(overridden.value)}), the same input \`${name}\`: the calculation uses ${formatGiven(used.value)}`);
  }

  /** Every input of one object (`container`, the household's path to it) for one entity id. */
  setAll(entityLabel: string, entityId: string, obj: unknown, container: string, precedence: number): void {
    if (!isObj(obj)) throw new HouseholdError(container, 'must be an object of input values');
    const columns = this.givenTo(entityId, entityLabel);
    const known = this.shape.keys.get(entityLabel) ?? this.shape.keys.set(entityLabel, new Map()).get(entityLabel)!;
    const source: GivenIn = { container, precedence };
    for (const key of Object.keys(obj)) this.set(entityLabel, entityId, columns, known, key, obj[key], source);
  }

  /** An instance of a member entity belongs to the main entity through that entity's relations. */
  private addMember(id: string, entity = this.person!): void {
    this.addLabel(id, entity.entity);
    for (const rel of entity.relations ?? []) if (rel.tuple[1] === this.main.entity) this.tuples.push({ relation: rel.name, tuple: [id, this.mainId] });
  }

  /** `spm_units`: the first unit's inputs are the main entity's. */
  readSpmUnits(): void {
    const units = this.household.spm_units;
    if (units === undefined) return;
    if (!isObj(units)) throw new HouseholdError('household.spm_units', 'must be an object keyed by unit id');
    const [first, ...rest] = Object.entries(units);
    if (first) this.setAll(this.main.entity, this.mainId, first[1], `household.spm_units.${first[0]}`, PRECEDENCE.spm_units);
    if (rest.length) this.warnings.push(`household.spm_units: only the first unit (${first[0]}) is used; ignored ${rest.map(([k]) => k).join(', ')}`);
  }

  /** `people`: members of the person entity, each with its inputs. */
  readPeople(): void {
    const people = this.household.people;
    if (people === undefined) return;
    if (!isObj(people)) throw new HouseholdError('household.people', 'must be an object keyed by person id');
    const entries = Object.entries(people);
    this.peopleCount = entries.length;
    for (const [pid, attrs] of entries) {
      if (!this.person) {
        if (isObj(attrs) && Object.keys(attrs).length) this.warnings.push(`household.people.${pid}: this package reads no person-level inputs; only the number of people is used`);
        continue;
      }
      this.addMember(pid);
      this.setAll(this.person.entity, pid, attrs ?? {}, `household.people.${pid}`, PRECEDENCE.people);
    }
  }

  /** `entities`: entity, then entity id, then inputs. */
  readEntities(): void {
    const all = this.household.entities;
    if (all === undefined) return;
    const { main, mainId, loaded } = this;
    if (!isObj(all)) throw new HouseholdError('household.entities', 'must be an object: entity, then entity id, then input');
    for (const [label, instances] of Object.entries(all)) {
      const entity = loaded.entity(label);
      if (!entity) throw new HouseholdError(`household.entities.${label}`, `unknown entity (this package has ${loaded.pkg.entities.map((e) => e.entity).join(', ')})`);
      if (!isObj(instances)) throw new HouseholdError(`household.entities.${label}`, 'must be an object keyed by entity id');
      for (const [id, attrs] of Object.entries(instances)) {
        if (entity.id_template === mainId && id !== mainId) throw new HouseholdError(`household.entities.${label}.${id}`, `the ${label} id is \`${mainId}\`${entity.entity === main.entity ? '' : ` (no relation links a ${label} to the ${main.entity}: its inputs are the ${main.entity}'s)`}`);
        if (!this.labels.get(id)?.has(entity.entity)) this.addMember(id, entity);
        this.setAll(entity.entity, id, attrs, `household.entities.${label}.${id}`, PRECEDENCE.entities);
      }
    }
  }

  /** `relations`: explicit [member, current] tuples. */
  readRelations(): void {
    const relations = this.household.relations;
    if (relations === undefined) return;
    const { main, mainId } = this;
    if (!isObj(relations)) throw new HouseholdError('household.relations', 'must map relation names to lists of [member, current] tuples');
    for (const [name, list] of Object.entries(relations)) {
      const relation = this.loaded.resolveRelation(name);
      if (!relation) throw new HouseholdError(`household.relations.${name}`, 'unknown relation for this package');
      if (!Array.isArray(list)) throw new HouseholdError(`household.relations.${name}`, 'must be a list of [member_id, current_id] tuples');
      list.forEach((t, i) => {
        if (!Array.isArray(t) || t.length !== 2 || !t.every((x) => typeof x === 'string')) throw new HouseholdError(`household.relations.${name}[${i}]`, 'must be [member_id, current_id] (two strings)');
        if (t[1] !== mainId && !this.labels.has(t[1])) throw new HouseholdError(`household.relations.${name}[${i}]`, `current id \`${t[1]}\` is not the ${main.entity} (\`${mainId}\`) nor an entity given in household.entities`);
        this.tuples.push({ relation, tuple: [t[0], t[1]] });
      });
    }
  }

  /** An instance linked to the main entity by no tuple feeds no output: say so rather than drop it. */
  warnUnlinked(): void {
    const { main, mainId } = this;
    const linked = new Set<string>();
    for (const { tuple } of this.tuples) linked.add(tuple[0]).add(tuple[1]);
    for (const [id, entityLabels] of this.labels) {
      if (id === mainId || linked.has(id)) continue;
      const names = [...entityLabels].join(', ');
      this.warnings.push(`household.entities: ${names} \`${id}\` is linked to the ${main.entity} (\`${mainId}\`) by no relation, so its inputs reach no output; give inputs the ${main.entity} itself has under household.entities.<Entity>.${mainId}, or link it in household.relations`);
    }
  }

  /** A count input (household size) defaults to the number of people; a different given count is warned about. */
  fillCount(): void {
    const { mainId, person, peopleCount } = this;
    const countInput = this.loaded.pkg.entities.find((e) => e.count_from)?.count_from;
    let members = peopleCount ?? 0;
    if (person) {
      members = 0;
      for (const l of this.labels.values()) if (l.has(person.entity)) members++;
    }
    if (!countInput || (peopleCount === undefined && members <= 0)) return;
    const read = this.valueOf(countInput, mainId);
    const given = read === undefined ? undefined : decimalOfGiven(read);
    if (given === undefined) {
      if (members < 1) throw new HouseholdError('household.people', `lists no one; give at least one person or household.facts.${countInput}`);
      const container = peopleCount === undefined ? 'household.entities' : 'household.people';
      this.keep(this.givenTo(mainId, this.main.entity), this.shape.slots.get(countInput)!, countInput, members, { container, precedence: PRECEDENCE.people }, '');
    } else if (given instanceof Decimal && members > 0 && !given.eq(members)) {
      this.warnings.push(`${this.fieldOf(countInput, mainId)} is ${given}, but ${members} people are listed; the calculation uses ${given}`);
    }
  }

  /** The dataset (the values given; for an input of a labelled id nobody gave, its default) and the lookups the engine's errors use. */
  prepared(): PreparedHousehold {
    const { loaded, main, mainId, person, labels, given, nulls } = this;
    const period = monthPeriod(this.periodLabel)!;
    const { defaulted, slots } = this.shape;
    // a default is read (and checked, once per package) only when a formula asks for it
    const dataset = new Dataset(
      (slot, id) => {
        const entities = labels.get(id);
        if (entities) {
          for (const entity of entities) {
            const input = defaulted.get(entity)?.get(slot);
            if (input) return loaded.defaultValue(input, readDefault);
          }
        }
        return undefined;
      },
      // a household's values hold for its period (a rule reading another month takes the default)
      (slot, id, asked) => {
        if (asked.start < period.start || asked.end > period.end) return undefined;
        const column = slots.get(slot);
        return column === undefined ? undefined : given.get(id)?.value(column);
      },
    );
    for (const { relation, tuple } of this.tuples) dataset.addTuple(relation, tuple, period);
    const fieldOf = (name: string, entityId: string) => this.fieldOf(name, entityId);
    const instances = new Map<string, string[]>();
    return {
      dataset,
      period,
      periodLabel: this.periodLabel,
      periodAssumed: this.periodAssumed,
      mainId,
      warnings: this.warnings,
      origin(slot, entityId) {
        const column = slots.get(slot);
        const columns = given.get(entityId);
        const field = column === undefined ? undefined : columns?.field(column);
        if (field !== undefined) return { given: true, field, value: columns!.value(column!)! };
        const nullField = nulls.get(entityId)?.get(slot);
        return nullField === undefined ? NOT_GIVEN : { given: false, reason: 'null', field: nullField };
      },
      entityOf(slot, entityId) {
        for (const entity of labels.get(entityId) ?? []) if (loaded.hasInput(entity, slot)) return entity;
        return loaded.entityOfInput(slot) ?? main.entity;
      },
      fieldOf(slot, entityId) {
        const given = fieldOf(slot, entityId);
        if (given) return given;
        const entity = loaded.entityOfInput(slot) ?? main.entity;
        if (entityId === mainId && entity === main.entity) return `household.facts.${slot}`;
        if (entity === person?.entity && entityId !== mainId) return `household.people.${entityId}.${slot}`;
        return `household.entities.${entity}.${entityId}.${slot}`;
      },
      instancesOf(entity) {
        if (entity === main.entity || !loaded.entity(entity)) return [mainId];
        // asked once per output: the ids are found once per entity
        let ids = instances.get(entity);
        if (!ids) instances.set(entity, (ids = [...labels].filter(([id, l]) => l.has(entity) && id !== mainId).map(([id]) => id).sort()));
        return ids;
      },
    };
  }
}

const NOT_GIVEN: InputOrigin = Object.freeze({ given: false, reason: 'not_given' });

/** A package default, checked and read as a household's value would be. */
const readDefault = (input: PackageInput): Value => decimalOfGiven(readerOf(input)(input.default, `default of ${input.name}`, ''));

function sameValue(x: GivenRaw, y: GivenRaw): boolean {
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  const [a, b] = [decimalOfGiven(x), decimalOfGiven(y)];
  return a instanceof Decimal ? b instanceof Decimal && a.eq(b) : a instanceof Day ? b instanceof Day && a.n === b.n : a === b;
}

/** A number reads as its Decimal would (the shortest decimal form, the same exponent thresholds). */
const formatGiven = (v: GivenRaw): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** More than MAX_HOUSEHOLD_PEOPLE people listed, or instances of one entity, are refused. */
function checkPlausibleCounts(peopleCount: number | undefined, labels: Map<string, Set<string>>, mainEntity: string, personEntity: string | undefined): void {
  const beyond = `more than the plausible bound of ${MAX_HOUSEHOLD_PEOPLE} in one household`;
  if (peopleCount !== undefined && peopleCount > MAX_HOUSEHOLD_PEOPLE) throw new HouseholdError('household.people', `lists ${peopleCount} people, ${beyond}`);
  const counts = new Map<string, number>();
  for (const entities of labels.values()) for (const entity of entities) if (entity !== mainEntity) counts.set(entity, (counts.get(entity) ?? 0) + 1);
  for (const [entity, count] of counts) {
    if (count <= MAX_HOUSEHOLD_PEOPLE) continue;
    const field = entity === personEntity ? 'household.people' : `household.entities.${entity}`;
    throw new HouseholdError(field, `lists ${count} ${entity} entities, ${beyond}`);
  }
}

/** Edit distance (insertions, deletions, substitutions), capped for speed. */
function distance(a: string, b: string, cap = 3): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

function suggest(key: string, known: string[]): string {
  const close = known.filter((k) => k.includes(key) || key.includes(k) || distance(k, key) <= 2).slice(0, 3);
  return close.length ? ` (did you mean ${close.map((c) => `\`${c}\``).join(', ')}?)` : '';
}
