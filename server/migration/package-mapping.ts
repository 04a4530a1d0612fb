import type { ScalarExpr } from '../../compiler/3-lower/ir.js';
import type { PackageInput, ProgramGraph } from '../../compiler/4-package/package-types.js';
import type { LoadedPackage } from '../../compiler/runtime/loaded-package.js';
import { Day } from '../../compiler/values.js';
import type { Catalog } from '../catalog/catalog.js';
import type { InputMapping, MappingTable, OutputMapping, Presumption, TableFamily } from './mapping.js';
import { POLICYENGINE_US_SNAP } from './policyengine-us-snap.js';
import { POLICYENGINE_US_SNAP_RULESPEC_US } from './policyengine-us-snap-rulespec-us.js';

// The mapping tables resolved against what is served: for each state's SNAP package (program id
// `<state>-snap` in `us-<state>`), the table family whose federal legal ids the package's modules
// read, that family's federal table and the state's own table if it has one, and each row tied to
// the package input (or rule) it names. A legal id the package does not read is looked for as a
// federal name the state binds with a rule of its own: when that rule is the input itself, or a
// sum in which one input is the household's own amount (`household_shelter_costs_incurred +
// the state's utility allowance`), the row feeds that input. A row that resolves in no served
// package, or in its own state's package, is a warning when the daemon starts, never a silent gap.

/** Every corpus the tables know, in the order they are tried. */
export const TABLE_FAMILIES: TableFamily[] = [POLICYENGINE_US_SNAP, POLICYENGINE_US_SNAP_RULESPEC_US];

export interface ResolvedInput {
  row: InputMapping;
  table: string;
  input: PackageInput;
  /** The package entity whose input it is. */
  entity: string;
  /** Per member (a person's own input) or the household's. */
  level: 'member' | 'household';
  /** The package rule through which the row's legal id reaches this input, when it is not read directly. */
  via?: string;
}

export interface ResolvedPresumption {
  presumption: Presumption;
  table: string;
  input: PackageInput;
  entity: string;
  /** Given to the household, to each member, or (an entity that only labels inputs) to both. */
  level: 'member' | 'household' | 'both';
}

export type ResolvedOutput = { output: OutputMapping; table: string } & ({ rule: string; index: number } | { input: string });

export interface PackageMapping {
  state: string;
  family: TableFamily;
  /** The federal table, then the state's own when there is one. */
  tables: MappingTable[];
  loaded: LoadedPackage;
  jurisdiction: string;
  program_id: string;
  runtime_id: string;
  inputs: ResolvedInput[];
  /** Rows this package does not read. */
  unresolved: { row: InputMapping; table: string }[];
  presumed: ResolvedPresumption[];
  /** Presumptions this package does not read. */
  unpresumed: { presumption: Presumption; table: string }[];
  outputs: Map<string, ResolvedOutput>;
  /** External output variables no rule or input of this package answers. */
  unanswered: { output: OutputMapping; table: string }[];
  main: { entity: string; id: string };
  /** Entities each person of the household is an instance of (those related to the main entity). */
  memberEntities: string[];
  /**
   * Entities no relation links to anything: they only label inputs, read on the ids of whatever
   * rules read them (the household's or the members'), so each of those ids carries them.
   */
  labelEntities: string[];
  /** The input that counts the household's members. */
  sizeInput: string | undefined;
}

export interface MappingIndex {
  byState: Map<string, PackageMapping>;
  /** Legal ids of the tables that the served packages do not have, and corpus versions that differ. */
  warnings: string[];
}

const cache = new WeakMap<Catalog, MappingIndex>();

/** The resolved mappings of a catalog (computed once per catalog for the default families). */
export function mappingIndex(catalog: Catalog, families: TableFamily[] = TABLE_FAMILIES): MappingIndex {
  if (families === TABLE_FAMILIES) {
    const cached = cache.get(catalog);
    if (cached) return cached;
  }
  const index = buildIndex(catalog, families);
  if (families === TABLE_FAMILIES) cache.set(catalog, index);
  return index;
}

