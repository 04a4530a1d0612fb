import { performance } from 'node:perf_hooks';
import type { ProgramGraph } from '../../compiler/4-package/package-types.js';
import { DEFAULT_CALCULATE_TIMEOUT_MS, runCalculation } from '../../server/calculation.js';
import type { TableFamily } from '../../server/migration/mapping.js';
import { TABLE_FAMILIES } from '../../server/migration/package-mapping.js';
import { MigrationError, runMigration, toMigrationError, type IgnoredInput, type Unsupported } from '../../server/migration/run.js';
import { ApiError } from '../../server/errors.js';
import { isObj, type WireHousehold } from '../../server/migration/wire.js';
import type { Catalog } from '../../server/catalog/catalog.js';
import { apiClient, dataOf } from '../api-client.js';
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
  /** Nothing could be compared because no package serves the household's state (the endpoint's 422), and why. */
  uncovered?: string;
  /** The package that answered, and what answered each compared variable (a rule's legal id, or an input the table fed). */
  package?: { jurisdiction: string; program_id: string };
  answered_by: Record<string, { rule?: string; input?: string }>;
  /** Package inputs the answer read that nothing in the household fed (the sidecar's assumed_inputs). */
  assumed: { input: string; fed_by: string[]; presumed?: string }[];
}

/** The endpoint's failure as an outcome: 422 (no package for the state) leaves the household uncovered, anything else is an error. */
const failed = (status: number, message: string) => (status === 422 ? { uncovered: message } : { error: `${status}: ${message}` });

export interface Runner {
  /** Where the answers come from, for the report (`compiled output …`, a URL). */
  readonly source: string;
  /** The household of `c` (or `situation`, a changed copy of it) with every compared variable requested. */
  run(c: ReferenceCase, variables: string[], period: string, situation?: WireHousehold): Promise<CaseOutcome>;
  /** Our rule (legal id) and its legal source for a package output, to cite beside a difference. */
  ruleOf(jurisdiction: string, programId: string, output: string): Promise<{ rule: string; source: string | null } | undefined>;
  /** A package's rule graph, to find where a difference starts. */
  graph(jurisdiction: string, programId: string): Promise<ProgramGraph | undefined>;
}

/** The situation with every compared variable requested (null) on its SPM unit for `period`. */
export function withRequests(c: ReferenceCase, variables: string[], period: string, given: WireHousehold = c.situation): WireHousehold {
  const situation = structuredClone(given);
  const units = Object.keys(situation.spm_units ?? {});
  if (units.length !== 1) throw new UsageError(`${c.file}: household ${c.id} has ${units.length} SPM units; a reference household has exactly one`);
  const unit = situation.spm_units![units[0]];
  for (const v of variables) unit[v] = { [period]: null };
  return situation;
}

/** Our values from the endpoint's sidecar (in-process, the same fields of the migration's result). */
function outcomeOf(id: string, situation: WireHousehold, sidecar: Record<string, unknown>, latency: number): CaseOutcome {
  const unitId = Object.keys(situation.spm_units ?? {})[0];
  const computed = ((sidecar.computed as { entity_id: string; variable: string; value: unknown; rule?: string; input?: string }[] | undefined) ?? []).filter((c) => c.entity_id === unitId);
  const runtime = isObj(sidecar.runtime) && typeof sidecar.runtime.id === 'string' ? sidecar.runtime.id : undefined;
  const pkg = isObj(sidecar.package) ? (sidecar.package as { jurisdiction: string; program_id: string }) : (sidecar.packages as { jurisdiction: string; program_id: string }[] | undefined)?.[0];
  return {
    id,
    latency_ms: Math.round(latency * 100) / 100,
    values: Object.fromEntries(computed.map((c) => [c.variable, c.value])),
    answered_by: Object.fromEntries(computed.map((c) => [c.variable, c.rule ? { rule: c.rule } : c.input ? { input: c.input } : {}])),
    ...(pkg ? { package: { jurisdiction: pkg.jurisdiction, program_id: pkg.program_id } } : {}),
    assumed: ((sidecar.assumed_inputs as { input: string; fed_by: string[]; presumed?: string }[] | undefined) ?? []).map(({ input, fed_by, presumed }) => ({ input, fed_by, ...(presumed ? { presumed } : {}) })),
    unsupported: (sidecar.unsupported as Unsupported[] | undefined) ?? [],
    ignored_inputs: (sidecar.ignored_inputs as IgnoredInput[] | undefined) ?? [],
    warnings: (sidecar.warnings as string[] | undefined) ?? [],
    // the endpoint names the one runtime that answered; in-process, every package used
    runtime_ids: runtime ? [runtime] : ((sidecar.packages as { runtime_id: string }[] | undefined) ?? []).map((p) => p.runtime_id),
  };
}

