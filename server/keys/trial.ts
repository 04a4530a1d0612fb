import { randomBytes } from 'node:crypto';
import { TRIAL_RATE_LIMIT } from '../auth/guard.js';
import { type KeyRegistry, keyPrefix, newRawKey, sha256 } from '../auth/keys.js';
import { TRIAL_SCOPES } from '../auth/scopes.js';
import type { ServerConfig } from '../config.js';
import { ApiError } from '../errors.js';
import type { Store, StoredKey } from '../store/store.js';
import { audit, type AuditOrigin } from './audit.js';
import { memoryCaveat } from './issue.js';

// Self-service trial keys (POST /v1/keys/trial): fixed scopes, lifetime, rate limit and quota,
// issuance capped per client and per UTC day and suspended by the `trial_mint` kill switch.

export const TRIAL = { ttlDays: 14, quotaCu: 10_000 };
const DAY_SECONDS = 86_400;
/** Suggested wait while trial issuance is suspended by the `trial_mint` kill switch. */
const SUSPENDED_RETRY_SECONDS = 3600;

const limited = (message: string, seconds: number) => new ApiError('rate_limited', message, { retry_after_seconds: seconds }, { 'retry-after': String(seconds) });

/** Trial issuance is refused while `trial_mint` is engaged, and capped per client and per UTC day. */
export async function admitTrialIssuance(store: Store, limits: Pick<ServerConfig, 'trialClientDailyCap' | 'trialDailyCap'>, client: string, now: number): Promise<void> {
  const switches = await store.killSwitches();
  if (switches.some((s) => s.switch === 'trial_mint' && s.engaged)) {
    throw limited('trial key issuance is suspended by the operators (kill switch trial_mint); try again later', SUSPENDED_RETRY_SECONDS);
  }
  const caps = [
    { bucket: `trial:client:${client}`, cap: limits.trialClientDailyCap, what: `this client has received its ${limits.trialClientDailyCap} trial keys for today (UTC)` },
    { bucket: 'trial:global', cap: limits.trialDailyCap, what: `this service has issued its ${limits.trialDailyCap} trial keys for today (UTC)` },
  ];
  for (const { bucket, cap, what } of caps) {
    // day-long fixed windows start at UTC midnight
    const day = await store.hit(bucket, DAY_SECONDS, now);
    if (day.count > cap) {
      const seconds = Math.max(1, Math.ceil((day.reset_at - now) / 1000));
      throw limited(`trial key issuance limit reached: ${what}; retry in ${seconds} s`, seconds);
    }
  }
}

/** Issue a trial key now; the raw key is in this answer only. */
export async function issueTrialKey(store: Store, registry: KeyRegistry, label: string | undefined, origin: AuditOrigin, now: number) {
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
  if (!(await store.createKey(key))) throw new Error(`trial key id ${key.id} collided`);
  await audit(store, origin, 'trial_key.issued', key.id, label === undefined ? undefined : { label });
  await registry.refresh();
  return {
    key: raw,
    key_id: key.id,
    scopes: key.scopes,
    expires_at: key.expires_at,
    rate_limit: TRIAL_RATE_LIMIT,
    quota_cu: TRIAL.quotaCu,
    ttl_days: TRIAL.ttlDays,
    durable: store.durable,
    warning: `Store this key now: it is shown only once and cannot be recovered. It expires on ${key.expires_at} and is for evaluation only; results are not authoritative eligibility determinations.${memoryCaveat(store)}`,
  };
}