/** An input's name from its legal id (`us:regulations/7-cfr/273/10#input.snap_total_medical_expenses` → `snap_total_medical_expenses`), or the name itself. */
export function inputName(key: string): string {
  const at = key.lastIndexOf('#input.');
  return at < 0 ? key : key.slice(at + '#input.'.length);
}

/** The state code of a state's SNAP package (`us-ga`/`ga-snap` → GA), else undefined. */
export function snapState(jurisdiction: string, programId: string): string | undefined {
  const m = /^us-([a-z]{2})$/.exec(jurisdiction);
  return m && programId === `${m[1]}-snap` ? m[1].toUpperCase() : undefined;
}

function buildIndex(catalog: Catalog, families: TableFamily[]): MappingIndex {
  const byState = new Map<string, PackageMapping>();
  for (const entry of catalog.packages) {
    const state = snapState(entry.jurisdiction, entry.program_id);
    const loaded = state ? catalog.package(entry.jurisdiction, entry.program_id) : undefined;
    if (!state || !loaded) continue;
    // the family whose federal rows this package reads the most of
    const graph = catalog.graph(entry.jurisdiction, entry.program_id);
    const candidates = families.map((family) => ({ family, mapping: resolvePackage(state, family, loaded, graph) }));
    const best = candidates.reduce((a, b) => (fedRows(b.mapping) > fedRows(a.mapping) ? b : a));
    if (fedRows(best.mapping) > 0) byState.set(state, best.mapping);
  }
  return { byState, warnings: warningsOf(catalog, [...byState.values()]) };
}

const fedRows = (m: PackageMapping) => m.inputs.filter((r) => r.table === m.family.federal.name).length;

/**
 * The tables of `family` tied to one state's package. With the package's graph, a legal id counts
 * only where the module it names reads that input (not merely an input of that name read by
 * another module), so a renamed input is a gap, not a false match.
 */
export function resolvePackage(state: string, family: TableFamily, loaded: LoadedPackage, graph?: ProgramGraph): PackageMapping {
  const reads = graph ? readsOf(graph) : undefined;
  const pkg = loaded.pkg;
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity)!;
  const related = pkg.entities.filter((e) => e.relations?.some((r) => r.tuple[1] === main.entity));
  // an entity without relations only labels inputs, read on the ids of the entity whose rules
  // read them: a person's inputs read by the rules counted over the members
  const labels = pkg.entities.filter((e) => !e.relations?.length && e !== main);
  const memberEntities = new Set(related.map((e) => e.entity));
  const labelEntities = new Set(labels.map((e) => e.entity));
  const tables = [family.federal, ...family.states.filter((t) => t.scope === state)];
  const inputs: ResolvedInput[] = [];
  const unresolved: PackageMapping['unresolved'] = [];
  // a state's row that takes a variable from a federal input instead drops the federal rows feeding it
  const replaced = new Set(tables.slice(1).flatMap((t) => t.inputs.filter((r) => r.instead_of).map((r) => `${r.entity}.${r.variable}\u0000${r.instead_of}`)));
  for (const table of tables) {
    for (const row of table.inputs) {
      if (table === family.federal && replaced.has(`${row.entity}.${row.variable}\u0000${row.input}`)) continue;
      const found = findInput(loaded, row.input, reads);
      // a label entity's input is a person's when a person's variable feeds it, else the household's
      const level = !found ? undefined : found.entity === main.entity ? 'household' : memberEntities.has(found.entity) ? 'member' : labelEntities.has(found.entity) ? (row.entity === 'people' ? 'member' : 'household') : undefined;
      if (!found || !level) unresolved.push({ row, table: table.name });
      else inputs.push({ row, table: table.name, ...found, level });
    }
  }
  // a state's row and a federal row that reach the same input (the federal one through the state's
  // bridge) for the same variable are one row: the state's
  const key = (r: ResolvedInput) => `${r.row.entity}.${r.row.variable}\u0000${r.entity}\u0000${r.input.name}`;
  const stateKeys = new Set(inputs.filter((r) => r.table !== family.federal.name).map(key));
  for (let i = inputs.length - 1; i >= 0; i--) if (inputs[i].table === family.federal.name && stateKeys.has(key(inputs[i]))) inputs.splice(i, 1);
  const presumed: ResolvedPresumption[] = [];
  const unpresumed: PackageMapping['unpresumed'] = [];
  for (const table of tables) {
    for (const presumption of table.presumed ?? []) {
      const found = findInput(loaded, presumption.input, reads);
      const level = !found ? undefined : found.entity === main.entity ? 'household' : memberEntities.has(found.entity) ? 'member' : labelEntities.has(found.entity) ? 'both' : undefined;
      if (!found || !level) unpresumed.push({ presumption, table: table.name });
      else presumed.push({ presumption, table: table.name, input: found.input, entity: found.entity, level });
    }
  }
  const outputs = new Map<string, ResolvedOutput>();
  const unanswered: PackageMapping['unanswered'] = [];
  for (const table of tables) {
    for (const output of table.outputs) {
      const found = findOutput(loaded, output, main.entity);
      if (found) outputs.set(output.variable, { output, table: table.name, ...found });
      else if (!outputs.has(output.variable)) unanswered.push({ output, table: table.name });
    }
  }
  // the size the federal figures are looked up by, else the input the members are counted in
  const person = pkg.person_entity ? pkg.entities.find((e) => e.entity === pkg.person_entity) : undefined;
  const sizeInput = ['household_size', person?.count_from, ...related.map((e) => e.count_from)].find((n) => n && main.inputs.some((i) => i.name === n));
  return {
    state,
    family,
    tables,
    loaded,
    jurisdiction: pkg.jurisdiction,
    program_id: pkg.program_id,
    runtime_id: pkg.runtime_id,
    inputs,
    unresolved,
    presumed,
    unpresumed,
    outputs,
    unanswered: unanswered.filter((u) => !outputs.has(u.output.variable)),
    main: { entity: main.entity, id: main.id_template },
    memberEntities: [...memberEntities],
    labelEntities: [...labelEntities],
    sizeInput,
  };
}

