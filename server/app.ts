import { randomUUID } from 'node:crypto';
import { isAscii, isUtf8 } from 'node:buffer';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { authorize } from './auth/guard.js';
import { BODY_LIMIT, MAX_JSON_DEPTH, nestsDeeperThan } from './body-limits.js';
import { ConnectionGuard, serverOptions } from './connections.js';
import { heldBack, LogThrottle } from './log-throttle.js';
import type { ServerContext } from './context.js';
import { failure, ok, okJson } from './envelope.js';
import { JsonData } from './response-json.js';
import { ApiError, GENERIC_INTERNAL_MESSAGE } from './errors.js';
import { ALL_ROUTES } from './routes/index.js';
import { refusesAsOf, type RouteDef } from './routes/route.js';
import { proxyTrust } from './proxy-trust.js';
import { ajv, describeValidation } from './schemas.js';
import { StoreUnavailableError } from './store/store.js';

// The Fastify application: envelopes, request ids, no-store caching, CORS (allowlist only),
// authentication per route, one error mapping, and every route of routes/index.ts.

declare module 'fastify' {
  interface FastifyContextConfig {
    route?: RouteDef;
    /** `GET /v1/health`: how analytics names the route. */
    label?: string;
  }
}

/** A client's request id is echoed as sent (headers cannot carry control characters); a very
 *  long one is replaced rather than reflected. */
const MAX_REQUEST_ID = 1024;

function requestIdOf(header: string | string[] | undefined): string {
  const id = (Array.isArray(header) ? header[0] : header)?.trim();
  return id && id.length <= MAX_REQUEST_ID ? id : randomUUID();
}

