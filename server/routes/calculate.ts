import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CalculateRequest } from '../../compiler/4-package/package-types.js';
import { runCalculation, runEntry } from '../calculation.js';
import { ApiError } from '../errors.js';
import { JsonData, writeAnswer } from '../response-json.js';
import { DEFAULT_MAX_PENDING_JOBS_PER_KEY } from '../config.js';
import { checkCalculateRequest } from '../schemas.js';
import { MAX_HOUSEHOLD_PEOPLE } from '../../compiler/runtime/household.js';
import { AUTH_ERRORS, defineRoutes } from './route.js';

// Calculations: single, synchronous batch (1-25), detached job (1-50).

export const BATCH_LIMIT = 25;
export const JOB_LIMIT = 50;

/** Every entry valid, or the whole request fails with `requests[i]: …` before anything runs. */
function checkEntries(body: { requests: unknown[] }, max: number, route: string): CalculateRequest[] {
  if (body.requests.length > max) throw new ApiError('invalid_request', `requests: at most ${max} entries for ${route}, got ${body.requests.length}${max === BATCH_LIMIT ? ' (POST /v1/jobs/calculate takes up to 50)' : ''}`);
  body.requests.forEach((entry, i) => {
    const problem = checkCalculateRequest(entry, `requests[${i}]`);
    if (problem) throw new ApiError('invalid_request', problem);
  });
  return body.requests as CalculateRequest[];
}

