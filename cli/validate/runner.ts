import { performance } from 'node:perf_hooks';
import type { ProgramGraph } from '../../compiler/4-package/package-types.js';
import { runCalculation } from '../../server/calculation.js';
import type { MappingTable } from '../../server/migration/mapping.js';
import { POLICYENGINE_US_SNAP } from '../../server/migration/policyengine-us-snap.js';
import { MigrationError, runMigration, type IgnoredInput, type Unsupported } from '../../server/migration/run.js';
import { isObj, type WireHousehold } from '../../server/migration/wire.js';
import type { Catalog } from '../../server/catalog/catalog.js';
import { UsageError } from '../exit-codes.js';
import type { ReferenceCase } from '../../server/migration/reference.js';

// Runs reference households through the migration endpoint's mapping and packages, either
// in-process (a compiled output tree) or against a running daemon's
// POST /v1/household/us/calculate, and collects our value of every compared variable.

export interface CaseOutcome {
  id: string;
  latency_ms: number;
  /** Our value of each compared variable (absent: not computed). */
  values: Record<string, unknown>;
  unsupported: Unsupported[];
  ignored_inputs: IgnoredInput[];
  warnings: string[];
  runtime_ids: string[];
  error?: string;
}

export interface Runner {
  /** Where the answers come from, for the report (`compiled output …`, a URL). */
  readonly source: string;
  run(c: ReferenceCase, variables: string[], period: string): Promise<CaseOutcome>;
  /** Our rule (legal id) and its legal source for a package output, to cite beside a difference. */
  ruleOf(jurisdiction: string, programId: string, output: string): Promise<{ rule: string; source: string | null } | undefined>;
}

/** The situation with every compared variable requested (null) on its SPM unit for `period`. */
export function withRequests(c: ReferenceCase, variables: string[], period: string): WireHousehold {
  const situation = structuredClone(c.situation);
  const units = Object.keys(situation.spm_units ?? {});
  if (units.length !== 1) throw new UsageError(`${c.file}: household ${c.id} has ${units.length} SPM units; a reference household has exactly one`);
  const unit = situation.spm_units![units[0]];
  for (const v of variables) unit[v] = { [period]: null };
  return situation;
}

function outcomeOf(id: string, situation: WireHousehold, sidecar: Record<string, unknown>, latency: number): CaseOutcome {
  const unitId = Object.keys(situation.spm_units ?? {})[0];
  const computed = (sidecar.computed as { entity_id: string; variable: string; value: unknown }[] | undefined) ?? [];
  return {
    id,
    latency_ms: Math.round(latency * 100) / 100,
    values: Object.fromEntries(computed.filter((c) => c.entity_id === unitId).map((c) => [c.variable, c.value])),
    unsupported: (sidecar.unsupported as Unsupported[] | undefined) ?? [],
    ignored_inputs: (sidecar.ignored_inputs as IgnoredInput[] | undefined) ?? [],
    warnings: (sidecar.warnings as string[] | undefined) ?? [],
    runtime_ids: ((sidecar.packages as { runtime_id: string }[] | undefined) ?? []).map((p) => p.runtime_id),
  };
}

function ruleIn(graph: ProgramGraph | undefined, output: string) {
  const rule = graph?.rules.find((r) => r.name === output && r.kind === 'derived') ?? graph?.rules.find((r) => r.name === output);
  return rule ? { rule: rule.legalId, source: rule.source } : undefined;
}

export function localRunner(catalog: Catalog, source: string, tables: MappingTable[] = POLICYENGINE_US_SNAP): Runner {
  return {
    source,
    async run(c, variables, period) {
      const situation = withRequests(c, variables, period);
      const started = performance.now();
      try {
        const out = runMigration({ household: situation }, catalog, { tables, calculate: (r) => runCalculation(catalog, r, 30_000) });
        return outcomeOf(c.id, situation, { ...out, packages: out.packages }, performance.now() - started);
      } catch (err) {
        if (!(err instanceof MigrationError)) throw err;
        return { ...outcomeOf(c.id, situation, {}, performance.now() - started), error: `${err.status}: ${err.message}` };
      }
    },
    async ruleOf(jurisdiction, programId, output) {
      return ruleIn(catalog.graph(jurisdiction, programId), output);
    },
  };
}

export function remoteRunner(url: string, key: string): Runner {
  const base = url.replace(/\/+$/, '');
  const graphs = new Map<string, Promise<ProgramGraph | undefined>>();
  const call = async (path: string, init?: RequestInit) => {
    try {
      return await fetch(`${base}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init?.headers } });
    } catch (err) {
      throw new UsageError(`cannot reach ${base}: ${(err as Error).message}`);
    }
  };
  return {
    source: base,
    async run(c, variables, period) {
      const situation = withRequests(c, variables, period);
      const started = performance.now();
      const res = await call('/v1/household/us/calculate', { method: 'POST', body: JSON.stringify({ household: situation }) });
      const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
      const latency = performance.now() - started;
      if (res.status === 401 || res.status === 403) {
        const message = isObj(body?.error) ? String(body.error.message) : String(body?.message ?? '');
        throw new UsageError(`${base} refused the key (${res.status}): ${message} (the migration endpoint needs a key with compat:external)`);
      }
      if (!res.ok || !body || !isObj(body.sidecar)) return { ...outcomeOf(c.id, situation, {}, latency), error: `${res.status}: ${String(body?.message ?? 'no answer')}` };
      return outcomeOf(c.id, situation, body.sidecar, latency);
    },
    async ruleOf(jurisdiction, programId, output) {
      const id = `${jurisdiction}/${programId}`;
      if (!graphs.has(id)) {
        graphs.set(
          id,
          call(`/v1/runtime/packages/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(programId)}/graph`).then(async (res) =>
            res.ok ? ((await res.json()) as { data: { graph: ProgramGraph } }).data.graph : undefined,
          ),
        );
      }
      return ruleIn(await graphs.get(id), output);
    },
  };
}
