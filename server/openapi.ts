import { createHash } from 'node:crypto';
import { BODY_LIMIT_TEXT, MAX_JSON_DEPTH } from './body-limits.js';
import { DEFAULT_CONNECTION_LIMITS } from './config.js';
import { PROGRAM_ID_PATTERN } from '../compiler/4-package/program-id.js';
import { API_VERSION } from './envelope.js';
import { ERROR_MEANING, ERROR_STATUS, type ErrorCode } from './errors.js';
import { errorsOf, type JsonSchema, type OpenApi, type RouteDef } from './routes/route.js';
import { SERVED_SCHEMAS } from './schemas.js';
import type { Catalog } from './catalog/catalog.js';
import { packageDetail } from './catalog/views.js';

// The served OpenAPI 3.1 document, generated from the route declarations and the same JSON
// Schemas that validate requests, with examples taken from the compiled packages being served.

const LIMITS = DEFAULT_CONNECTION_LIMITS;
const seconds = (ms: number) => `${ms / 1000} s`;

const DESCRIPTION = `A rule-native HTTP interface for searching, retrieving, explaining and executing rule encodings
(machine-readable statutes, regulations and agency policy, with provenance back to the legal source).

**Envelopes.** Every 2xx JSON payload is \`{status: "ok", data, meta}\` and every error
\`{status: "error", error: {code, message}, meta, data?}\`, except this document and the migration
endpoint. \`meta\` is \`{request_id, api_version, environment}\`. Every response carries
\`x-request-id\` (echoed when sent, else a UUID) and \`cache-control: no-store\`.

**Authentication.** Send a key as \`x-api-key: <key>\` or \`Authorization: Bearer <key>\`; when both
are present \`x-api-key\` wins. Public: /v1/health, /v1/ready, /v1/version, /v1/openapi.json,
/v1/keys/trial, /docs, /docs/validation. A missing, unknown, expired or revoked key is 401
\`unauthorized\` (deliberately indistinguishable); a key without the route's scope is 403
\`insufficient_scope\` naming the scope; with no key configured anywhere, protected routes answer 503
\`auth_not_configured\`. Scopes: rules:read (default for /v1 routes), sources:read, graphs:read,
calculate:run, admin:parity, admin:analytics, admin:keys, compat:external; \`*\` passes every check.
Decisions where the specification is open: GET /v1/admin/audit and GET/POST /v1/admin/kill need
\`admin:keys\`; validation runs and the migration ledger need \`admin:analytics\`.

**Limits.** Bodies up to ${BODY_LIMIT_TEXT} bytes (413 \`payload_too_large\`), with arrays and
objects nested at most ${MAX_JSON_DEPTH} levels deep, the outermost counting as one (400 \`invalid_request\` naming the limit,
checked before anything else reads the body; the migration endpoint answers it in its own error shape); a JSON body is UTF-8 (RFC 8259), and one that is not is 400 \`invalid_request\` saying so. Per-key fixed-window rate limit,
default 120 requests per 60 s (trial keys 30 per 60 s; per-key overrides at issuance), shared through
the store; every authenticated response has \`x-ratelimit-limit\`, \`x-ratelimit-remaining\` and
\`x-ratelimit-reset\` (Unix seconds at the end of the window); a 429 \`rate_limited\` adds
\`retry-after\` and \`data.retry_after_seconds\`. Twenty failed authentications (requests presenting a key that is
unknown, expired or revoked; a request without a key is not an attempt) within 300 s from one
client answer every request from it with 429 \`auth_throttled\`, valid keys included, until that window ends.
The client is the socket address; behind proxies the operator trusts (RULES_TRUST_PROXY: a hop count
or proxy addresses), it is the first \`x-forwarded-for\` hop from the right that is not a trusted
proxy: the specification's "first hop" once every hop a client could forge is discarded, so that
hops a client adds do not multiply its failed-authentication allowance or its trial keys.

**Connections.** The request line and headers must arrive within ${seconds(LIMITS.headersTimeoutMs)}, the whole request within
${seconds(LIMITS.requestTimeoutMs)}, and a body may not pause for more than ${seconds(LIMITS.bodyTimeoutMs)}; a request that misses one is answered 408 with
\`invalid_request\` and its connection closed. An idle connection is closed after ${seconds(LIMITS.keepAliveTimeoutMs)}. A client
address may hold ${LIMITS.maxConnectionsPerClient} open connections (trusted proxies are held to the total of ${LIMITS.maxConnections.toLocaleString('en-US')}); further
connections are closed at once. These are the defaults; the operator sets them (RULES_HEADERS_TIMEOUT_MS,
RULES_REQUEST_TIMEOUT_MS, RULES_BODY_TIMEOUT_MS, RULES_KEEP_ALIVE_TIMEOUT_MS, RULES_MAX_CONNECTIONS_PER_CLIENT,
RULES_MAX_CONNECTIONS).

**Compute units (trial keys).** Each accepted request costs compute units: calculate, batch, job
submission and parity runs cost 10 per request (one request, whatever the batch size), job polling
0, every other route 1 (each operation states its cost as \`x-compute-units\`). A trial key's lifetime quota is 10,000 units; once spent, its requests are refused with 403
\`insufficient_scope\` naming the exhausted quota (the key stays valid for nothing; request a new trial
key or an issued key).

**Kill switches.** \`trial_traffic\` engaged: every request made with a trial key is refused with 403
\`insufficient_scope\` saying trial traffic is suspended. \`trial_mint\` engaged: POST /v1/keys/trial
answers 429 \`rate_limited\` saying trial issuance is suspended. Other keys are unaffected.

**Calculation.** The runtime is \`compiled\` (executes compiled rule packages) or \`fixture\`
(experimental packages; every result carries a warning). Any non-empty \`warnings\` means the result
is not authoritative. Outputs of the package's main entity are single values; outputs of a
per-person rule are objects keyed by person id.`;

