import type { Assumption, TraceEntry } from '../compiler/runtime/calculate.js';

// A calculation's answer as JSON text: exactly what JSON.stringify writes for it, faster. Most of
// an answer's bytes are the same in every household: a trace entry's rule, variable and sources,
// an assumption whole. Those are written once per rule (or assumption) and reused, so a response
// costs its values, not its size; JSON.stringify re-serialised them for every answer (the largest
// single cost of POST /v1/calculate in the daemon's profile).

/** A route's `data` already written as JSON text, in pieces whose concatenation is the JSON (the app writes the envelope around them). */
export class JsonText {
  constructor(readonly pieces: string[]) {}
}

/**
 * Strings as one UTF-8 buffer, each encoded on its own. An answer is a string built of many small
 * pieces; one string of a whole batch costs more to flatten than to encode (a 25-answer batch:
 * encoding it answer by answer halves the cost of writing it, and sending bytes spares Fastify a
 * second pass to count them). Sized for a byte a character, as answers almost always are, and
 * grown when a piece did not fit: `write` stops at the last whole character that fits, so a piece
 * that leaves room for another (4 bytes) was written whole. Counting each piece's bytes first
 * would be a second pass; sizing for the worst case, 3 bytes a character, tripled the daemon's
 * garbage collection.
 */
export function utf8Bytes(pieces: string[]): Buffer {
  let unwritten = 0;
  for (const piece of pieces) unwritten += piece.length;
  let bytes = Buffer.allocUnsafe(unwritten + SLACK);
  let end = 0;
  for (const piece of pieces) {
    unwritten -= piece.length;
    let written = bytes.write(piece, end);
    if (bytes.length - end - written < 4 && written !== Buffer.byteLength(piece)) {
      const larger = Buffer.allocUnsafe(end + Buffer.byteLength(piece) + unwritten + SLACK);
      bytes.copy(larger, 0, 0, end);
      bytes = larger;
      written = bytes.write(piece, end);
    }
    end += written;
  }
  return bytes.subarray(0, end);
}

const SLACK = 4096;

/** `{"rule_id":…,"variable":…,"value":` by rule id (the variable kept to check the entry is that rule's). */
const traceHeads = new Map<string, { variable: string; head: string }>();
/** `,"sources":[…],"entity":` by a rule's sources list (shared by every entry of the rule). */
const traceTails = new WeakMap<string[], string>();
/** An assumption's JSON: assumptions are shared by every answer that makes them (calculate.ts). */
const assumptionTexts = new WeakMap<Assumption, string>();

/** `"…"}` by entity id: the closing text of an entry (an answer's entries name few entity ids). */
const traceEnds = new Map<string, string>();

const TRACE_FIELDS = ['rule_id', 'variable', 'value', 'sources', 'entity'];

/**
 * The shape the runtime makes: these five fields in this order, a value present, the texts and
 * list as typed. Keys are walked with for-in, not listed (Object.keys allocated an array per
 * entry); an inherited enumerable key only sends the entry to JSON.stringify.
 */
function isPlainTraceEntry(entry: TraceEntry): boolean {
  let i = 0;
  for (const key in entry) if (key !== TRACE_FIELDS[i++]) return false;
  return i === 5 && entry.value !== undefined && typeof entry.rule_id === 'string' && typeof entry.variable === 'string' && Array.isArray(entry.sources) && typeof entry.entity === 'string';
}

/** A value as JSON.stringify writes it, numbers and booleans without calling it (most trace values are). */
function valueJson(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? `${value}` : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

function traceEntryJson(entry: TraceEntry): string {
  if (!isPlainTraceEntry(entry)) return JSON.stringify(entry); // anything else, as JSON.stringify writes it
  const { rule_id, variable, value, sources, entity } = entry;
  let head = traceHeads.get(rule_id);
  if (head?.variable !== variable) traceHeads.set(rule_id, (head = { variable, head: `{"rule_id":${JSON.stringify(rule_id)},"variable":${JSON.stringify(variable)},"value":` }));
  let tail = traceTails.get(sources);
  if (tail === undefined) traceTails.set(sources, (tail = `,"sources":${JSON.stringify(sources)},"entity":`));
  let end = traceEnds.get(entity);
  if (end === undefined) {
    end = `${JSON.stringify(entity)}}`;
    if (traceEnds.size < 10_000) traceEnds.set(entity, end); // entity ids come from households: a bounded cache
  }
  return head.head + valueJson(value) + tail + end;
}

/** A trace as JSON text (see traceEntryJson). */
export function traceJson(trace: TraceEntry[]): string {
  let text = '[';
  for (let i = 0; i < trace.length; i++) text += (i ? ',' : '') + traceEntryJson(trace[i]);
  return `${text}]`;
}

/** Assumptions as JSON text, each written once per package. */
export function assumptionsJson(assumptions: Assumption[]): string {
  let text = '[';
  for (let i = 0; i < assumptions.length; i++) {
    const a = assumptions[i];
    let json = assumptionTexts.get(a);
    if (json === undefined) {
      json = JSON.stringify(a);
      if (Object.isFrozen(a)) assumptionTexts.set(a, json); // only the shared ones, which cannot change
    }
    text += (i ? ',' : '') + json;
  }
  return `${text}]`;
}

/**
 * An object holding a calculation's answer (a CalculateResponse, or a line of `rules calculate`
 * around one) as JSON text: its `trace` and `assumptions` by the writers above, every other field
 * by JSON.stringify, in the object's own key order, undefined fields left out as JSON.stringify does.
 */
export function answerJson(answer: object): string {
  let text = '{';
  for (const [key, value] of Object.entries(answer)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const json = key === 'trace' && Array.isArray(value) ? traceJson(value) : key === 'assumptions' && Array.isArray(value) ? assumptionsJson(value) : JSON.stringify(value);
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${json}`;
  }
  return `${text}}`;
}