/** The package input a row's legal id (or name) names, directly or through the rule the state binds that name with. */
/** What each module of a package reads: its inputs' legal ids, and the rules its formulas read (`module\u0000rule id`). */
interface Reads {
  inputs: Set<string>;
  rules: Set<string>;
}
function readsOf(graph: ProgramGraph): Reads {
  return { inputs: new Set(graph.inputs.map((i) => i.legalId)), rules: new Set(graph.rules.flatMap((r) => r.ruleDeps.map((d) => `${r.fileLegalId}\u0000${d}`))) };
}

function findInput(loaded: LoadedPackage, key: string, reads: Reads | undefined): { input: PackageInput; entity: string; via?: string } | undefined {
  const mark = key.lastIndexOf('#input.');
  if (mark < 0 || !reads || reads.inputs.has(key)) {
    for (const e of loaded.pkg.entities) {
      const input = loaded.resolveInput(e.entity, key);
      if (input) return { input, entity: e.entity };
    }
  }
  if (mark < 0) return undefined;
  const rule = loaded.executable.ruleByName.get(key.slice(mark + '#input.'.length));
  // the module the legal id names must read that rule: the state bound the name it reads
  if (rule === undefined || (reads && !reads.rules.has(`${key.slice(0, mark)}\u0000${loaded.executable.rules[rule].id}`))) return undefined;
  const slot = ownAmount(loaded, rule);
  const entity = slot ? loaded.entityOfInput(slot) : undefined;
  const input = entity ? loaded.entity(entity)?.inputs.find((i) => i.name === slot) : undefined;
  return input && entity ? { input, entity, via: loaded.executable.rules[rule].id } : undefined;
}

/**
 * The one input a rule passes through as an amount of the household's own: the rule is that
 * input, or a sum (through rules that are themselves such sums, and `max(0, …)`) whose terms
 * hold exactly one input; computed terms (an allowance, a conditional) are left alone.
 */
