// Deterministic generated households for a runtime package, in the API's entities form: the
// package's sample household with every input varied by its dtype (money with and without cents,
// zero and large amounts, flipped conditions, every listed text value), one to six people, and a
// few periods (the default, another covered month, one past the figures' coverage). And, for a
// real-size program with companion cases, households varied from those cases (every input given,
// by legal id) and sparse ones (a few facts by name, as a screening client sends them).
// Used by the engines' differential test and the benchmarks.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

import { isAgeInput, valueKind } from '../dist/compiler/dtypes.js';

/** A small seeded PRNG (mulberry32): the same seed gives the same households everywhere. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function money(rand) {
  const r = rand();
  if (r < 0.25) return 0;
  if (r < 0.5) return Math.floor(rand() * 800);
  if (r < 0.8) return Math.round(rand() * 400000) / 100; // cents
  if (r < 0.95) return Math.floor(rand() * 9000);
  return Math.round(rand() * 1e8) / 100;
}

function vary(input, sampleValue, rand) {
  if (isAgeInput(input) && valueKind(input.dtype) !== 'boolean') return Math.floor(rand() * 90); // within the adapter's plausible ages
  switch (input.dtype) {
    case 'Boolean':
    case 'Bool':
    case 'boolean':
    case 'bool':
      return rand() < 0.2;
    case 'Text':
    case 'String':
    case 'text':
    case 'string':
      return input.values?.length ? input.values[Math.floor(rand() * input.values.length)] : sampleValue;
    case 'Date':
    case 'date':
      return sampleValue;
    case 'Integer':
    case 'Count':
    case 'int':
      return Math.floor(rand() * 4);
    default:
      return money(rand);
  }
}

/**
 * `count` households for `pkg` (a runtime package), from `seed`. Each is a CalculateRequest's
 * `household`.
 */
export function generateHouseholds(pkg, count, seed = 1) {
  const rand = random(seed);
  const sample = pkg.sample_request.household;
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity);
  const person = pkg.entities.find((e) => e.entity === pkg.person_entity);
  const mainId = main.id_template;
  const sampleMain = sample.entities?.[main.entity]?.[mainId] ?? {};
  const samplePerson = person ? Object.values(sample.entities?.[person.entity] ?? {})[0] ?? {} : {};
  const [year, month] = pkg.default_period.split('-').map(Number);
  const shift = (m) => {
    const d = new Date(Date.UTC(year, month - 1 + m, 1));
    return d.toISOString().slice(0, 7);
  };
  const periods = [pkg.default_period, shift(1), shift(24)];
  const out = [];
  for (let i = 0; i < count; i++) {
    const entities = {};
    const people = person ? 1 + Math.floor(rand() * 6) : 0;
    const facts = {};
    for (const input of main.inputs) {
      if (!(input.name in sampleMain) && rand() < 0.5) continue; // leave some to their defaults
      facts[input.name] = input.name === main.count_from || input.name.endsWith('_size') ? Math.max(1, people || 1 + Math.floor(rand() * 8)) : vary(input, sampleMain[input.name], rand);
    }
    entities[main.entity] = { [mainId]: facts };
    if (person) {
      const members = {};
      for (let k = 1; k <= people; k++) {
        const attrs = {};
        for (const input of person.inputs) if (input.name in samplePerson || input.default === undefined) attrs[input.name] = vary(input, samplePerson[input.name], rand);
        members[person.id_template.replace('{index}', String(k))] = attrs;
      }
      entities[person.entity] = members;
    }
    out.push({ period: periods[Math.floor(rand() * periods.length)], entities });
  }
  return out;
}

