import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { checkThrottle, TRIAL_RATE_LIMIT } from '../auth/guard.js';
import { type ApiKey, type KeyRegistry, keyPrefix, newRawKey, sha256 } from '../auth/keys.js';
import { TRIAL_SCOPES } from '../auth/scopes.js';
import type { ServerContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { AuditEntry, Store, StoredKey } from '../store/store.js';
import { defineRoutes } from './route.js';
import './admin-schemas.js';

// API keys: what issuing, revoking and listing a key means, shared by the trial route below,
// the admin routes and the `rules keys` CLI. Only the sha256 of a key is stored; the raw key
// leaves the process once, in the issuance answer.

const TRIAL = { ttlDays: 14, quotaCu: 10_000 };
const DAY_SECONDS = 86_400;
/** Suggested wait while trial issuance is suspended by the `trial_mint` kill switch. */
const SUSPENDED_RETRY_SECONDS = 3600;
const REVOCATION_WINDOW = 'at once where it was revoked and within 30 s on every running instance';

/** Who did something, for the audit trail. */
export interface AuditOrigin {
  actor: string | null;
  client: string | null;
  request_id: string;
}

export const originOf = (request: FastifyRequest): AuditOrigin => ({ actor: request.apiKey?.id ?? null, client: request.ip ?? null, request_id: String(request.id) });

export interface IssueKeyRequest {
  id: string;
  scopes: string[];
  owner?: string;
  note?: string;
  expires_at?: string;
  rate_limit?: { requests: number; window_seconds: number };
}

/** Append to the audit trail (AuditEntry), now. */
export async function audit(store: Store, origin: AuditOrigin, action: string, target: string, detail?: Record<string, unknown>): Promise<void> {
  const entry: AuditEntry = { at: new Date().toISOString(), action, target, ...origin, ...(detail ? { detail } : {}) };
  await store.addAudit(entry);
}

const memoryCaveat = (store: Store) => (store.durable ? '' : ` This server keeps keys in per-instance ${store.kind} storage: the key is lost when it restarts.`);

/** Issue a key with the caller's id, scopes and limits (POST /v1/admin/keys, `rules keys issue`). */
export async function issueKey(store: Store, registry: KeyRegistry, request: IssueKeyRequest, origin: AuditOrigin) {
  const now = new Date();
  if (request.expires_at !== undefined && Date.parse(request.expires_at) <= now.getTime()) throw new ApiError('invalid_request', 'body.expires_at: must lie in the future');
  const conflict = new ApiError('key_id_conflict', `a key with the id ${request.id} already exists`);
  if (await registry.exists(request.id)) throw conflict;
  const raw = newRawKey('admin');
  const key: StoredKey = {
    id: request.id,
    key_sha256: sha256(raw),
    prefix: keyPrefix(raw),
    scopes: [...new Set(request.scopes)],
    status: 'active',
    kind: 'admin',
    created_at: now.toISOString(),
    owner: request.owner,
    note: request.note,
    expires_at: request.expires_at === undefined ? undefined : new Date(request.expires_at).toISOString(),
    rate_limit: request.rate_limit,
  };
  if (!(await store.createKey(key))) throw conflict;
  await audit(store, origin, 'key.issued', key.id, { scopes: key.scopes, owner: key.owner, expires_at: key.expires_at, rate_limit: key.rate_limit });
  await registry.refresh();
  const { key_sha256: _hash, kind: _kind, quota_cu: _quota, revoked_at: _revoked, ...entry } = key;
  return {
    key: raw,
    entry,
    durable: store.durable,
    warning: `Store this key now: it is shown only once and cannot be recovered (only its sha256 is kept). It works at once where it was issued and within about 15 s on every running instance.${memoryCaveat(store)}`,
  };
}

/**
 * Revoke a key (POST /v1/admin/keys/{key_id}/revoke, `rules keys revoke`). An environment key
 * gets a runtime revocation recorded in the store; it stays in RULES_API_KEYS until removed.
 */
export async function revokeKey(store: Store, registry: KeyRegistry, id: string, origin: AuditOrigin) {
  await registry.refresh();
  const key = (await registry.all()).find((k) => k.id === id);
  if (!key) throw new ApiError('not_found', `no key with the id ${id}`);
  const result = (note: string) => ({ id, revoked: true, durable: store.durable, note: `${note}${memoryCaveat(store)}` });
  if (key.status === 'revoked') return result(`key ${id} was already revoked; nothing changed.`);

  const at = new Date().toISOString();
  if (key.source === 'store') await store.revokeKey(id, at);
  else await store.createKey({ id, key_sha256: key.hash.toString('hex'), prefix: '', scopes: key.scopes, status: 'revoked', kind: 'admin', created_at: at, revoked_at: at });
  await audit(store, origin, 'key.revoked', id, { source: key.source });
  await registry.refresh();
  return key.source === 'store'
    ? result(`key ${id} is revoked: it is refused ${REVOCATION_WINDOW}.`)
    : result(`environment key ${id} is revoked at runtime (recorded in the store): it is refused ${REVOCATION_WINDOW}. Remove it from RULES_API_KEYS to make the revocation permanent.`);
}

/** ApiKeyMetadata: what may be shown about a key (never key material or hashes). */
export function keyMetadata(key: ApiKey) {
  return {
    id: key.id,
    source: key.source,
    scopes: key.scopes,
    status: key.status,
    runtime_revoked: key.runtimeRevoked,
    prefix: key.prefix,
    rate_limit: key.rateLimit,
    owner: key.owner,
    expires_at: key.expiresAt,
    created_at: key.createdAt,
  };
}

const limited = (message: string, seconds: number) => new ApiError('rate_limited', message, { retry_after_seconds: seconds }, { 'retry-after': String(seconds) });

/** Trial issuance is refused while `trial_mint` is engaged, and capped per client and per UTC day. */
async function admitTrialIssuance(ctx: ServerContext, client: string, now: number): Promise<void> {
  const switches = await ctx.store.killSwitches();
  if (switches.some((s) => s.switch === 'trial_mint' && s.engaged)) {
    throw limited('trial key issuance is suspended by the operators (kill switch trial_mint); try again later', SUSPENDED_RETRY_SECONDS);
  }
  const caps = [
    { bucket: `trial:client:${client}`, cap: ctx.config.trialClientDailyCap, what: `this client has received its ${ctx.config.trialClientDailyCap} trial keys for today (UTC)` },
    { bucket: 'trial:global', cap: ctx.config.trialDailyCap, what: `this service has issued its ${ctx.config.trialDailyCap} trial keys for today (UTC)` },
  ];
  for (const { bucket, cap, what } of caps) {
    // day-long fixed windows start at UTC midnight
    const day = await ctx.store.hit(bucket, DAY_SECONDS, now);
    if (day.count > cap) {
      const seconds = Math.max(1, Math.ceil((day.reset_at - now) / 1000));
      throw limited(`trial key issuance limit reached: ${what}; retry in ${seconds} s`, seconds);
    }
  }
}

export const keysRoutes = defineRoutes({
  method: 'POST',
  url: '/v1/keys/trial',
  path: '/v1/keys/trial',
  scope: null,
  tag: 'keys',
  summary: 'Issue a self-service trial key (no key needed)',
  description: `Scopes rules:read, sources:read, graphs:read and calculate:run; expires after ${TRIAL.ttlDays} days; ${TRIAL_RATE_LIMIT.requests} requests per ${TRIAL_RATE_LIMIT.window_seconds} s; a lifetime quota of ${TRIAL.quotaCu.toLocaleString('en-US')} compute units. The raw key is in this answer only. Issuance is capped per client and for the whole service per UTC day (defaults 5 per client and 1,000 in all, set by RULES_TRIAL_CLIENT_DAILY_CAP and RULES_TRIAL_DAILY_CAP; 429 \`rate_limited\` with \`retry-after\` until the next UTC day) and refused with 429 \`rate_limited\` (\`retry-after\` one hour) while the \`trial_mint\` kill switch is engaged. Every issuance is recorded in the audit trail.`,
  body: { $ref: 'TrialKeyRequest' },
  bodyRequired: false,
  success: { status: 201, description: 'The trial key, shown this once.', schema: { $ref: 'TrialKey' } },
  errors: ['invalid_request', 'payload_too_large', 'rate_limited', 'auth_throttled', 'store_unavailable'],
  handler: async (ctx, request) => {
    const label = (request.body as { label?: string } | null)?.label;
    const now = Date.now();
    await checkThrottle(ctx, request.ip, now);
    await admitTrialIssuance(ctx, request.ip, now);
    const raw = newRawKey('trial');
    const key: StoredKey = {
      id: `trial_${randomBytes(8).toString('hex')}`,
      key_sha256: sha256(raw),
      prefix: keyPrefix(raw),
      scopes: [...TRIAL_SCOPES],
      status: 'active',
      kind: 'trial',
      created_at: new Date(now).toISOString(),
      note: label,
      expires_at: new Date(now + TRIAL.ttlDays * DAY_SECONDS * 1000).toISOString(),
      rate_limit: TRIAL_RATE_LIMIT,
      quota_cu: TRIAL.quotaCu,
    };
    if (!(await ctx.store.createKey(key))) throw new Error(`trial key id ${key.id} collided`);
    await audit(ctx.store, originOf(request), 'trial_key.issued', key.id, label === undefined ? undefined : { label });
    await ctx.keys.refresh();
    return {
      key: raw,
      key_id: key.id,
      scopes: key.scopes,
      expires_at: key.expires_at,
      rate_limit: TRIAL_RATE_LIMIT,
      quota_cu: TRIAL.quotaCu,
      ttl_days: TRIAL.ttlDays,
      durable: ctx.store.durable,
      warning: `Store this key now: it is shown only once and cannot be recovered. It expires on ${key.expires_at} and is for evaluation only; results are not authoritative eligibility determinations.${memoryCaveat(ctx.store)}`,
    };
  },
});
