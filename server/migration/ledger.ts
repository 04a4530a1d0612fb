import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import type { TableFamily } from './mapping.js';
import { inputName, mappingIndex, TABLE_FAMILIES, type PackageMapping } from './package-mapping.js';
import { SNAP_OUTPUTS } from './policyengine-us.js';
import { loadReferences, type ReferenceSet } from './reference.js';
import { ENTITY_GROUPS, isObj, STRUCTURAL_KEYS } from './wire.js';

// The migration ledger: what partners migrating from the external engine ask of it (the
// variables their households request and the inputs they send, taken from the bundled
// reference sets), whether our mapping tables cover each one, how much each is demanded
// (the share of households that use it), and, per state package served, which external
// variables the tables map onto it and which of its inputs nothing feeds.

export interface LedgerVariable {
  name: string;
  entity: string;
  direction: 'output' | 'input';
  status: 'mapped' | 'awaiting';
  demand_weight: number;
  households: number;
  /** Package outputs or inputs that answer or take it (empty when it is deliberately unused). */
  maps_to: string[];
  note?: string;
}

/** The bundled reference files (the partner demand data); none means no ledger. */
export function referenceFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

export function buildLedger(files: string[], catalog: Catalog, families: TableFamily[] = TABLE_FAMILIES): Record<string, unknown> {
  const refs: ReferenceSet = loadReferences(files);
  const index = mappingIndex(catalog, families);
  const served = [...index.byState.values()];
  // the tables of the corpora served (every family's when no state package is served)
  const inUse = families.filter((f) => served.some((m) => m.family === f));
  const tables = (inUse.length ? inUse : families).flatMap((f) => [f.federal, ...f.states]);
  const total = refs.cases.length;
  const demand = new Map<string, { entity: string; direction: 'output' | 'input'; households: Set<string> }>();
  const count = (name: string, entity: string, direction: 'output' | 'input', household: string) => {
    const key = `${direction}\u0000${entity}\u0000${name}`;
    const entry = demand.get(key) ?? { entity, direction, households: new Set<string>() };
    entry.households.add(household);
    demand.set(key, entry);
  };
  for (const c of refs.cases) {
    for (const variable of Object.keys(c.expected)) count(variable, 'spm_units', 'output', c.id);
    for (const group of ENTITY_GROUPS) {
      for (const entity of Object.values(c.situation[group] ?? {})) {
        for (const [variable, values] of Object.entries(entity)) {
          if (STRUCTURAL_KEYS.has(variable) || !isObj(values)) continue;
          const asked = Object.values(values).some((v) => v === null);
          count(variable, group, asked ? 'output' : 'input', c.id);
        }
      }
    }
  }
  const variables: LedgerVariable[] = [...demand].map(([key, d]) => {
    const name = key.split('\u0000')[2];
    const rows =
      d.direction === 'output'
        ? tables.flatMap((t) => t.outputs.filter((o) => o.variable === name).map((o) => o.name.slice(o.name.indexOf('#') + 1)))
        : tables.flatMap((t) => t.inputs.filter((r) => r.variable === name && r.entity === d.entity).map((r) => inputName(r.input)));
    const unused = tables.flatMap((t) => t.unused).find((u) => u.variable === name && u.entity === d.entity);
    const place = d.direction === 'input' && d.entity === 'households' && ['state_code', 'state_name'].includes(name);
    return {
      name,
      entity: d.entity,
      direction: d.direction,
      status: rows.length || unused || place ? 'mapped' : 'awaiting',
      demand_weight: Math.round((d.households.size / total) * 10000) / 10000,
      households: d.households.size,
      maps_to: [...new Set(rows)],
      ...(unused ? { note: `deliberately unused: ${unused.reason}` } : place ? { note: 'selects the state package' } : {}),
    };
  });
  variables.sort((a, b) => b.demand_weight - a.demand_weight || a.direction.localeCompare(b.direction) || a.name.localeCompare(b.name));
  const known = tables.filter((t) => t.scope !== 'federal').map((t) => t.scope);
  const states = [
    ...served.sort((a, b) => a.state.localeCompare(b.state)).map(statePackage),
    ...[...new Set(known)].filter((s) => !index.byState.has(s)).map((state) => ({ state, jurisdiction: `us-${state.toLowerCase()}`, program_id: `${state.toLowerCase()}-snap`, runtime_id: null, status: 'no package' })),
  ];
  return {
    engine: refs.engine,
    engine_version: refs.engine_version,
    period: refs.period,
    source: `${files.map((f) => path.basename(f)).join(', ')}: ${total} households`,
    totals: {
      variables: variables.length,
      mapped: variables.filter((v) => v.status === 'mapped').length,
      awaiting: variables.filter((v) => v.status === 'awaiting').length,
      demand_covered: Math.round((variables.filter((v) => v.status === 'mapped').reduce((s, v) => s + v.demand_weight, 0) / Math.max(1, variables.reduce((s, v) => s + v.demand_weight, 0))) * 10000) / 10000,
    },
    variables,
    states,
    covered_states: states.filter((s) => s.status === 'covered').map((s) => s.state),
  };
}

/** One served state package: the tables that map onto it, what they feed and answer, and its inputs nothing feeds. */
function statePackage(m: PackageMapping) {
  const fed = new Set(m.inputs.map((r) => `${r.entity}\u0000${r.input.name}`));
  const unfed = m.loaded.pkg.entities.flatMap((e) => e.inputs.filter((i) => !fed.has(`${e.entity}\u0000${i.name}`) && i.name !== m.sizeInput).map((i) => ({ input: i.name, entity: e.entity, legal_id: i.legal_id, default: i.default ?? null })));
  const byVariable = new Map<string, { variable: string; entity: string; feeds: { input: string; legal_id: string; via?: string }[] }>();
  for (const r of m.inputs) {
    const key = `${r.row.entity}.${r.row.variable}`;
    const entry = byVariable.get(key) ?? byVariable.set(key, { variable: r.row.variable, entity: r.row.entity, feeds: [] }).get(key)!;
    if (!entry.feeds.some((f) => f.input === r.input.name)) entry.feeds.push({ input: r.input.name, legal_id: r.input.legal_id, ...(r.via ? { via: r.via } : {}) });
  }
  return {
    state: m.state,
    jurisdiction: m.jurisdiction,
    program_id: m.program_id,
    runtime_id: m.runtime_id,
    status: 'covered',
    tables: m.tables.map((t) => t.name),
    corpus: m.family.corpus,
    mapped_inputs: [...byVariable.values()],
    mapped_outputs: [...m.outputs.values()].map((o) => ({ variable: o.output.variable, ...('rule' in o ? { rule: o.rule } : { input: o.input }) })),
    // the external engine's outputs this package answers none of: a rule the tables name that it lacks, or none named
    unanswered_outputs: SNAP_OUTPUTS.filter((o) => !m.outputs.has(o.variable)).map((o) => {
      const wanted = m.unanswered.find((u) => u.output.variable === o.variable);
      return { variable: o.variable, reason: wanted ? `the ${wanted.table} table names ${wanted.output.name}, which this package does not have` : 'no table maps it onto a rule of this package' };
    }),
    unfed_inputs: unfed,
    totals: { inputs: unfed.length + fed.size, fed: fed.size, unfed: unfed.length },
  };
}
