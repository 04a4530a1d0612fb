import type { ExecParameter, ExecRule, Executable, Relation } from '../3-lower/ir.js';
import { Day, Decimal, type Value } from '../values.js';

// The executable part of a program as plain JSON, for runtime packages: the daemon evaluates
// packages without reading any YAML. Decimals travel as strings ({"$d": "0.3"}), dates as
// {"$date": "2026-01-01"}, so nothing passes through binary floating point.

export interface ExecutableJson {
  rules: ExecRule[];
  parameters: (Omit<ExecParameter, 'versions'> & { versions: { from: number | null; to: number | null; cells: [number, unknown][] }[] })[];
  relations: Relation[];
  inputSlots: string[];
  /** Every parameter id, including ids of declarations a later one of the same name replaced. */
  paramById: [string, number][];
}

function encodeValue(v: unknown): unknown {
  if (v instanceof Decimal) return { $d: v.toString() };
  if (v instanceof Day) return { $date: v.toString() };
  return v;
}

/** A copy of a tree with decimals and dates in their tagged JSON form (walked without the
 *  key/value pair arrays of Object.entries: a whole corpus has millions of nodes). */
function tagValues(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Decimal || value instanceof Day) return encodeValue(value);
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = tagValues(value[i]);
    return out;
  }
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = tagValues(o[k]);
  return out;
}

/** The only key of an object, if it has exactly one. */
function soleKey(o: Record<string, unknown>): string | undefined {
  let only: string | undefined;
  for (const k in o) {
    if (only !== undefined) return undefined;
    only = k;
  }
  return only;
}

export function executableToJson(program: Executable): ExecutableJson {
  const rules: ExecRule[] = program.rules.map((r) => ({
    index: r.index,
    id: r.id,
    name: r.name,
    entity: r.entity,
    dtype: r.dtype,
    judgment: r.judgment,
    alwaysApplies: r.alwaysApplies,
    versions: r.versions.map((v) => ({ from: v.from, to: v.to, expr: v.expr })),
    rounding: r.rounding,
    unitError: r.unitError,
  }));
  const parameters = program.parameters.map((p) => ({
    index: p.index,
    id: p.id,
    name: p.name,
    indexedBy: p.indexedBy,
    dtype: p.dtype,
    versions: p.versions.map((v) => ({ from: v.from, to: v.to, cells: [...v.cells] })),
  }));
  // JSON round trip through the replacer turns values into their tagged form
  const json = { rules, parameters, relations: program.relations, inputSlots: [...program.inputSlots], paramById: [...program.paramById] };
  return tagValues(json) as ExecutableJson;
}

/** Turn tagged decimals and dates inside a parsed JSON tree back into values (a new tree; a
 *  package's is read in every fresh process, so this walks it without intermediate arrays). */
export function reviveValues<T>(value: T): T {
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = reviveValues(value[i]);
    return out as T;
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const only = soleKey(o);
    if (only === '$d' && typeof o.$d === 'string') return new Decimal(o.$d) as T;
    if (only === '$date' && typeof o.$date === 'string') return Day.parse(o.$date) as T;
    const out: Record<string, unknown> = {};
    for (const k in o) out[k] = reviveValues(o[k]);
    return out as T;
  }
  return value;
}

/** Rebuild an Executable from its stored JSON form. */
export function executableFromJson(json: ExecutableJson): Executable {
  const revived = reviveValues(json);
  const parameters: ExecParameter[] = revived.parameters.map((p) => ({
    ...p,
    versions: p.versions.map((v) => ({ from: v.from, to: v.to, cells: new Map(v.cells as [number, Value][]) })),
  }));
  const index = <T extends { id: string; index: number }>(items: T[]) => new Map(items.map((x) => [x.id, x.index]));
  return {
    rules: revived.rules,
    parameters,
    relations: revived.relations,
    ruleById: index(revived.rules),
    ruleByName: new Map(revived.rules.map((r) => [r.name, r.index])),
    paramById: new Map(revived.paramById),
    paramByName: new Map(parameters.map((p) => [p.name, p.index])),
    relationById: index(revived.relations),
    inputSlots: new Set(revived.inputSlots),
  };
}