/** Write `count` households for `pkg` to `file` as JSON Lines, in chunks (seeds 1, 2, … per 10,000), in constant memory. */
export async function writeHouseholds(pkg, count, file) {
  const CHUNK = 10_000;
  const out = createWriteStream(file);
  for (let done = 0; done < count; done += CHUNK) {
    const text = generateHouseholds(pkg, Math.min(CHUNK, count - done), 1 + done / CHUNK).map((h) => JSON.stringify(h)).join('\n') + '\n';
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

// ---- households from a program's companion cases ----

/** A number of a companion case varied like a household's: counts stay small whole numbers (a
 *  positive one stays positive: a period of 0 months divides by zero), amounts change (most zeros
 *  stay zero). */
export function varyCaseValue(key, v, rand) {
  if (typeof v !== 'number') return v;
  const name = key.slice(key.lastIndexOf('.') + 1);
  if (/size|number|count|months|age|hours/.test(name)) return Number.isInteger(v) ? Math.max(v >= 1 ? 1 : 0, v + Math.floor(rand() * 3) - 1) : v;
  if (v === 0 && rand() < 0.7) return 0;
  return Math.round(rand() * 300000) / 100;
}

/** An input's name without the module of its legal id: one input, whichever module's id a case uses. */
const bareName = (key) => key.slice(key.lastIndexOf('.') + 1);

/** Values of one object varied, one input one value: the same input given under two legal ids
 *  (as cases do when two modules read it) gets the same varied value, as a household must give it. */
function varyObject(entries, rand) {
  const chosen = new Map();
  return Object.fromEntries(
    entries.map(([k, x]) => {
      const key = `${bareName(k)}\u0000${JSON.stringify(x)}`;
      if (!chosen.has(key)) chosen.set(key, varyCaseValue(k, x, rand));
      return [k, chosen.get(key)];
    }),
  );
}

const varyRow = (row, rand) => varyObject(Object.entries(row), rand);

/** A companion case with every number of its input varied (relation rows too). */
export function variedCase(c, rand) {
  const entries = Object.entries(c.input ?? {});
  const input = varyObject(entries.filter(([, v]) => !Array.isArray(v)), rand);
  for (const [key, v] of entries) if (Array.isArray(v)) input[key] = v.map((row) => varyRow(row, rand));
  return { ...c, input };
}

/**
 * A companion case as a household of `pkg` in the API's conventions, every input by the legal id
 * the case gives it: the main entity's inputs under `facts`; each row of a relation an instance of
 * the relation's member entity (`member-1`, …) under `entities`, its inputs that another entity
 * declares (a Person's, say) under that entity with the same id.
 */
export function caseHousehold(pkg, c) {
  const entityOf = new Map();
  for (const e of pkg.entities) if (e.entity !== pkg.main_entity) for (const i of e.inputs) if (!entityOf.has(i.name) || e.relations?.length) entityOf.set(i.name, e);
  const facts = {};
  const entities = {};
  for (const [key, v] of Object.entries(c.input)) {
    if (!Array.isArray(v)) {
      facts[key] = v;
      continue;
    }
    const relation = key.slice(key.indexOf('#relation.') + '#relation.'.length);
    const member = pkg.entities.find((e) => e.relations?.some((r) => r.name === key || r.name.endsWith(`#relation.${relation}`)));
    v.forEach((row, k) => {
      const id = member.id_template.replace('{index}', String(k + 1));
      (entities[member.entity] ??= {})[id] ??= {};
      for (const [input, x] of Object.entries(row)) {
        const entity = entityOf.get(input.slice(input.lastIndexOf('#input.') + '#input.'.length)) ?? member;
        ((entities[entity.entity] ??= {})[id] ??= {})[input] = x;
      }
    });
  }
  // the member entity first: its instances link the others' inputs to the main entity
  return { period: c.period, facts, entities };
}

/**
 * `count` households of `pkg` varied from its companion `cases` in turn: every number varied, one
 * to six members (the case's first member row, varied for each), and the case's `…_size` inputs
 * set to the number of members.
 */
export function caseHouseholds(pkg, cases, count, seed = 1) {
  const rand = random(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const c = variedCase(cases[i % cases.length], rand);
    const members = 1 + Math.floor(rand() * 6);
    for (const [key, v] of Object.entries(c.input)) {
      if (Array.isArray(v) && v.length) c.input[key] = [v[0], ...Array.from({ length: members - 1 }, () => varyRow(v[0], rand))];
      else if (key.endsWith('#input.household_size')) c.input[key] = members;
    }
    out.push(caseHousehold(pkg, c));
  }
  return out;
}
