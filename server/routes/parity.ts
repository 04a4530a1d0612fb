import { runCalculation } from '../calculation.js';
import { loadParityCases, parityCaseView, parityDir, runParity } from '../parity.js';
import { AUTH_ERRORS, defineRoutes } from './route.js';

// Canonical parity cases and running them against the active runtime (`admin:parity`).


export const parityRoutes = defineRoutes(
  {
    method: 'GET',
    url: '/v1/parity/cases',
    path: '/v1/parity/cases',
    scope: 'admin:parity',
    tag: 'parity',
    summary: 'Canonical parity cases',
    description:
      'Households whose expected outputs were derived by hand from the law they cite (the arithmetic is in `notes`). `runtime_supported` says whether the active runtime has a package for the case. `trace_variables` are the labels `trace_outputs` uses (`gross_income`). `external_comparisons` hold what another engine (PolicyEngine-US) answered for the same household: its `request`, `mappings` from our variables to paths in its response (`transform`: none, annual_to_monthly, monthly_to_annual), a `tolerance`, and `recorded` {engine_version, source, response} when a value was recorded.',
    success: { status: 200, description: '`{cases: ParityCase[]}`', schema: { $ref: 'ParityCasesResponse' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => {
      const catalog = ctx.catalog();
      return { cases: loadParityCases(parityDir()).map((c) => parityCaseView(c, catalog)) };
    },
  },
  {
    method: 'POST',
    url: '/v1/parity/run',
    path: '/v1/parity/run',
    scope: 'admin:parity',
    cost: 10,
    tag: 'parity',
    summary: 'Run every runtime-supported parity case against the active runtime',
    description:
      'No body. Numbers match within the case tolerance (`tolerance.amount`, default 0.005); other values must be equal. Cases without a runtime package are skipped, with the reason, and are not counted in `summary.total` (the cases that ran), so `matching === total` means every case that ran matched. Each result also says whether the external values recorded for its household agree (`external_status`, `external_comparisons`); `summary.external` counts them.',
    success: {
      status: 200,
      description: '`{summary, results, skipped_cases}`',
      schema: { $ref: 'ParityRunResponse' },
    },
    errors: ['payload_too_large', ...AUTH_ERRORS],
    handler: async (ctx) => {
      const catalog = ctx.catalog();
      return runParity(loadParityCases(parityDir()), catalog, (r) => runCalculation(catalog, r, ctx.config.calculateTimeoutMs));
    },
  },
);
