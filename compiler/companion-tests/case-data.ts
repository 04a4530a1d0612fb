import type { Program } from '../3-lower/ir.js';
import { Dataset } from '../engine/dataset.js';
import { monthPeriod, type Period } from '../engine/period.js';
import { Day, valueFromYaml } from '../values.js';
import type { RawCase } from './test-file.js';
import { snakeCase } from '../names.js';

// Turning one test case into a query: its period, the query entity id, and a dataset of inputs
// (every key absolute: `module#input.slot`, `module#relation.name`, or `module#name`).

export class CaseError extends Error {}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function isoDay(raw: unknown, what: string): number {
  const day = raw instanceof Date ? Day.fromDate(raw) : typeof raw === 'string' ? Day.parse(raw.trim()) : undefined;
  if (!day) throw new CaseError(`${what} must be a date (YYYY-MM-DD), got ${JSON.stringify(raw)}`);
  return day.n;
}

const PERIOD_KINDS = ['month', 'benefit_week', 'tax_year', 'custom'];

/** `2026-01` (a month), a date, or `{period_kind, start, end[, name]}`. */
export function casePeriod(raw: unknown): Period {
  if (typeof raw === 'string' && /^\d{4}-\d{2}$/.test(raw)) {
    const month = monthPeriod(raw);
    if (!month) throw new CaseError(`period ${raw} is not a month`);
    return month;
  }
  if (raw instanceof Date) {
    const d = Day.fromDate(raw).n;
    return { kind: 'day', start: d, end: d };
  }
  if (isMap(raw)) {
    const kind = String(raw.period_kind ?? '');
    if (!PERIOD_KINDS.includes(kind)) throw new CaseError(`period_kind must be one of ${PERIOD_KINDS.join(', ')}, got ${JSON.stringify(raw.period_kind)}`);
    if (kind === 'custom' && !raw.name) throw new CaseError('a custom period needs a `name`');
    const start = isoDay(raw.start, 'period start');
    const end = isoDay(raw.end, 'period end');
    if (end < start) throw new CaseError('period end is before its start');
    return { kind, start, end };
  }
  throw new CaseError(`period must be YYYY-MM or a mapping {period_kind, start, end}, got ${JSON.stringify(raw)}`);
}

const isScalar = (v: unknown) => v !== null && v !== undefined && (typeof v !== 'object' || v instanceof Date);

/** The entity id a case is queried for. */
export function queryEntityId(c: RawCase, entity: string, n: number): string {
  for (const key of ['entity_id', 'id', `${snakeCase(entity)}_id`]) if (isScalar(c[key])) return String(c[key]);
  for (const [key, v] of Object.entries(c)) if (key.endsWith('_id') && isScalar(v)) return String(v);
  return `case-${n}`;
}

/** Every key of the case's inputs and tables, recursively, except id keys. */
function* inputKeys(v: unknown): Generator<string> {
  if (Array.isArray(v)) for (const item of v) yield* inputKeys(item);
  else if (isMap(v)) {
    for (const [k, inner] of Object.entries(v)) {
      if (k === 'id' || k === 'entity_id' || k.endsWith('_id')) continue;
      yield k;
      yield* inputKeys(inner);
    }
  }
}

export function rejectComputedInputs(program: Program, c: RawCase): void {
  for (const key of inputKeys([c.input, c.tables])) {
    if (program.ruleById.has(key) || program.paramById.has(key)) {
      throw new CaseError(`\`${key}\` is computed by the program; a test cannot supply it as an input`);
    }
  }
}

/** The input slot an absolute input key feeds. */
function slotOf(program: Program, key: string): string {
  const hash = key.indexOf('#');
  if (hash < 0) throw new CaseError(`input key \`${key}\` must be absolute (\`module#input.name\`)`);
  const fragment = key.slice(hash + 1);
  const slot = fragment.startsWith('input.') ? fragment.slice('input.'.length) : fragment;
  if (!program.inputSlots.has(slot)) throw new CaseError(`input \`${key}\`: no formula in this program reads \`${slot}\``);
  return slot;
}

function scalarValue(key: string, raw: unknown) {
  const value = valueFromYaml(raw);
  if (value === undefined) throw new CaseError(`input \`${key}\` must be a scalar (number, text, true/false or date), got ${JSON.stringify(raw)}`);
  return value;
}

export function buildDataset(program: Program, c: RawCase, queryId: string, period: Period): Dataset {
  const data = new Dataset();
  const input = c.input ?? {};
  if (!isMap(input)) throw new CaseError('`input` must be a mapping of input keys to values');
  for (const [key, raw] of Object.entries(input)) {
    if (Array.isArray(raw)) {
      if (!key.includes('#relation.')) throw new CaseError(`input \`${key}\` is a list, but only relations (\`module#relation.name\`) take lists`);
      raw.forEach((item, k) => {
        if (!isMap(item)) throw new CaseError(`members of \`${key}\` must be mappings`);
        const memberId = String(item.id ?? item.entity_id ?? `${queryId}-${key}-${k + 1}`);
        data.addTuple(key, [memberId, queryId], period);
        for (const [field, v] of Object.entries(item)) {
          if (field === 'id' || field === 'entity_id') continue;
          if (!isScalar(v)) throw new CaseError(`member field \`${field}\` of \`${key}\` must be a scalar`);
          data.addInput(slotOf(program, field), memberId, scalarValue(field, v), period);
        }
      });
      continue;
    }
    if (key.includes('#relation.')) throw new CaseError(`relation \`${key}\` must be given as a list of members`);
    data.addInput(slotOf(program, key), queryId, scalarValue(key, raw), period);
  }
  for (const [label, rows] of Object.entries(tables(c))) {
    rows.forEach((row, k) => {
      const rowId = rowIdOf(label, row, k);
      for (const [field, v] of Object.entries(row)) {
        if (field === 'id' || field === 'entity_id' || field === `${snakeCase(label)}_id`) continue;
        data.addInput(slotOf(program, field), rowId, scalarValue(field, v), period);
      }
    });
  }
  return data;
}

export function tables(c: RawCase): Record<string, Record<string, unknown>[]> {
  if (c.tables === undefined || c.tables === null) return {};
  if (!isMap(c.tables)) throw new CaseError('`tables` must map entity names to lists of rows');
  for (const [label, rows] of Object.entries(c.tables)) {
    if (!Array.isArray(rows) || !rows.every(isMap)) throw new CaseError(`tables.${label} must be a list of mappings`);
  }
  return c.tables as Record<string, Record<string, unknown>[]>;
}

export function rowIdOf(label: string, row: Record<string, unknown>, k: number): string {
  const id = row.id ?? row.entity_id ?? row[`${snakeCase(label)}_id`];
  return id === undefined || id === null ? `${snakeCase(label)}-${k + 1}` : String(id);
}
