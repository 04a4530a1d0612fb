import type { Assumption, TraceEntry } from '../compiler/runtime/calculate.js';
import type { JsonBytes } from './json-bytes.js';

// A calculation's answer as JSON: exactly the UTF-8 of what JSON.stringify writes for it, faster.
// Most of an answer's bytes are the same in every household: a trace entry's rule, variable and
// sources, an assumption whole. Those are encoded once per rule (or assumption) and their bytes
// copied into each answer (json-bytes.ts), so a response costs its values, not its size;
// JSON.stringify re-serialised them for every answer (the largest single cost of POST
// /v1/calculate in the daemon's profile).

/** A route's `data`, written as JSON where the app puts it (inside the envelope it writes around it). */
export class JsonData {
  constructor(readonly write: (out: JsonBytes) => void) {}
}

const COMMA = 0x2c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;

/** `{"rule_id":…,"variable":…,"value":` by rule id (the variable kept to check the entry is that rule's). */
const traceHeads = new Map<string, { variable: string; head: Buffer }>();
/** `,"sources":[…],"entity":` by a rule's sources list (shared by every entry of the rule). */
const traceTails = new WeakMap<string[], Buffer>();
/** An assumption's JSON: assumptions are shared by every answer that makes them (calculate.ts). */
const assumptionBytes = new WeakMap<Assumption, Buffer>();

/** `"…"}` by entity id: the closing text of an entry (an answer's entries name few entity ids). */
const traceEnds = new Map<string, Buffer>();

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

function writeTraceEntry(out: JsonBytes, entry: TraceEntry): void {
  if (!isPlainTraceEntry(entry)) return out.text(JSON.stringify(entry)); // anything else, as JSON.stringify writes it
  const { rule_id, variable, value, sources, entity } = entry;
  let head = traceHeads.get(rule_id);
  if (head?.variable !== variable) traceHeads.set(rule_id, (head = { variable, head: Buffer.from(`{"rule_id":${JSON.stringify(rule_id)},"variable":${JSON.stringify(variable)},"value":`) }));
  let tail = traceTails.get(sources);
  if (tail === undefined) traceTails.set(sources, (tail = Buffer.from(`,"sources":${JSON.stringify(sources)},"entity":`)));
  let end = traceEnds.get(entity);
  if (end === undefined) {
    end = Buffer.from(`${JSON.stringify(entity)}}`);
    if (traceEnds.size < 10_000) traceEnds.set(entity, end); // entity ids come from households: a bounded cache
  }
  out.bytes(head.head);
  out.text(valueJson(value));
  out.bytes(tail);
  out.bytes(end);
}

/** A trace as JSON (see writeTraceEntry). */
function writeTrace(out: JsonBytes, trace: TraceEntry[]): void {
  out.byte(OPEN_LIST);
  for (let i = 0; i < trace.length; i++) {
    if (i) out.byte(COMMA);
    writeTraceEntry(out, trace[i]);
  }
  out.byte(CLOSE_LIST);
}

/** Assumptions as JSON, each encoded once per package. */
function writeAssumptions(out: JsonBytes, assumptions: Assumption[]): void {
  out.byte(OPEN_LIST);
  for (let i = 0; i < assumptions.length; i++) {
    const a = assumptions[i];
    if (i) out.byte(COMMA);
    const bytes = assumptionBytes.get(a);
    if (bytes !== undefined) out.bytes(bytes);
    else if (Object.isFrozen(a)) {
      // only the shared ones, which cannot change
      const json = Buffer.from(JSON.stringify(a));
      assumptionBytes.set(a, json);
      out.bytes(json);
    } else out.text(JSON.stringify(a));
  }
  out.byte(CLOSE_LIST);
}

/**
 * An object holding a calculation's answer (a CalculateResponse, or a line of `rules calculate`
 * around one) as JSON: its `trace` and `assumptions` by the writers above, every other field by
 * JSON.stringify, in the object's own key order, undefined fields left out as JSON.stringify does.
 * The other fields' text is gathered and written between the lists, a piece at a time.
 */
export function writeAnswer(out: JsonBytes, answer: object): void {
  let text = '{';
  let first = true;
  for (const key of Object.keys(answer)) {
    const value = (answer as Record<string, unknown>)[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    text += `${first ? '' : ','}${keyJson(key)}:`;
    first = false;
    const list = Array.isArray(value) ? (key === 'trace' ? writeTrace : key === 'assumptions' ? writeAssumptions : undefined) : undefined;
    if (list) {
      out.text(text);
      text = '';
      list(out, value as never);
    } else text += JSON.stringify(value);
  }
  out.text(`${text}}`);
}

/** A key as JSON, kept for the few keys answers have (a bounded cache: anything else may be given). */
const keyTexts = new Map<string, string>();
function keyJson(key: string): string {
  let json = keyTexts.get(key);
  if (json === undefined) {
    json = JSON.stringify(key);
    if (keyTexts.size < 1000) keyTexts.set(key, json);
  }
  return json;
}