export const calculateRoutes = defineRoutes(
  {
    method: 'POST',
    url: '/v1/calculate',
    path: '/v1/calculate',
    scope: 'calculate:run',
    cost: 10,
    tag: 'calculation',
    summary: 'Calculate outputs for a household, with a per-variable trace',
    description:
      `Omitted inputs take the package defaults and omitted \`variables\` the package \`default_outputs\`. Household conventions (\`people\`, \`spm_units\`, \`facts\`, \`period\`, \`entities\`, \`relations\`) are described in the package detail and in docs/compiled-output.md; the \`sample_request\` of a package (the \`entities\` form, every entity by the id the detail gives, every input present) is a household to fill in. Nothing is dropped silently: an input, entity or entity id the package does not have is 400 \`invalid_household\` naming the field; a top-level key that is not a convention, units of \`spm_units\` after the first, and an entity instance no relation links to the main entity are ignored with a warning in \`warnings\` naming them. A period after the package's \`coverage\` is answered on its newest figures with a warning (not authoritative); one before it is 400 \`invalid_household\`. **Assumptions**: every input the requested outputs read that the household does not give (absent or null) takes its package default and is listed in \`assumptions\` (in the order first read, with the value used and the \`field\` to give it under), and one warning names them; a missing or invalid \`period\` is one too. With \`"assumptions": "refuse"\` such an answer is 400 \`invalid_household\` with the list in \`error.assumptions\` instead. **One input, one value**: two names for one input in one object (alias, name, legal id) with different values are 400 \`invalid_household\` naming both fields; across conventions \`facts\` override \`entities\`, which override \`people\` and \`spm_units\`, with a warning naming both. **Explanations**: \`"explain": true\` adds \`explanation\` (schema Explanation). Errors: 400 \`invalid_request\` (schema, unknown variable), 400 \`invalid_household\` (the message names the field; a size such as \`household_size\` above ${MAX_HOUSEHOLD_PEOPLE}, or more than ${MAX_HOUSEHOLD_PEOPLE} people or instances of one entity, is beyond the plausible bound on one household and refused), 422 \`unsupported_program\`, 502 \`runtime_error\` (engine failure or time limit). Labelled experimental: shapes are stable, values depend on the configured rule index and runtime.`,
    body: { $ref: 'CalculateRequest' },
    success: { status: 200, description: 'CalculateResponse', schema: { $ref: 'CalculateResponse' } },
    errors: ['invalid_request', 'invalid_household', 'unsupported_parameter', 'payload_too_large', 'unsupported_program', 'runtime_error', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const answer = runCalculation(ctx.catalog(), request.body as CalculateRequest, ctx.config.calculateTimeoutMs);
      return new JsonData((out) => writeAnswer(out, answer));
    },
  },
  {
    method: 'POST',
    url: '/v1/calculate/batch',
    path: '/v1/calculate/batch',
    scope: 'calculate:run',
    cost: 10,
    tag: 'calculation',
    summary: 'Calculate 1-25 households concurrently; results are positional',
    description:
      'One invalid entry fails the whole request with 400 and a positional message (`requests[i]: …`) before anything runs. Runtime failures of single entries (`unsupported_program`, `invalid_household`, `runtime_error`) are reported in their own result and do not fail the request. Costs 10 compute units per entry for trial keys.',
    body: { $ref: 'BatchRequest' },
    success: {
      status: 200,
      description: '`{summary: {total, succeeded, failed}, results: BatchResult[]}`',
      schema: { $ref: 'BatchResponse' },
    },
    errors: ['invalid_request', 'unsupported_parameter', 'payload_too_large', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const requests = checkEntries(request.body as { requests: unknown[] }, BATCH_LIMIT, '/v1/calculate/batch');
      const catalog = ctx.catalog();
      // One entry per turn of the event loop, so requests that arrive meanwhile are served between
      // entries (immediates queued together would all run in one turn, as one block).
      const results: ReturnType<typeof runEntry>[] = [];
      for (const entry of requests) {
        await nextTurn();
        results.push(runEntry(catalog, entry, ctx.config.calculateTimeoutMs));
      }
      const succeeded = results.filter((r) => r.status === 'ok').length;
      const summary = { total: results.length, succeeded, failed: results.length - succeeded };
      return new JsonData((out) => {
        out.text(`{"summary":${JSON.stringify(summary)},"results":[`);
        results.forEach((r, i) => {
          if (r.status !== 'ok') return out.text(`${i ? ',' : ''}${JSON.stringify(r)}`);
          out.text(i ? ',{"status":"ok","result":' : '{"status":"ok","result":');
          writeAnswer(out, r.result as object);
          out.text('}');
        });
        out.text(']}');
      });
    },
  },
  {
    method: 'POST',
    url: '/v1/jobs/calculate',
    path: '/v1/jobs/calculate',
    scope: 'calculate:run',
    cost: 10,
    tag: 'calculation',
    summary: 'Submit 1-50 calculations as a detached job',
    description:
      `Answers 202 at once. Entries run with bounded concurrency, keys taking turns (round-robin by key: a key with many heavy jobs does not hold up another key's small one, which waits for at most one entry of each other key's jobs per worker); a key may have ${DEFAULT_MAX_PENDING_JOBS_PER_KEY} unfinished jobs (unless the operator sets RULES_MAX_PENDING_JOBS_PER_KEY), one more is 429 \`rate_limited\` with \`retry-after\`. \`completed\` grows as they finish and results are stored positionally for 24 hours. With a durable store (\`durable: true\`) a job survives a restart: unfinished entries run again when the daemon starts. With the Redis store (\`--store redis\`) the job is queued for every instance on that Redis: any of them runs it, every one answers its \`status_url\`, and if an instance running its entries dies another takes them up once their lease expires (about 20 s), running only the entries without a result. Poll \`status_url\` with backoff (about 500 ms doubling to 5 s).`,
    body: { $ref: 'BatchRequest' },
    success: {
      status: 202,
      description: '`{job_id, status, total, status_url, durable}`',
      schema: { $ref: 'JobAccepted' },
    },
    errors: ['invalid_request', 'unsupported_parameter', 'payload_too_large', 'store_unavailable', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const requests = checkEntries(request.body as { requests: unknown[] }, JOB_LIMIT, '/v1/jobs/calculate');
      const job = await ctx.jobs.submit(requests, request.apiKey?.id ?? null);
      return { job_id: job.id, status: job.status, total: job.total, status_url: `/v1/jobs/${job.id}`, durable: ctx.store.durable };
    },
  },
  {
    method: 'GET',
    url: '/v1/jobs/:job_id',
    path: '/v1/jobs/{job_id}',
    scope: 'calculate:run',
    cost: 0,
    tag: 'calculation',
    summary: 'A calculation job: status, progress and (once succeeded) positional results',
    description: 'Visible only to the key that created it; unknown and foreign ids are both 404.',
    success: { status: 200, description: 'JobRecord', schema: { $ref: 'JobRecord' } },
    errors: ['not_found', 'store_unavailable', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const { job_id } = request.params as { job_id: string };
      const job = await ctx.store.job(job_id);
      if (!job || job.api_key_id !== (request.apiKey?.id ?? null)) throw new ApiError('not_found', `no job ${job_id}`);
      const { requests: _requests, results, ...record } = job;
      return { ...record, ...(job.status === 'succeeded' ? { results } : {}) };
    },
  },
);
