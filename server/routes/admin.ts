import type { ServerContext } from '../context.js';
import { ApiError } from '../errors.js';
import { audit, originOf } from '../keys/audit.js';
import { type IssueKeyRequest, issueKey, keyMetadata, revokeKey } from '../keys/issue.js';
import { type KillSwitch, StoreUnavailableError } from '../store/store.js';
import { KILL_SWITCHES } from '../admin-schemas.js';
import { AUTH_ERRORS } from './route.js';
import { defineRoutes } from './route.js';

// Admin routes: keys (list, issue, revoke), the audit trail, monthly usage, analytics (this
// instance or every live one), kill switches; validation runs live in admin-validation.ts.
// Scopes where the specification is open (see the OpenAPI description): audit and kill
// switches need admin:keys.

/** Snapshots flushed within this window count as live instances in the global view. */
const LIVE_SNAPSHOT_MS = 60_000;
const AUDIT_LIMIT = 200;

const currentMonth = () => new Date().toISOString().slice(0, 7);

/** Both switches, disengaged unless the store records otherwise. */
async function killSwitchState(ctx: ServerContext): Promise<{ switches: KillSwitch[] }> {
  const stored = await ctx.store.killSwitches();
  return {
    switches: KILL_SWITCHES.map((name) => stored.find((s) => s.switch === name) ?? { switch: name, engaged: false, reason: null, changed_at: null, changed_by: null }),
  };
}

