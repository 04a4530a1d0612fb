import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../auth/scopes.js';
import type { ErrorCode } from '../errors.js';
import type { ServerContext } from '../context.js';

// A route is declared once: Fastify registers it from this declaration and the OpenAPI
// document is generated from the same declaration (path, scope, schemas, errors).

export type JsonSchema = Record<string, unknown>;

export interface RouteDef {
  method: 'GET' | 'POST';
  /** Fastify URL (`:param`, `*`). */
  url: string;
  /** OpenAPI path (`{param}`). */
  path: string;
  /** Required scope; null for public routes; a function when it depends on the path (rules). */
  scope: Scope | null | ((ctx: ServerContext, request: FastifyRequest) => Scope);
  /** The scope the OpenAPI document names when `scope` is a function. */
  documentedScope?: Scope;
  /** Documented in OpenAPI but served by another route's handler (wildcard paths). */
  documentOnly?: boolean;
  tag: string;
  summary: string;
  description?: string;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /** False when the body may be omitted (documented as optional). */
  bodyRequired?: boolean;
  /** Success status and the schema of `data` (or of the whole body when `envelope` is false). */
  success: { status: number; description: string; schema: JsonSchema; contentType?: string };
  /** False for responses not wrapped in the envelope (OpenAPI document, HTML, migration). */
  envelope?: boolean;
  /** `migration`: errors answer in the external engine's shape `{status, message, result: null, sidecar}`. */
  errorShape?: 'migration';
  errors: ErrorCode[];
  /** Compute units one call costs a trial key (see docs/limits). */
  cost?: number;
  handler: (ctx: ServerContext, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/**
 * The served OpenAPI document, handed to the routes that serve or record it: it is built from
 * the route list, so they cannot import it.
 */
export interface OpenApi {
  document(ctx: ServerContext): Record<string, unknown>;
  /** sha256 prefix of the served document (recorded with validation runs). */
  contractHash(ctx: ServerContext): string;
}

export const defineRoutes = (...routes: RouteDef[]) => routes;

/** Every route but the liveness check (which always answers) refuses the reserved point-in-time parameter `as_of`. */
export const refusesAsOf = (route: Pick<RouteDef, 'path'>): boolean => route.path !== '/v1/health';

/** The error codes a route can answer: its own, and those answered before its handler runs. */
export function errorsOf(route: RouteDef): ErrorCode[] {
  const beforeTheRoute: ErrorCode[] = [];
  if (refusesAsOf(route)) beforeTheRoute.push('unsupported_parameter');
  // a path parameter the router cannot read (malformed percent-encoding, longer than it takes)
  if (route.path.includes('{')) beforeTheRoute.push('invalid_request');
  // a body that is not JSON, nests too deeply or is too large, whether the route reads one or not
  if (route.method === 'POST') beforeTheRoute.push('invalid_request', 'payload_too_large');
  return [...new Set<ErrorCode>([...route.errors, ...beforeTheRoute])];
}

/** What the authentication of any protected route can answer (the guard reads the store). */
export const AUTH_ERRORS = ['unauthorized', 'insufficient_scope', 'rate_limited', 'auth_throttled', 'auth_not_configured', 'store_unavailable'] as const satisfies readonly ErrorCode[];
