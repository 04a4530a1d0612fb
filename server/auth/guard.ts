import type { FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMIT_BOUNDS } from '../admin-schemas.js';
import { ApiError } from '../errors.js';
import type { ServerContext } from '../context.js';
import { type RateLimit, StoreUnavailableError } from '../store/store.js';
import type { ApiKey } from './keys.js';
import { hasScope, type Scope } from './scopes.js';

// The checks a protected route runs, in order: failed-auth throttle (per client), keys
// configured at all, a valid key, the per-key rate limit (headers on every authenticated
// response), the scope, and for trial keys the kill switch and the compute-unit quota.

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 120, window_seconds: 60 };
export const TRIAL_RATE_LIMIT: RateLimit = { requests: 30, window_seconds: 60 };
export const FAILED_AUTH = { attempts: 20, window_seconds: 300 };

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKey;
  }
}

/**
 * A rate limit held to the bounds issuance enforces: a key stored before they were (a limit of
 * 1e300 requests) is counted and announced as the largest allowed, so the rate-limit headers are
 * always whole numbers.
 */
export function withinBounds(limit: RateLimit): RateLimit {
  const clamp = (value: number, { minimum, maximum }: { minimum: number; maximum: number }) => (Number.isFinite(value) ? Math.min(maximum, Math.max(minimum, Math.floor(value))) : maximum);
  return { requests: clamp(limit.requests, RATE_LIMIT_BOUNDS.requests), window_seconds: clamp(limit.window_seconds, RATE_LIMIT_BOUNDS.window_seconds) };
}

/** The raw key of a request: `x-api-key` wins over `Authorization: Bearer`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct && direct.trim()) return direct.trim();
  const auth = request.headers.authorization;
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m ? m[1].trim() : undefined;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw Object.assign(new ApiError('store_unavailable', 'the key and counter store is unreachable; try again shortly'), { cause: err });
    throw err;
  }
}

/** 429 auth_throttled while the client has used up its failed attempts (also guards trial minting). */
export async function checkThrottle(ctx: ServerContext, client: string, now: number): Promise<void> {
  const failures = await guarded(() => ctx.store.peek(`authfail:${client}`, FAILED_AUTH.window_seconds, now));
  if (failures.count >= FAILED_AUTH.attempts) {
    ctx.analytics.authEvent('auth_throttled');
    const retry = Math.max(1, Math.ceil((failures.reset_at - now) / 1000));
    throw new ApiError('auth_throttled', `too many failed authentication attempts from this client; retry in ${retry} s`, { retry_after_seconds: retry }, { 'retry-after': String(retry) });
  }
}

export async function authorize(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, scope: Scope, cost: number): Promise<void> {
  const client = request.ip;
  const now = Date.now();
  const analytics = ctx.analytics;
  await checkThrottle(ctx, client, now);
  await guarded(async () => {
    if (!(await ctx.keys.hasAny())) {
      analytics.authEvent('auth_misconfigured');
      throw new ApiError('auth_not_configured', 'this service requires an API key but none is configured; issue one with POST /v1/keys/trial or set RULES_API_KEYS');
    }
    const raw = presentedKey(request);
    const key = raw ? await ctx.keys.authenticate(raw, now) : undefined;
    if (!key) {
      // a failed attempt is a key that does not authenticate; a request without any key is not
      // an attempt (and must not let a keyless local client lock out its whole host)
      if (raw) await ctx.store.hit(`authfail:${client}`, FAILED_AUTH.window_seconds, now);
      analytics.authEvent('unauthorized');
      throw new ApiError('unauthorized', 'a valid API key is required (x-api-key or Authorization: Bearer)');
    }
    request.apiKey = key;

    const limit = withinBounds(key.rateLimit ?? (key.kind === 'trial' ? TRIAL_RATE_LIMIT : DEFAULT_RATE_LIMIT));
    const window = await ctx.store.hit(`rate:${key.id}`, limit.window_seconds, now);
    const reset = Math.ceil(window.reset_at / 1000);
    reply.header('x-ratelimit-limit', String(limit.requests));
    reply.header('x-ratelimit-remaining', String(Math.max(0, limit.requests - window.count)));
    reply.header('x-ratelimit-reset', String(reset));
    if (window.count > limit.requests) {
      analytics.authEvent('rate_limited', key.id);
      const retry = Math.max(1, reset - Math.floor(now / 1000));
      throw new ApiError('rate_limited', `rate limit of ${limit.requests} requests per ${limit.window_seconds} s exceeded; retry in ${retry} s`, { retry_after_seconds: retry }, { 'retry-after': String(retry) });
    }
    if (!hasScope(key.scopes, scope)) {
      analytics.authEvent('insufficient_scope');
      throw new ApiError('insufficient_scope', `this key lacks the scope \`${scope}\``);
    }
    if (key.kind === 'trial') {
      const switches = await ctx.store.killSwitches();
      if (switches.some((s) => s.switch === 'trial_traffic' && s.engaged)) {
        throw new ApiError('insufficient_scope', 'trial traffic is suspended by the operators (kill switch trial_traffic); trial keys are refused until it is released');
      }
      if (key.quotaCu !== undefined && cost > 0) {
        const used = await ctx.store.addComputeUnits(key.id, cost);
        if (used > key.quotaCu) {
          throw new ApiError('insufficient_scope', `this trial key has used its lifetime quota of ${key.quotaCu} compute units; request a new trial key or an issued key`);
        }
      }
    }
  });
}
