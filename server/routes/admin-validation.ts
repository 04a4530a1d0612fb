import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { ValidationRun } from '../store/store.js';
import { VALIDATION_STATUSES } from '../admin-schemas.js';
import { AUTH_ERRORS } from './route.js';
import { buildLedger, referenceFiles } from '../migration/ledger.js';
import { REFERENCE_DIR } from '../migration/reference.js';
import { defineRoutes, type OpenApi } from './route.js';

// Validation-run history (published by the validation harness, read by the /docs/validation
// dashboard) and the migration ledger, when partner demand data is bundled.

type RowStatus = (typeof VALIDATION_STATUSES)[number];
interface ValidationRow {
  variable: string;
  status: RowStatus;
}
interface ValidationRunRequest {
  kind: string;
  rows: ValidationRow[];
  cases?: { latency_ms?: number }[];
  api_version?: string | null;
  base_url?: string | null;
  model_versions?: Record<string, unknown> | null;
}

/** Totals of a run, derived from its rows only. */
function validationTotals(rows: ValidationRow[]): ValidationRun['totals'] {
  const statusesOf = new Map<string, Set<RowStatus>>();
  for (const row of rows) statusesOf.set(row.variable, (statusesOf.get(row.variable) ?? new Set()).add(row.status));
  const rowsWith = (status: RowStatus) => rows.filter((r) => r.status === status).length;
  return {
    variables: statusesOf.size,
    covered: [...statusesOf.values()].filter((statuses) => [...statuses].some((s) => s !== 'uncovered')).length,
    parity_match: rowsWith('parity_match'),
    parity_diff: rowsWith('parity_diff'),
    drift_diff: rowsWith('drift_diff'),
    uncovered: rowsWith('uncovered'),
  };
}

/** Rounded mean of `cases[].latency_ms`; null when no case has one. */
function averageCaseLatency(cases: { latency_ms?: number }[]): number | null {
  const latencies = cases.map((c) => c.latency_ms).filter((ms): ms is number => typeof ms === 'number');
  return latencies.length ? Math.round(latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length) : null;
}

const summaryOf = ({ rows: _rows, cases: _cases, ...summary }: ValidationRun) => summary;

const ROW_FORMAT =
  'Each row is `{variable, status, ...}` (further properties are kept): `status` is `parity_match` or `parity_diff` (the output agreed or disagreed with the reference engine), `drift_diff` (it changed since an earlier run), `uncovered` (the service cannot compute it) or `covered` (computed, nothing to compare). Totals are derived from the rows: `variables` counts distinct variables; `parity_match`, `parity_diff`, `drift_diff` and `uncovered` count rows with that status; `covered` counts variables with at least one row that is not `uncovered`. Each case may carry `latency_ms`; `avg_case_latency_ms` is their rounded mean (null without any).';

export const validationRoutes = (openApi: OpenApi) =>
  defineRoutes(
    {
      method: 'POST',
      url: '/v1/admin/validation/runs',
      path: '/v1/admin/validation/runs',
      scope: 'admin:analytics',
      tag: 'admin',
      summary: 'Record a validation run: per-variable rows and per-case timings',
      description: `${ROW_FORMAT} The run is stored for 180 days with the contract hash of the OpenAPI document served at record time.`,
      body: { $ref: 'ValidationRunRequest' },
      success: { status: 201, description: 'ValidationRunSummary', schema: { $ref: 'ValidationRunSummary' } },
      errors: ['invalid_request', 'payload_too_large', ...AUTH_ERRORS],
      handler: async (ctx, request) => {
        const body = request.body as ValidationRunRequest;
        const cases = body.cases ?? [];
        const run: ValidationRun = {
          id: `run_${randomUUID().replace(/-/g, '')}`,
          kind: body.kind,
          recorded_at: new Date().toISOString(),
          contract_hash: openApi.contractHash(ctx),
          api_version: body.api_version ?? null,
          base_url: body.base_url ?? null,
          model_versions: body.model_versions ?? null,
          totals: validationTotals(body.rows),
          avg_case_latency_ms: averageCaseLatency(cases),
          rows: body.rows as unknown as Record<string, unknown>[],
          cases,
        };
        await ctx.store.addValidationRun(run);
        return summaryOf(run);
      },
    },
    {
      method: 'GET',
      url: '/v1/admin/validation/runs',
      path: '/v1/admin/validation/runs',
      scope: 'admin:analytics',
      tag: 'admin',
      summary: 'Validation runs of the last 180 days, newest first',
      success: { status: 200, description: '`{runs: ValidationRunSummary[]}`', schema: { $ref: 'ValidationRunList' } },
      errors: [...AUTH_ERRORS],
      handler: async (ctx) => ({ runs: (await ctx.store.validationRuns()).map(summaryOf) }),
    },
    {
      method: 'GET',
      url: '/v1/admin/validation/runs/:run_id',
      path: '/v1/admin/validation/runs/{run_id}',
      scope: 'admin:analytics',
      tag: 'admin',
      summary: 'One validation run with its rows and cases',
      success: { status: 200, description: 'The full run record', schema: { $ref: 'ValidationRunRecord' } },
      errors: ['not_found', ...AUTH_ERRORS],
      handler: async (ctx, request) => {
        const { run_id } = request.params as { run_id: string };
        const run = await ctx.store.validationRun(run_id);
        if (!run) throw new ApiError('not_found', `no validation run ${run_id}`);
        return run;
      },
    },
    {
      method: 'GET',
      url: '/v1/admin/validation/migration',
      path: '/v1/admin/validation/migration',
      scope: 'admin:analytics',
      tag: 'admin',
      summary: 'The migration ledger: demanded variables, their mapping status, demand weights, and per state package what is mapped and what stays unfed',
      description:
        'Built from the partner demand data bundled with the deployment (the reference households of `fixtures/validation/`): every external variable their households request (`direction: output`) or send (`input`), `status` `mapped` (a mapping table answers or reads it, or deliberately leaves it unused, with a `note` saying why) or `awaiting`, `demand_weight` (the share of households using it), `maps_to` (our package outputs or inputs). `states` lists each state SNAP package served (`covered`), with `tables` (the mapping tables that map onto it) and `corpus` (the corpus version they were written against), `mapped_inputs` (each external variable with the package inputs it feeds, by name and legal id, and `via`, the rule of the state through which it reaches an input), `mapped_outputs` (the rule or input answering each external output), `unanswered_outputs` (those the package has no rule for, and why), `unfed_inputs` (every input of the package nothing feeds: name, entity, legal id, default) and `totals`; and each state a table knows whose package is not served (`no package`). 404 `not_found` when no demand data is bundled.',
      success: { status: 200, description: 'The ledger (an open object): `{engine, engine_version, period, source, totals, variables, states, covered_states}`', schema: { type: 'object' } },
      errors: ['not_found', ...AUTH_ERRORS],
      handler: async (ctx) => {
        const files = referenceFiles(REFERENCE_DIR);
        if (!files.length) throw new ApiError('not_found', 'no migration ledger: partner demand data is not bundled in this deployment');
        return buildLedger(files, ctx.catalog());
      },
    },
  );