const TAGS: Record<string, string> = {
  public: 'No key needed: liveness, readiness, version, this document, trial keys and the HTML pages.',
  keys: 'Self-service trial keys.',
  discovery: 'What the service offers: capabilities, programs and executable runtime packages.',
  graphs: 'Rule dependency graphs: from a compiled package, or composed on demand from encoding imports.',
  rules: 'Search rules and read one rule with its provenance, sources and dependencies.',
  calculation: 'Calculate household outputs with a per-variable trace: single, batch, or detached job.',
  parity: 'Canonical parity cases, run against the active runtime.',
  admin: 'Operators: keys, audit, usage, analytics, kill switches and validation runs.',
  migration: 'Migration-only endpoint in an external household engine\'s wire format.',
};

/** Our schemas refer to each other by $id; OpenAPI wants component references. */
function toComponent(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toComponent);
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === '$id') continue;
      out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : toComponent(v);
    }
    return out;
  }
  return schema;
}

function envelopeOf(data: JsonSchema): JsonSchema {
  return { type: 'object', required: ['status', 'data', 'meta'], properties: { status: { const: 'ok' }, data, meta: { $ref: '#/components/schemas/Meta' } } };
}

function pathParameters(route: RouteDef): unknown[] {
  return [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: m[1] === 'program_id' ? { type: 'string', pattern: PROGRAM_ID_PATTERN.source } : { type: 'string' },
    description: m[1] === 'rule_id' ? 'A stable rule id (send `#` as %23) or a citation path; slashes are allowed.' : m[1] === 'program_id' ? 'A URL slug, unique within the jurisdiction, e.g. `co-snap`.' : undefined,
  }));
}

