import { nullableStr, str } from '../../compiler/5-emit/schemas.js';
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
    description: 'Households whose expected outputs were derived by hand from the law they cite (the arithmetic is in `notes`). `runtime_supported` says whether the active runtime has a package for the case.',
    success: { status: 200, description: '`{cases: ParityCase[]}`', schema: { type: 'object', required: ['cases'], properties: { cases: { type: 'array', items: { $ref: 'ParityCase' } } } } },
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
    description: 'No body. Numbers match within the case tolerance (`tolerance.amount`, default 0.005); other values must be equal. Cases without a runtime package are skipped, with the reason.',
    success: {
      status: 200,
      description: '`{summary, results, skipped_cases}`',
      schema: {
        type: 'object',
        required: ['summary', 'results', 'skipped_cases'],
        properties: {
          summary: {
            type: 'object',
            required: ['total', 'matching', 'different', 'errored', 'skipped'],
            properties: { total: { type: 'integer' }, matching: { type: 'integer' }, different: { type: 'integer' }, errored: { type: 'integer' }, skipped: { type: 'integer' } },
          },
          results: { type: 'array', items: { $ref: 'ParityRunResult' } },
          skipped_cases: {
            type: 'array',
            items: { type: 'object', required: ['id', 'description', 'program_id', 'jurisdiction', 'reason'], properties: { id: str, description: nullableStr, program_id: str, jurisdiction: str, reason: str } },
          },
        },
      },
    },
    errors: ['payload_too_large', ...AUTH_ERRORS],
    handler: async (ctx) => {
      const catalog = ctx.catalog();
      return runParity(loadParityCases(parityDir()), catalog, (r) => runCalculation(catalog, r, ctx.config.calculateTimeoutMs));
    },
  },
);
