import type { Relation } from '../3-lower/ir.js';
import type { Period } from './period.js';
import { Decimal, type Value } from '../values.js';

// What a query is evaluated against: input values per (slot, entity id) and relation tuples,
// each valid over an interval of days.

interface InputRecord {
  start: number;
  end: number;
  value: Value;
}

interface TupleRecord {
  tuple: string[];
  start: number;
  end: number;
}

const RELATION_MARK = '#relation.';

/** The value an entity id takes for a slot nobody gave, in any period (a package default), if any. */
export type DefaultValue = (slot: string, entity: string) => Value | undefined;

/** A value as given, where a JSON number may stay a number until it is read: exactly the decimal
 *  of its shortest form (what `String(n)` writes), never -0. */
export type GivenRaw = Value | number;

/** The value given for a slot and entity id over a period that covers `period`, if any. */
export type GivenValue = (slot: string, entity: string, period: Period) => GivenRaw | undefined;

/** A given number as the Decimal it stands for. */
export const decimalOfGiven = (v: GivenRaw): Value => (typeof v === 'number' ? new Decimal(v === 0 ? 0 : v) : v);

/** An input read for an entity id. */
export interface InputRead {
  slot: string;
  entity: string;
}

const ALWAYS = { start: -Infinity, end: Infinity };

export class Dataset {
  /** Records by slot, then entity id (nested so that lookups never build a key string; one record
   *  is kept as itself, the usual case, and only several make a list). */
  private readonly inputs = new Map<string, Map<string, InputRecord | InputRecord[]>>();
  private readonly tuples = new Map<string, TupleRecord[]>();

  /** Every default read, once each, in the order first read: what a calculation assumed. */
  readonly defaultsRead: InputRead[] = [];

  /** `given` answers for what no record covers (a household's values, read where they were
   *  read, not copied into records), then `defaults`, so a household of hundreds of inputs costs
   *  no record at all until a default is read. */
  constructor(
    private readonly defaults?: DefaultValue,
    private readonly given?: GivenValue,
  ) {}

  addInput(slot: string, entity: string, value: Value, interval: { start: number; end: number }): void {
    let bySlot = this.inputs.get(slot);
    if (!bySlot) this.inputs.set(slot, (bySlot = new Map()));
    const record = { start: interval.start, end: interval.end, value };
    const given = bySlot.get(entity);
    if (!given) bySlot.set(entity, record);
    else if (Array.isArray(given)) given.push(record);
    else bySlot.set(entity, [given, record]);
  }

  /** The input's value covering the whole period: the latest start wins, the first given on ties; else the default. */
  input(slot: string, entity: string, period: Period): Value | undefined {
    const value = this.inputRaw(slot, entity, period);
    return typeof value === 'number' ? decimalOfGiven(value) : value;
  }

  /** `input`, where a number the household gave is left a number (the compiled engine reads it without a Decimal). */
  inputRaw(slot: string, entity: string, period: Period): GivenRaw | undefined {
    const given = this.inputs.get(slot)?.get(entity);
    if (!given) return this.given?.(slot, entity, period) ?? this.byDefault(slot, entity);
    if (!Array.isArray(given)) return given.start <= period.start && given.end >= period.end ? given.value : this.byDefault(slot, entity);
    let best: InputRecord | undefined;
    for (const r of given) {
      if (r.start <= period.start && r.end >= period.end && (!best || r.start > best.start)) best = r;
    }
    return best ? best.value : this.byDefault(slot, entity);
  }

  /** Defaults read, by entity id then slot (a few maps a household, not one per slot). */
  private readonly defaultsTaken = new Map<string, Map<string, Value>>();

  /** A default, kept for every period once read, so each is read (and listed) once. */
  private byDefault(slot: string, entity: string): Value | undefined {
    let taken = this.defaultsTaken.get(entity);
    const known = taken?.get(slot);
    if (known !== undefined) return known;
    const value = this.defaults?.(slot, entity);
    if (value !== undefined) {
      if (!taken) this.defaultsTaken.set(entity, (taken = new Map()));
      taken.set(slot, value);
      this.defaultsRead.push({ slot, entity });
    }
    return value;
  }

  /** Relation data is keyed by the name it was given under: a relation id or a bare name. */
  addTuple(key: string, tuple: string[], interval: { start: number; end: number }): void {
    let list = this.tuples.get(key);
    if (!list) this.tuples.set(key, (list = []));
    list.push({ tuple, start: interval.start, end: interval.end });
    this.byRelation.clear();
  }

  /** Each relation's records, found once: a relation is read for every entity that counts its members. */
  private readonly byRelation = new Map<string, TupleRecord[]>();

  /** Tuples for a relation: those given under its exact id, else under any key naming it. */
  /** The ids in `relatedSlot` of the tuples of `rel` in force in `period` whose `currentSlot` is `current`. */
  members(rel: Relation, period: Period, current: string, currentSlot: number, relatedSlot: number): string[] {
    const out: string[] = [];
    for (const t of this.tuplesFor(rel, period)) if (t[currentSlot] === current && t[relatedSlot] !== undefined) out.push(t[relatedSlot]);
    return out;
  }

  tuplesFor(rel: Relation, period: Period): string[][] {
    let records = this.tuples.get(rel.id) ?? this.byRelation.get(rel.id);
    if (!records) {
      records = [];
      for (const [key, list] of this.tuples) {
        const mark = key.lastIndexOf(RELATION_MARK);
        const bare = mark >= 0 ? key.slice(mark + RELATION_MARK.length) : key;
        if (bare === rel.name) records.push(...list);
      }
      this.byRelation.set(rel.id, records);
    }
    const out: string[][] = [];
    for (const r of records) if (r.start <= period.start && r.end >= period.end) out.push(r.tuple);
    return out;
  }
}