export const adminRoutes = defineRoutes(
  {
    method: 'GET',
    url: '/v1/admin/keys',
    path: '/v1/admin/keys',
    scope: 'admin:keys',
    tag: 'admin',
    summary: 'Every API key: environment keys, then store keys (never key material or hashes)',
    description: 'Read fresh from the store. 503 `store_unavailable` when the key configuration cannot be loaded.',
    success: { status: 200, description: '`{keys: ApiKeyMetadata[], store}`', schema: { $ref: 'KeyList' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => {
      await ctx.keys.refresh();
      return { keys: (await ctx.keys.all()).map(keyMetadata), store: ctx.store.kind };
    },
  },
  {
    method: 'POST',
    url: '/v1/admin/keys',
    path: '/v1/admin/keys',
    scope: 'admin:keys',
    tag: 'admin',
    summary: 'Issue a key; the raw key is in this answer only',
    description:
      'The id must be unused by store and environment keys (409 `key_id_conflict`); `expires_at` must lie in the future. Only the sha256 of the key is stored. The key works at once on this instance and within about 15 s on every other one. Recorded in the audit trail as `key.issued`.',
    body: { $ref: 'IssueKeyRequest' },
    success: { status: 201, description: 'IssuedKey', schema: { $ref: 'IssuedKey' } },
    errors: ['invalid_request', 'payload_too_large', 'key_id_conflict', ...AUTH_ERRORS],
    handler: async (ctx, request) => issueKey(ctx.store, ctx.keys, request.body as IssueKeyRequest, originOf(request)),
  },
  {
    method: 'POST',
    url: '/v1/admin/keys/:key_id/revoke',
    path: '/v1/admin/keys/{key_id}/revoke',
    scope: 'admin:keys',
    tag: 'admin',
    summary: 'Revoke a key at runtime',
    description:
      'The key is refused at once on this instance and within 30 s on every other one. Revoking an environment key records a runtime revocation in the store; remove the key from RULES_API_KEYS to make it permanent. Revoking a revoked key changes nothing. Recorded in the audit trail as `key.revoked`.',
    success: { status: 200, description: '`{id, revoked, durable, note}`', schema: { $ref: 'RevocationResult' } },
    errors: ['not_found', ...AUTH_ERRORS],
    handler: async (ctx, request) => revokeKey(ctx.store, ctx.keys, (request.params as { key_id: string }).key_id, originOf(request)),
  },
  {
    method: 'GET',
    url: '/v1/admin/audit',
    path: '/v1/admin/audit',
    scope: 'admin:keys',
    tag: 'admin',
    summary: `The audit trail, newest first (at most ${AUDIT_LIMIT} entries; retained 90 days)`,
    description: 'Actions: `key.issued`, `key.revoked`, `trial_key.issued`, `kill_switch.changed`. `actor` is the acting key id (`cli` for `rules keys`, null for trial issuance).',
    success: { status: 200, description: '`{entries: AuditEntry[], store}`', schema: { $ref: 'AuditList' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => ({ entries: await ctx.store.audit(AUDIT_LIMIT), store: ctx.store.kind }),
  },
  {
    method: 'GET',
    url: '/v1/admin/usage',
    path: '/v1/admin/usage',
    scope: 'admin:analytics',
    tag: 'admin',
    summary: 'Requests per key in one UTC month, most first',
    description: "Includes this instance's counts not yet flushed to the store; other instances flush every 5 s. Retained about 13 months.",
    query: {
      type: 'object',
      properties: { month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: '`YYYY-MM`; default the current UTC month.' } },
    },
    success: { status: 200, description: '`{month, usage: UsageRow[], store}`', schema: { $ref: 'UsageReport' } },
    errors: ['invalid_request', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const month = (request.query as { month?: string }).month ?? currentMonth();
      await ctx.analytics.flushUsage(ctx.store);
      const usage = (await ctx.store.usage(month)).sort((a, b) => b.requests - a.requests);
      return { month, usage, store: ctx.store.kind };
    },
  },
  {
    method: 'GET',
    url: '/v1/admin/analytics',
    path: '/v1/admin/analytics',
    scope: 'admin:analytics',
    tag: 'admin',
    summary: 'Request analytics of this instance (`local`) or of every live instance (`global`)',
    description: `Counters live in process memory since the instance started and reset on deploy. \`global\` flushes this instance's snapshot and returns every snapshot flushed within the last ${LIVE_SNAPSHOT_MS / 1000} s; when the store is unreachable it answers 503 \`store_unavailable\` with this instance's snapshot in \`data\`.`,
    query: { type: 'object', properties: { scope: { enum: ['local', 'global'], description: 'Default `local`.' } } },
    success: { status: 200, description: 'AnalyticsSnapshot, or the global view', schema: { oneOf: [{ $ref: 'AnalyticsSnapshot' }, { $ref: 'GlobalAnalytics' }] } },
    errors: ['invalid_request', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const snapshot = ctx.analytics.snapshot();
      if ((request.query as { scope?: string }).scope !== 'global') return snapshot;
      try {
        const now = Date.now();
        await ctx.store.putSnapshot(ctx.instanceId, snapshot as unknown as Record<string, unknown>, now);
        const instances = await ctx.store.snapshots(now - LIVE_SNAPSHOT_MS);
        return { scope: 'global', store: ctx.store.kind, instances: instances.sort((a, b) => String(a.instance_id).localeCompare(String(b.instance_id))) };
      } catch (err) {
        if (err instanceof StoreUnavailableError) throw Object.assign(new ApiError('store_unavailable', "the shared store is unreachable, so the global view cannot be assembled; data holds this instance's snapshot", snapshot), { cause: err });
        throw err;
      }
    },
  },
  {
    method: 'GET',
    url: '/v1/admin/kill',
    path: '/v1/admin/kill',
    scope: 'admin:keys',
    tag: 'admin',
    summary: 'The kill switches trial_traffic and trial_mint',
    description:
      '`trial_traffic` engaged: every request made with a trial key is refused with 403 `insufficient_scope`. `trial_mint` engaged: POST /v1/keys/trial answers 429 `rate_limited`. Other keys are unaffected.',
    success: { status: 200, description: '`{switches: [{switch, engaged, reason, changed_at, changed_by}]}`', schema: { $ref: 'KillSwitchState' } },
    errors: [...AUTH_ERRORS],
    handler: async (ctx) => killSwitchState(ctx),
  },
  {
    method: 'POST',
    url: '/v1/admin/kill',
    path: '/v1/admin/kill',
    scope: 'admin:keys',
    tag: 'admin',
    summary: 'Engage or release a kill switch',
    description: 'Takes effect at once on every instance sharing the store. Recorded in the audit trail as `kill_switch.changed`. Answers the state of both switches.',
    body: { $ref: 'KillSwitchRequest' },
    success: { status: 200, description: 'The state of both switches after the change', schema: { $ref: 'KillSwitchState' } },
    errors: ['invalid_request', 'payload_too_large', ...AUTH_ERRORS],
    handler: async (ctx, request) => {
      const body = request.body as Pick<KillSwitch, 'switch' | 'engaged'> & { reason: string };
      const origin = originOf(request);
      await ctx.store.setKillSwitch({ switch: body.switch, engaged: body.engaged, reason: body.reason, changed_at: new Date().toISOString(), changed_by: origin.actor });
      await audit(ctx.store, origin, 'kill_switch.changed', body.switch, { engaged: body.engaged, reason: body.reason });
      return killSwitchState(ctx);
    },
  },
);
