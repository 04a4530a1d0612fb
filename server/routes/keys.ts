import { checkThrottle, TRIAL_RATE_LIMIT } from '../auth/guard.js';
import { originOf } from '../keys/audit.js';
import { admitTrialIssuance, issueTrialKey, TRIAL } from '../keys/trial.js';
import { defineRoutes } from './route.js';

// The self-service trial key route; what issuing one means lives in server/keys/.

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
    await admitTrialIssuance(ctx.store, ctx.config, request.ip, now);
    return issueTrialKey(ctx.store, ctx.keys, label, originOf(request), now);
  },
});