function queryParameters(route: RouteDef): unknown[] {
  const props = (route.query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = (route.query?.required ?? []) as string[];
  return Object.entries(props).map(([name, schema]) => ({ name, in: 'query', required: required.includes(name), schema }));
}

function operation(route: RouteDef, examples: Map<string, unknown>) {
  const responses: Record<string, unknown> = {};
  const content = route.success.contentType ?? 'application/json';
  const successSchema = toComponent(route.envelope === false ? route.success.schema : envelopeOf(route.success.schema));
  responses[String(route.success.status)] = {
    description: route.success.description,
    content: { [content]: { schema: successSchema, ...(examples.has(route.path) ? { example: examples.get(route.path) } : {}) } },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...errorsOf(route), 'internal_error'])) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${ERROR_MEANING[c]}`).join('; '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  const scope = typeof route.scope === 'function' ? (route.documentedScope ?? null) : route.scope;
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(scope ? { security: [{ apiKey: [] }, { bearer: [] }], 'x-required-scope': scope, 'x-compute-units': route.cost ?? 1 } : { security: [] }),
    parameters: [...pathParameters(route), ...queryParameters(route)],
    ...(route.body
      ? { requestBody: { required: route.bodyRequired !== false, content: { 'application/json': { schema: toComponent(route.body), ...(examples.has(`${route.path}#request`) ? { example: examples.get(`${route.path}#request`) } : {}) } } } }
      : {}),
    responses,
  };
}

/** Request and response examples from the packages this daemon serves. */
function examplesFrom(catalog: Catalog): Map<string, unknown> {
  const examples = new Map<string, unknown>();
  const first = catalog.packages[0];
  const loaded = first && catalog.package(first.jurisdiction, first.program_id);
  if (loaded) {
    examples.set('/v1/calculate#request', loaded.pkg.sample_request);
    examples.set('/v1/calculate/batch#request', { requests: [loaded.pkg.sample_request] });
    examples.set('/v1/jobs/calculate#request', { requests: [loaded.pkg.sample_request] });
    examples.set('/v1/runtime/packages/{jurisdiction}/{program_id}', { status: 'ok', data: { package: packageDetail(loaded.pkg, catalog) }, meta: { request_id: 'example', api_version: API_VERSION, environment: 'local' } });
  }
  const rule = catalog.rules.find((r) => r.rule.status === 'encoded');
  if (rule) {
    examples.set('/v1/search#request', { query: rule.rule.name.split('_').slice(0, 2).join(' '), limit: 5 });
    examples.set('/v1/rules/{rule_id}', { status: 'ok', data: { rule: rule.rule }, meta: { request_id: 'example', api_version: API_VERSION, environment: 'local' } });
  }
  return examples;
}

/** The OpenAPI document of `routes` as served over `catalog` in `environment`. */
function openApiDocument(routes: readonly RouteDef[], catalog: Catalog, environment: string): Record<string, unknown> {
  const examples = examplesFrom(catalog);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route, examples);
  }
  const schemas = Object.fromEntries(SERVED_SCHEMAS.map((s) => [s.$id, toComponent(s)]));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Rules API', version: API_VERSION, description: DESCRIPTION, license: { name: 'Apache-2.0' } },
    servers: [{ url: '/', description: `this ${environment} deployment` }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}

/**
 * The served document of `routes` (a function: the route list is built with this in hand), built
 * again only when hot reload swaps the catalogue.
 */
export function servedOpenApi(routes: () => readonly RouteDef[]): OpenApi {
  let cached: { catalog: Catalog; environment: string; doc: Record<string, unknown>; hash?: string } | undefined;
  const current = (ctx: Parameters<OpenApi['document']>[0]) => {
    const catalog = ctx.catalog();
    if (cached?.catalog !== catalog || cached.environment !== ctx.config.environment) {
      cached = { catalog, environment: ctx.config.environment, doc: openApiDocument(routes(), catalog, ctx.config.environment) };
    }
    return cached;
  };
  return {
    document: (ctx) => current(ctx).doc,
    contractHash: (ctx) => {
      const c = current(ctx);
      return (c.hash ??= createHash('sha256').update(JSON.stringify(c.doc)).digest('hex').slice(0, 16));
    },
  };
}
