import type { ServerContext } from '../context.js';
import { API_VERSION } from '../envelope.js';
import { ApiError } from '../errors.js';
import { repositorySource } from '../catalog/views.js';
import { defineRoutes, type OpenApi } from './route.js';

// Public routes: no key needed.

type DepStatus = 'ready' | 'degraded' | 'unavailable';

/** What a failing store says, without its location (the answer is public): a SQLite result code, or unreachable. */
function storeFault(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' && cause.code.startsWith('SQLITE_') ? cause.code : undefined;
  return code ? `cannot read or write its database (${code}: ${(cause as Error).message})` : 'is unreachable';
}

export async function readiness(ctx: ServerContext) {
  const dependencies: { name: string; status: DepStatus; detail?: string }[] = [];
  try {
    const any = await ctx.keys.hasAny();
    dependencies.push(
      any
        ? { name: 'auth_configuration', status: 'ready', detail: 'API keys are configured' }
        : { name: 'auth_configuration', status: 'degraded', detail: 'no API keys are configured: protected routes answer 503 auth_not_configured until one is issued (POST /v1/keys/trial, rules keys issue, or RULES_API_KEYS)' },
    );
  } catch {
    dependencies.push({ name: 'auth_configuration', status: 'unavailable', detail: 'the key configuration cannot be loaded from the store' });
  }
  try {
    await ctx.store.ping();
    dependencies.push({ name: 'shared_counter_store', status: 'ready', detail: `${ctx.store.kind} store${ctx.store.durable ? '' : ' (per-instance memory, not durable)'}` });
  } catch (error) {
    ctx.analytics.storeError(error, 'checking readiness');
    dependencies.push({ name: 'shared_counter_store', status: 'unavailable', detail: `the ${ctx.store.kind} store ${storeFault(error)}` });
  }
  const catalog = ctx.catalog();
  dependencies.push(
    catalog.rules.length
      ? { name: 'rule_index', status: 'ready', detail: `${catalog.rules.length} rules indexed` }
      : { name: 'rule_index', status: 'degraded', detail: 'the rule index is empty' },
  );
  dependencies.push(
    catalog.packages.length
      ? { name: 'calculation_runtime', status: 'ready', detail: `${catalog.mode} runtime with ${catalog.packages.length} packages` }
      : { name: 'calculation_runtime', status: 'unavailable', detail: `the ${catalog.mode} runtime has no packages` },
  );
  const order: DepStatus[] = ['ready', 'degraded', 'unavailable'];
  const status = dependencies.reduce<DepStatus>((worst, d) => (order.indexOf(d.status) > order.indexOf(worst) ? d.status : worst), 'ready');
  return { ready: status === 'ready', status, source: repositorySource(catalog), dependencies };
}

export const publicRoutes = (openApi: OpenApi) =>
  defineRoutes(
    {
      method: 'GET',
      url: '/v1/health',
      path: '/v1/health',
      scope: null,
      tag: 'public',
      summary: 'Liveness',
      description: 'Always 200 while the process serves; checks no dependency.',
      success: { status: 200, description: 'The process is live.', schema: { $ref: 'HealthResponse' } },
      errors: [],
      handler: async () => ({ service: 'rules-api', live: true }),
    },
    {
      method: 'GET',
      url: '/v1/ready',
      path: '/v1/ready',
      scope: null,
      tag: 'public',
      summary: 'Readiness of every dependency',
      description:
        'Checks the auth configuration (keys exist), the shared counter store (SQLite: a page read and a write synced to disk, at most once a second, and the integrity of the whole file on a fresh connection, at most every 2 s; Redis: a round trip), the rule index and the calculation runtime. `ready` is true only when every dependency is ready; otherwise the answer is 503 `not_ready` naming each failing dependency (a store that cannot write, for a full disk, says so with its SQLite result code until a write succeeds again; a damaged file says `SQLITE_CORRUPT` and the problem found until it is sound again), with the same ReadyResponse in the error envelope\'s `data`.',
      success: { status: 200, description: 'Every dependency is ready.', schema: { $ref: 'ReadyResponse' } },
      errors: ['not_ready'],
      handler: async (ctx) => {
        const report = await readiness(ctx);
        if (!report.ready) throw new ApiError('not_ready', `not ready: ${report.dependencies.filter((d) => d.status !== 'ready').map((d) => `${d.name} ${d.status} (${d.detail})`).join('; ')}`, report);
        return report;
      },
    },
    {
      method: 'GET',
      url: '/v1/version',
      path: '/v1/version',
      scope: null,
      tag: 'public',
      summary: 'API version and environment',
      success: { status: 200, description: 'The deployed API version.', schema: { $ref: 'VersionResponse' } },
      errors: [],
      handler: async (ctx) => ({ api_version: API_VERSION, environment: ctx.config.environment }),
    },
    {
      method: 'GET',
      url: '/v1/openapi.json',
      path: '/v1/openapi.json',
      scope: null,
      tag: 'public',
      summary: 'This OpenAPI 3.1 document',
      description: 'Served without the envelope.',
      envelope: false,
      success: { status: 200, description: 'The OpenAPI 3.1 document (JSON Schema 2020-12).', schema: { type: 'object' } },
      errors: [],
      handler: async (ctx) => openApi.document(ctx),
    },
  );
