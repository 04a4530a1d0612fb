import { composeGraph, FocusError } from '../../compiler/4-package/compose-graph.js';
import { API_VERSION } from '../envelope.js';
import { ApiError } from '../errors.js';
import { packageDetail, packageSummary, repositorySource } from '../catalog/views.js';
import { AUTH_ERRORS, defineRoutes } from './route.js';

// Discovery: capabilities, programs, runtime packages (summary, detail, graph), graphs
// composed on demand.

export const discoveryRoutes = defineRoutes(
  {
    method: 'GET',
    url: '/v1/capabilities',
    path: '/v1/capabilities',
    scope: 'rules:read',
    tag: 'discovery',
    summary: 'What this service can do, with a ready-to-run request per executable package',
    success: { status: 200, description: 'The capabilities manifest.', schema: { $ref: 'CapabilitiesResponse' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => {
      const catalog = ctx.catalog();
      const packages = catalog.packages.map((p) => packageSummary(p, catalog));
      return {
        api_version: API_VERSION,
        environment: ctx.config.environment,
        openapi_url: '/v1/openapi.json',
        endpoints: {
          programs: '/v1/programs',
          search: '/v1/search',
          rules: '/v1/rules/{rule_id}',
          calculate: '/v1/calculate',
          runtime_packages: '/v1/runtime/packages',
          parity_cases: '/v1/parity/cases',
          parity_run: '/v1/parity/run',
        },
        repository: { source: repositorySource(catalog), status: catalog.rules.length ? 'ready' : 'degraded', program_count: catalog.programs.length },
        runtime: {
          name: catalog.mode === 'fixture' ? 'rules fixture runtime (experimental)' : 'rules compiled runtime',
          status: packages.length ? 'ready' : 'unavailable',
          ...(catalog.mode === 'fixture' ? { detail: 'fixture packages: results carry a warning and are not authoritative' } : {}),
          package_count: packages.length,
          packages,
          sample_requests: catalog.packages.map((p) => ({ program_id: p.program_id, jurisdiction: p.jurisdiction, sample_request: catalog.package(p.jurisdiction, p.program_id)!.pkg.sample_request })),
        },
      };
    },
  },
  {
    method: 'GET',
    url: '/v1/programs',
    path: '/v1/programs',
    scope: 'rules:read',
    tag: 'discovery',
    summary: 'Programs with indexed rules',
    description: 'Status `available` (an executable package serves every output), `partial` (outputs acknowledged incomplete, or package notes), `planned` (rules indexed, nothing executes); `status_reason` says why.',
    success: { status: 200, description: '`{programs: ProgramSummary[]}`', schema: { $ref: 'ProgramsResponse' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => ({ programs: ctx.catalog().programs }),
  },
  {
    method: 'GET',
    url: '/v1/runtime/packages',
    path: '/v1/runtime/packages',
    scope: 'rules:read',
    tag: 'discovery',
    summary: 'Runtime packages the calculation runtime can execute',
    success: { status: 200, description: '`{packages: RuntimePackageSummary[]}`', schema: { $ref: 'RuntimePackagesResponse' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => {
      const catalog = ctx.catalog();
      return { packages: catalog.packages.map((p) => packageSummary(p, catalog)) };
    },
  },
  {
    method: 'GET',
    url: '/v1/runtime/packages/:jurisdiction/:program_id',
    path: '/v1/runtime/packages/{jurisdiction}/{program_id}',
    scope: 'rules:read',
    tag: 'discovery',
    summary: 'One runtime package: inputs, outputs, entities, aliases and a sample request',
    description:
      'Path parameters: the jurisdiction, then the program id (a URL slug such as `co-snap`). `sample_request.household` uses the `entities` form: every entity by the id this detail gives, every input present with its default (or an example), so a client can write its values into it and post it to `/v1/calculate`.',
    success: { status: 200, description: '`{package: RuntimePackageDetail}`', schema: { $ref: 'RuntimePackageResponse' } },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const catalog = ctx.catalog();
      const { jurisdiction, program_id } = request.params as { jurisdiction: string; program_id: string };
      const loaded = catalog.package(jurisdiction, program_id);
      if (!loaded) throw new ApiError('not_found', `no runtime package ${jurisdiction}/${program_id}`);
      return { package: packageDetail(loaded.pkg, catalog) };
    },
  },
  {
    method: 'GET',
    url: '/v1/runtime/packages/:jurisdiction/:program_id/graph',
    path: '/v1/runtime/packages/{jurisdiction}/{program_id}/graph',
    scope: 'rules:read',
    tag: 'graphs',
    summary: 'The ProgramGraph derived from a compiled package',
    success: { status: 200, description: '`{graph: ProgramGraph}`', schema: { $ref: 'ProgramGraphResponse' } },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const { jurisdiction, program_id } = request.params as { jurisdiction: string; program_id: string };
      const graph = ctx.catalog().graph(jurisdiction, program_id);
      if (!graph) throw new ApiError('not_found', `no compiled graph for ${jurisdiction}/${program_id}`);
      return { graph };
    },
  },
  {
    method: 'GET',
    url: '/v1/graph/compose',
    path: '/v1/graph/compose',
    scope: 'rules:read',
    tag: 'graphs',
    summary: 'A rule graph composed on demand by walking encoding imports',
    description:
      'Built from the live encoding tree for any rule or file legal id (`jurisdiction:bucket/path[#rule_name]`): a file focus shows its import closure, a rule focus the rule\'s dependency cone. It reflects declared structure, not an executable compilation. At most 200 files and 2,000 rules; beyond that `truncated` is true.',
    query: { type: 'object', required: ['focus'], properties: { focus: { type: 'string', minLength: 1, maxLength: 500 } } },
    success: {
      status: 200,
      description: '`{graph, files, truncated}`',
      schema: { $ref: 'ComposedGraphResponse' },
    },
    errors: ['invalid_request', 'not_found', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const tree = ctx.tree();
      const focus = (request.query as { focus: string }).focus;
      if (!tree) throw new ApiError('store_unavailable', 'no encoding tree is configured for composed graphs (start rules serve with --root)');
      try {
        return composeGraph(tree, focus);
      } catch (err) {
        if (err instanceof FocusError) throw new ApiError(err.kind === 'invalid' ? 'invalid_request' : 'not_found', err.message);
        throw err;
      }
    },
  },
);