function ownAmount(loaded: LoadedPackage, rule: number): string | undefined {
  const exec = loaded.executable;
  const start = Day.parse(`${loaded.pkg.default_period}-01`)?.n ?? 0;
  const slots = new Set<string>();
  const seen = new Set<number>();
  const walk = (e: ScalarExpr, depth: number): void => {
    if (depth > 8) return;
    if (e.k === 'input') slots.add(e.slot);
    else if (e.k === 'arith' && e.op === '+') {
      walk(e.a, depth + 1);
      walk(e.b, depth + 1);
    } else if (e.k === 'minmax' && e.op === 'max' && e.args.length === 2 && e.args.some((a) => a.k === 'lit')) {
      for (const a of e.args) if (a.k !== 'lit') walk(a, depth + 1);
    } else if (e.k === 'rule' && !seen.has(e.rule)) {
      seen.add(e.rule);
      const expr = versionAt(exec.rules[e.rule].versions, start);
      if (expr) walk(expr as ScalarExpr, depth + 1);
    }
  };
  walk({ k: 'rule', rule }, 0);
  return slots.size === 1 ? [...slots][0] : undefined;
}

function versionAt(versions: { from: number | null; to: number | null; expr: unknown }[], day: number): unknown {
  return (versions.find((v) => (v.from === null || v.from <= day) && (v.to === null || day < v.to)) ?? versions[versions.length - 1])?.expr;
}

function findOutput(loaded: LoadedPackage, output: OutputMapping, mainEntity: string): { rule: string; index: number } | { input: string } | undefined {
  const exec = loaded.executable;
  if (output.from !== 'input') {
    const index = output.name.includes('#') ? exec.ruleById.get(output.name) : exec.ruleByName.get(output.name);
    if (index !== undefined && exec.rules[index].entity === mainEntity) return { rule: exec.rules[index].id, index };
    if (output.name.includes('#')) return undefined;
  }
  const input = loaded.resolveInput(mainEntity, output.name);
  return input ? { input: input.name } : undefined;
}

/** Each table row or output no served package of its corpus has, and tables written against another version of the corpus served. */
function warningsOf(catalog: Catalog, mappings: PackageMapping[]): string[] {
  const warnings: string[] = [];
  const families = [...new Set(mappings.map((m) => m.family))];
  for (const family of families) {
    const mine = mappings.filter((m) => m.family === family);
    const served = catalog.roots.length ? catalog.manifest.roots.find((r) => r.repo === family.corpus.repo) : undefined;
    if (served && family.corpus.commit && served.commit && served.commit !== family.corpus.commit) {
      warnings.push(`the ${family.name} mapping tables were written against ${family.corpus.repo}@${family.corpus.commit.slice(0, 12)}; ${served.path} is ${served.commit.slice(0, 12)}: the legal ids below that are missing changed since`);
    }
    for (const table of [family.federal, ...family.states]) {
      const users = table.scope === 'federal' ? mine : mine.filter((m) => m.state === table.scope);
      if (!users.length) continue;
      const lacks = table.scope === 'federal' ? 'no served state package has' : `${users[0].jurisdiction}/${users[0].program_id} has no`;
      const version = `${family.corpus.repo}${family.corpus.commit ? `@${family.corpus.commit.slice(0, 12)}` : ''}`;
      const missingInputs = [...new Set(table.inputs.filter((row) => !users.some((m) => m.inputs.some((r) => r.row === row))).map((row) => row.input))];
      for (const input of missingInputs) {
        const feeders = [...new Set(table.inputs.filter((r) => r.input === input).map((r) => `${r.entity}.${r.variable}`))];
        warnings.push(`mapping table ${table.name} (written against ${version}): ${lacks} ${input}; ${feeders.join(', ')} ${feeders.length === 1 ? 'feeds' : 'feed'} nothing there`);
      }
      for (const p of (table.presumed ?? []).filter((p) => !users.some((m) => m.presumed.some((r) => r.presumption === p)))) {
        warnings.push(`mapping table ${table.name} (written against ${version}): ${lacks} ${p.input}; the presumption that it is ${JSON.stringify(p.value)} applies nowhere`);
      }
      for (const output of table.outputs.filter((o) => o.name.includes('#') && !users.some((m) => m.outputs.get(o.variable)?.output === o))) {
        warnings.push(`mapping table ${table.name} (written against ${version}): ${lacks} rule ${output.name}; ${output.variable} is not answered there`);
      }
    }
  }
  return warnings;
}