function ruleIn(graph: ProgramGraph | undefined, output: string) {
  const rule = graph?.rules.find((r) => r.legalId === output) ?? graph?.rules.find((r) => r.name === output && r.kind === 'derived') ?? graph?.rules.find((r) => r.name === output);
  return rule ? { rule: rule.legalId, source: rule.source } : undefined;
}

export function localRunner(catalog: Catalog, source: string, families: TableFamily[] = TABLE_FAMILIES): Runner {
  return {
    source,
    async run(c, variables, period, given) {
      const situation = withRequests(c, variables, period, given);
      const started = performance.now();
      try {
        const out = runMigration({ household: situation }, catalog, { families, calculate: (r) => runCalculation(catalog, r, DEFAULT_CALCULATE_TIMEOUT_MS) });
        return outcomeOf(c.id, situation, { ...out }, performance.now() - started);
      } catch (err) {
        // what the endpoint would answer with an error status (a failing rule is its 502)
        if (!(err instanceof MigrationError || err instanceof ApiError)) throw err;
        const failure = toMigrationError(err);
        return { ...outcomeOf(c.id, situation, {}, performance.now() - started), ...failed(failure.status, failure.message) };
      }
    },
    async ruleOf(jurisdiction, programId, output) {
      return ruleIn(catalog.graph(jurisdiction, programId), output);
    },
    async graph(jurisdiction, programId) {
      return catalog.graph(jurisdiction, programId);
    },
  };
}

/** A runner on a daemon; `warn` hears what it could not find out (a rule graph the key may not read). */
export function remoteRunner(url: string, key: string, warn: (message: string) => void): Runner {
  const api = apiClient(url, key);
  const graphs = new Map<string, Promise<ProgramGraph | undefined>>();
  return {
    source: api.base,
    async run(c, variables, period, given) {
      const situation = withRequests(c, variables, period, given);
      const started = performance.now();
      const answer = await api.call('POST', '/v1/household/us/calculate', { household: situation });
      const latency = performance.now() - started;
      if (answer.status === 401 || answer.status === 403) {
        throw new UsageError(`${api.base} refused the key (${answer.status}): ${answer.error} (the migration endpoint needs a key with compat:external)`);
      }
      const sidecar = answer.body?.sidecar;
      if (!answer.ok || !isObj(sidecar)) return { ...outcomeOf(c.id, situation, {}, latency), ...failed(answer.status, answer.error || 'no sidecar in the answer') };
      return outcomeOf(c.id, situation, sidecar, latency);
    },
    async ruleOf(jurisdiction, programId, output) {
      return ruleIn(await this.graph(jurisdiction, programId), output);
    },
    graph(jurisdiction, programId) {
      const id = `${jurisdiction}/${programId}`;
      if (!graphs.has(id)) {
        graphs.set(
          id,
          api.call('GET', `/v1/runtime/packages/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(programId)}/graph`).then((answer) => {
            const graph = dataOf<{ graph: ProgramGraph }>(answer)?.graph;
            // without the graph the differences of this package are reported without their rules: say why, once
            if (!graph) warn(`${api.base} did not give the rule graph of ${id} (${answer.status}${answer.error ? `: ${answer.error}` : ''}): differences in its outputs are reported without the rule behind them`);
            return graph;
          }),
        );
      }
      return graphs.get(id)!;
    },
  };
}
