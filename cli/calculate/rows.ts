import type { Assumption } from '../../compiler/runtime/calculate.js';
import type { CalculateResponse } from '../../server/calculation.js';
import type { JsonBytes } from '../../server/json-bytes.js';
import { writeAnswer } from '../../server/response-json.js';
import { Decimal } from '../../compiler/values.js';

// The line formats of `rules calculate --input/--output`: JSON Lines or CSV in, JSON Lines or
// CSV out, one household per line, results in input order.

export type LineFormat = 'jsonl' | 'csv';

export const formatOf = (file: string): LineFormat => (file.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl');

/** One CSV record (RFC 4180 quoting, on one line). */
export function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let cell = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error('a quoted cell is not closed on its line');
        cell += line.slice(i, q);
        if (line[q + 1] === '"') {
          cell += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      cells.push(cell);
      if (i < line.length && line[i] !== ',') throw new Error(`unexpected text after a quoted cell at column ${i + 1}`);
    } else {
      const comma = line.indexOf(',', i);
      cells.push(line.slice(i, comma < 0 ? line.length : comma));
      i = comma < 0 ? line.length : comma;
    }
    if (i >= line.length) return cells;
    i++; // the comma
  }
}

const csvCell = (v: unknown): string => {
  const text = v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const csvRecord = (cells: unknown[]): string => cells.map(csvCell).join(',');

/**
 * A CSV row as a household: `period` is the period, every other column an input of the main
 * entity (names, aliases or legal ids; checked against the package before the run). Empty cells
 * take the input's default; true/false are conditions; anything else is passed as text, which the
 * household adapter converts (and checks) by the input's dtype.
 */
export function householdFromCsv(columns: string[], cells: string[]): Record<string, unknown> {
  if (cells.length !== columns.length) throw new Error(`has ${cells.length} cells; the header has ${columns.length} columns`);
  const facts: Record<string, unknown> = {};
  const household: Record<string, unknown> = { facts };
  columns.forEach((column, k) => {
    const cell = cells[k].trim();
    if (column === 'period') {
      if (cell) household.period = cell;
      return;
    }
    if (cell === '') return;
    const lower = cell.toLowerCase();
    facts[column] = lower === 'true' ? true : lower === 'false' ? false : numberOf(cell) ?? cell;
  });
  return household;
}

/** A CSV cell that is a number, as a JSON number when that is exactly its value (CSV has no types: text is no mistake here). */
function numberOf(cell: string): number | undefined {
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(cell)) return undefined;
  const n = Number(cell);
  return Number.isFinite(n) && new Decimal(cell).eq(n) ? n : undefined;
}

/** One input line as a household object: a JSON object, or a CSV row under the header's columns. */
export function householdFromLine(format: LineFormat, columns: string[], line: string): Record<string, unknown> {
  if (format === 'csv') return householdFromCsv(columns, parseCsvLine(line));
  const value = JSON.parse(line) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('must be a JSON object (a household)');
  return value as Record<string, unknown>;
}

export interface LineError {
  code: string;
  message: string;
  assumptions?: Assumption[];
}

/** Assumptions in one CSV cell: `input=value` (`input[entity id]=value` off the main entity), `; `-separated. */
const assumptionsCell = (assumptions: Assumption[] | undefined, mainId: string): string =>
  (assumptions ?? []).map((a) => `${a.input}${a.entity_id === null || a.entity_id === mainId ? '' : `[${a.entity_id}]`}=${JSON.stringify(a.value)}`).join('; ');

/** Writes the output line for one household (or its error), its line end included. `mainId`: the main entity's id, which CSV leaves unsaid. */
export function writeResult(out: JsonBytes, format: LineFormat, line: number, variables: string[], trace: boolean, result: CalculateResponse | LineError, mainId: string): void {
  const failed = 'code' in result;
  if (format === 'jsonl') {
    if (failed) out.text(JSON.stringify({ line, error: result }));
    else {
      // the trace last, when asked for
      const { trace: steps, ...rest } = result;
      writeAnswer(out, trace ? { line, ...rest, trace: steps } : { line, ...rest });
    }
  } else if (failed) out.text(csvRecord([line, ...variables.map(() => ''), '', assumptionsCell(result.assumptions, mainId), `${result.code}: ${result.message}`]));
  else out.text(csvRecord([line, ...variables.map((v) => result.outputs[v]), result.warnings.join('; '), assumptionsCell(result.assumptions, mainId), '']));
  out.byte(NEWLINE);
}

const NEWLINE = 0x0a;

export const csvHeader = (variables: string[]): string => csvRecord(['line', ...variables, 'warnings', 'assumptions', 'error']);
