import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { Catalog } from '../catalog/catalog.js';
import { toSummary } from '../catalog/search.js';
import type { Scope } from '../auth/scopes.js';
import { AUTH_ERRORS, defineRoutes } from './route.js';

// Rule search and rule detail. A rule is addressed by its stable id (`us:statutes/7/2017/a#snap_allotment`,
// with `#` sent as %23) or its citation path (`us/statutes/7/2017/a/snap_allotment`, slashes allowed).


type RuleView = 'detail' | 'sources' | 'dependencies';

/** What `/v1/rules/<rest>` asks for: the whole rest is a rule, else `<rule>/sources` or `<rule>/dependencies`. */
function ruleRequest(catalog: Catalog, request: FastifyRequest): { id: string; view: RuleView } {
  const rest = ((request.params as { '*': string })['*'] ?? '').replace(/^\/+|\/+$/g, '');
  if (catalog.rule(rest)) return { id: rest, view: 'detail' };
  for (const view of ['sources', 'dependencies'] as const) {
    if (rest.endsWith(`/${view}`)) return { id: rest.slice(0, -(view.length + 1)), view };
  }
  return { id: rest, view: 'detail' };
}

const VIEW_SCOPE: Record<RuleView, Scope> = { detail: 'rules:read', sources: 'sources:read', dependencies: 'graphs:read' };

function ruleOr404(catalog: Catalog, id: string) {
  const entry = catalog.rule(id);
  if (!entry) throw new ApiError('not_found', `no rule \`${id}\` (use a stable id such as us:statutes/7/2017/a#snap_allotment, or a citation path)`);
  return entry;
}

const ruleParam = 'rule_id: a stable id or a citation path; slashes are allowed in the URL';

export const ruleRoutes = defineRoutes(
  {
    method: 'POST',
    url: '/v1/search',
    path: '/v1/search',
    scope: 'rules:read',
    tag: 'rules',
    summary: 'Search encoded and source-linked rules',
    description:
      'Every whitespace-separated token of 2+ characters (case-insensitive) must occur in a rule\'s id, citation path, name, summary or symbols. The query is trimmed; `limit` is clamped to 1-50 (default 20) and must be finite; `jurisdiction` and `program_id` match exactly. Ranking: name matches, then id matches, then the rest. `as_of` is reserved (400 `unsupported_parameter`).',
    body: { $ref: 'SearchRequest' },
    success: { status: 200, description: 'SearchResults', schema: { $ref: 'SearchResults' } },
    errors: ['invalid_request', 'unsupported_parameter', 'payload_too_large', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const body = request.body as { query: string; jurisdiction?: string; program_id?: string; limit?: number };
      const query = body.query.trim();
      if (query.length < 2) throw new ApiError('invalid_request', 'body.query: must be 2-500 characters after trimming');
      if (body.limit !== undefined && !Number.isFinite(body.limit)) throw new ApiError('invalid_request', 'body.limit: must be a finite number');
      const limit = Math.min(50, Math.max(1, Math.floor(body.limit ?? 20)));
      return { query, results: ctx.catalog().search.search(query, { jurisdiction: body.jurisdiction, program_id: body.program_id }, limit) };
    },
  },
  {
    method: 'GET',
    url: '/v1/rules/*',
    path: '/v1/rules/{rule_id}',
    scope: (ctx, request) => VIEW_SCOPE[ruleRequest(ctx.catalog(), request).view],
    documentedScope: 'rules:read',
    tag: 'rules',
    summary: 'One rule with its symbols, provenance, dependencies and dependents',
    description: ruleParam,
    success: { status: 200, description: '`{rule: RuleDetail}`', schema: { $ref: 'RuleResponse' } },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const catalog = ctx.catalog();
      const { id, view } = ruleRequest(catalog, request);
      const entry = ruleOr404(catalog, id);
      if (view === 'sources') return { rule: toSummary(entry.rule), sources: entry.sources };
      if (view === 'dependencies') return { rule: toSummary(entry.rule), dependencies: entry.rule.dependencies, dependents: entry.rule.dependents };
      return { rule: entry.rule };
    },
  },
  {
    method: 'GET',
    url: '/v1/rules/*',
    path: '/v1/rules/{rule_id}/sources',
    documentOnly: true,
    scope: 'sources:read',
    tag: 'rules',
    summary: 'The source references of a rule',
    description: ruleParam,
    success: {
      status: 200,
      description: '`{rule: RuleSummary, sources: SourceReference[]}`',
      schema: { $ref: 'RuleSourcesResponse' },
    },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async () => undefined,
  },
  {
    method: 'GET',
    url: '/v1/rules/*',
    path: '/v1/rules/{rule_id}/dependencies',
    documentOnly: true,
    scope: 'graphs:read',
    tag: 'rules',
    summary: 'The rule ids a rule depends on, and those that depend on it',
    description: ruleParam,
    success: {
      status: 200,
      description: '`{rule: RuleSummary, dependencies: string[], dependents: string[]}`',
      schema: { $ref: 'RuleDependenciesResponse' },
    },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async () => undefined,
  },
);

