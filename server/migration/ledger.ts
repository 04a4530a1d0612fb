import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import type { MappingTable } from './mapping.js';
import { loadReferences, type ReferenceSet } from './reference.js';
import { ENTITY_GROUPS, isObj, STRUCTURAL_KEYS } from './wire.js';

// The migration ledger: what partners migrating from the external engine ask of it (the
// variables their households request and the inputs they send, taken from the bundled
// reference sets), whether our mapping tables cover each one, how much each is demanded
// (the share of households that use it), and which states have a package.

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

export function buildLedger(files: string[], tables: MappingTable[], catalog: Catalog): Record<string, unknown> {
  const refs: ReferenceSet = loadReferences(files);
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
    const rows = d.direction === 'output' ? tables.flatMap((t) => t.outputs.filter((o) => o.variable === name).map((o) => o.name)) : tables.flatMap((t) => t.inputs.filter((r) => r.variable === name && r.entity === d.entity).map((r) => r.input));
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
  const states = tables.map((t) => {
    const pkg = catalog.package(t.jurisdiction, t.program_id);
    return { state: t.state, jurisdiction: t.jurisdiction, program_id: t.program_id, runtime_id: pkg?.pkg.runtime_id ?? null, status: pkg ? 'covered' : 'no package' };
  });
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
