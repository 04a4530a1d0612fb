import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES_DIR } from '../../compiler/project.js';
import { isObj, periodOf, type WireHousehold } from './wire.js';

// A reference set: households in the external engine's wire format with the values that
// engine recorded for them, e.g. ../shared/validation/policyengine-snap-2026-01.json:
//   {engine, engine_version, period: "YYYY-MM", notes?: string[], sets?: {name: description},
//    households: [{id, state?, set?, situation, <engine values>: {variable: value}}]}
// The recorded values sit under `expected`, or under the engine's short name (`policyengine`).

/** The reference sets bundled with the project (also the migration ledger's demand data). */
export const REFERENCE_DIR = path.join(FIXTURES_DIR, 'validation');
export const DEFAULT_REFERENCE = path.join(REFERENCE_DIR, 'policyengine-snap-2026-01.json');

/** A reference file that cannot be used, with the file and why. */
export class ReferenceFileError extends Error {}

export interface ReferenceCase {
  id: string;
  file: string;
  state?: string;
  set?: string;
  situation: WireHousehold;
  expected: Record<string, unknown>;
}

export interface ReferenceSet {
  engine: string;
  engine_version: string;
  period: string;
  notes: string[];
  cases: ReferenceCase[];
}

export function loadReferences(files: string[]): ReferenceSet {
  const sets = files.map(loadReference);
  const [first] = sets;
  for (const s of sets.slice(1)) {
    if (s.engine !== first.engine || s.engine_version !== first.engine_version || s.period !== first.period) {
      throw new ReferenceFileError(`reference files disagree: ${first.engine} ${first.engine_version} for ${first.period} and ${s.engine} ${s.engine_version} for ${s.period}; validate them separately`);
    }
  }
  const cases = sets.flatMap((s) => s.cases);
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new ReferenceFileError(`${c.file}: household id ${c.id} appears twice in the references`);
    seen.add(c.id);
  }
  return { ...first, notes: [...new Set(sets.flatMap((s) => s.notes))], cases };
}

function loadReference(file: string): ReferenceSet {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ReferenceFileError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a folder, not a JSON file' : e instanceof SyntaxError ? `not JSON (${e.message})` : e.message}`);
  }
  const bad = (what: string): never => {
    throw new ReferenceFileError(`${file}: ${what}`);
  };
  if (!isObj(doc)) bad('must be a JSON object with `engine`, `period` and `households`');
  const ref = doc as Record<string, unknown>;
  const engine = typeof ref.engine === 'string' ? ref.engine : bad('`engine` (the reference engine\'s name) is missing');
  const period = typeof ref.period === 'string' && periodOf(ref.period)?.annual === false ? ref.period : bad('`period` must be the month the values are for (YYYY-MM)');
  if (!Array.isArray(ref.households) || ref.households.length === 0) bad('`households` must be a non-empty list');
  const valuesKey = engine.split('-')[0];
  const cases = (ref.households as unknown[]).map((h, i): ReferenceCase => {
    const at = `households[${i}]`;
    if (!isObj(h)) bad(`${at} must be an object`);
    const c = h as Record<string, unknown>;
    if (typeof c.id !== 'string' || !c.id) bad(`${at}.id must be a non-empty string`);
    if (!isObj(c.situation)) bad(`${at} (${c.id}) has no \`situation\` (the household in the engine's wire format)`);
    const expected = c.expected ?? c[valuesKey];
    if (!isObj(expected)) bad(`${at} (${c.id}) has no recorded values (\`expected\` or \`${valuesKey}\`)`);
    return {
      id: c.id as string,
      file,
      state: typeof c.state === 'string' ? c.state : undefined,
      set: typeof c.set === 'string' ? c.set : undefined,
      situation: c.situation as WireHousehold,
      expected: expected as Record<string, unknown>,
    };
  });
  return {
    engine,
    engine_version: typeof ref.engine_version === 'string' ? ref.engine_version : 'unknown',
    period,
    notes: Array.isArray(ref.notes) ? ref.notes.filter((n): n is string => typeof n === 'string') : [],
    cases,
  };
}