/** One log line per request, when it completes (method, url, status, time), not Fastify's two. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

export function buildApp(ctx: ServerContext, options: { logger?: boolean | object } = {}): FastifyInstance {
  const env = ctx.config.environment;
  const trust = ctx.config.trustProxy;
  const connections = new ConnectionGuard(ctx.config.connections, proxyTrust(trust), env);
  const app = Fastify({
    logger: options.logger ?? false,
    logController: new OneLinePerRequest(),
    bodyLimit: BODY_LIMIT,
    ...serverOptions(ctx.config.connections),
    trustProxy: trust === false ? false : proxyTrust(trust),
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    routerOptions: { ignoreTrailingSlash: true },
    // errors Fastify raises before routing (a malformed URL) get the envelope too
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', String(request.id));
      reply.header('cache-control', 'no-store');
      (reply as FastifyReply).status(400).send(failure(request, ctx.config.environment, 'invalid_request', `the request URL is malformed: ${error.message}`));
    },
    // a request Node's HTTP parser rejects or times out never reaches Fastify: answered in the envelope's shape
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => connections.clientError(err, socket),
  });
  connections.attach(app);
  logStoreErrors(ctx, app);

  // JSON bodies: an empty body is "no body" (routes that need one say so through their schema);
  // the nesting limit is checked on the raw text, before anything walks the parsed value
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    // read as bytes and decoded here: a body all ASCII (as JSON almost always is) is copied as it
    // is, 4x quicker than decoding it as UTF-8, which a 222 KB batch took 0.2 ms to do; a body
    // that is not UTF-8 (RFC 8259's only encoding for JSON) is refused, not read with U+FFFD in
    // place of its bad bytes
    const bytes = body as Buffer;
    const ascii = isAscii(bytes);
    if (!ascii && !isUtf8(bytes)) return done(new ApiError('invalid_request', 'the JSON body is not valid UTF-8 (send it as UTF-8, the encoding JSON is exchanged in)'), undefined);
    const text = ascii ? bytes.toString('latin1') : bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new ApiError('invalid_request', `the JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (the limit for every request body)`), undefined);
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new ApiError('invalid_request', `malformed JSON body: ${(err as Error).message}`), undefined);
    }
  });

  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = ajv.compile(schema);
    return (data: unknown) => (validate(data) ? { value: data } : { error: new ApiError('invalid_request', describeValidation(validate.errors, httpPart === 'querystring' ? 'query' : (httpPart ?? 'body'))) });
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    reply.header('cache-control', 'no-store');
    applyCors(ctx, request, reply);
  });

  // the reserved point-in-time parameter, anywhere but the liveness check (always 200)
  app.addHook('preValidation', async (request) => {
    const route = request.routeOptions.config.route;
    if (route && !refusesAsOf(route)) return;
    const query = request.query as Record<string, unknown> | undefined;
    const body = request.body as Record<string, unknown> | undefined;
    if ((query && 'as_of' in query) || (body && typeof body === 'object' && !Array.isArray(body) && 'as_of' in body)) {
      throw new ApiError('unsupported_parameter', '`as_of` is reserved for point-in-time retrieval and not supported yet');
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const label = request.routeOptions.config.label ?? `${request.method} (unmatched)`;
    ctx.analytics.record(label, reply.statusCode, reply.elapsedTime, request.apiKey?.id);
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    if (apiError.code === 'store_unavailable') ctx.analytics.storeError(error instanceof ApiError ? (error.cause ?? error) : error, `answering ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`);
    for (const [k, v] of Object.entries(apiError.headers ?? {})) reply.header(k, v);
    if (request.routeOptions.config.route?.errorShape === 'migration') {
      return reply.status(apiError.status).send({ status: 'error', message: apiError.message, result: null, sidecar: { request_id: String(request.id), code: apiError.code } });
    }
    return reply.status(apiError.status).send(failure(request, env, apiError.code, apiError.message, apiError.data, apiError.details));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(failure(request, env, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  if (ctx.config.corsOrigins.length) {
    app.options('/*', async (_request, reply) => reply.status(204).send());
  }

  for (const route of ALL_ROUTES) {
    if (route.documentOnly) continue;
    app.route({
      method: route.method,
      url: route.url,
      config: { route, label: `${route.method} ${route.path}` },
      schema: {
        ...(route.body ? { body: route.body } : {}),
        ...(route.query ? { querystring: route.query } : {}),
      },
      onRequest: route.scope
        ? async (request, reply) => authorize(ctx, request, reply, typeof route.scope === 'function' ? route.scope(ctx, request) : route.scope!, route.cost ?? 1)
        : undefined,
      handler: async (request, reply) => {
        const result = await route.handler(ctx, request, reply);
        if (reply.sent) return reply;
        if (route.envelope === false) return result;
        if (result instanceof JsonData) return reply.status(route.success.status).type('application/json; charset=utf-8').send(okJson(request, env, result));
        return reply.status(route.success.status).send(ok(request, env, result));
      },
    });
  }
  return app;
}

/** Each store error is logged with its cause, once a minute per operation and cause (with how many were held back). */
function logStoreErrors(ctx: ServerContext, app: FastifyInstance): void {
  const throttle = new LogThrottle();
  ctx.analytics.onStoreError((error, during) => {
    const cause = error instanceof Error ? error.message : String(error);
    const held = throttle.admit(`${during}: ${cause}`);
    if (held !== null) app.log.error({ err: error, during }, `store error while ${during}: ${cause}${heldBack(held)}`);
  });
}

function toApiError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) return new ApiError('store_unavailable', 'the store is unreachable; try again shortly');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `the request body exceeds ${BODY_LIMIT} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'the request body must be JSON (content-type: application/json)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'the content-length header does not match the body');
    case 'FST_ERR_VALIDATION':
      return new ApiError('invalid_request', error.message);
  }
  if (error.statusCode === 400 || error instanceof SyntaxError) return new ApiError('invalid_request', error.message);
  if (error.statusCode === 413) return new ApiError('payload_too_large', `the request body exceeds ${BODY_LIMIT} bytes`);
  return new ApiError('internal_error', GENERIC_INTERNAL_MESSAGE);
}

const EXPOSED = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after';

/** CORS for allowlisted origins only; without an allowlist no access-control header is sent. */
function applyCors(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin || !ctx.config.corsOrigins.includes(origin)) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('vary', 'Origin');
  reply.header('access-control-expose-headers', EXPOSED);
  if (request.method === 'OPTIONS') {
    reply.header('access-control-allow-methods', 'GET, POST');
    reply.header('access-control-allow-headers', 'content-type, authorization, x-api-key, x-request-id');
    reply.header('access-control-max-age', '600');
  }
}
