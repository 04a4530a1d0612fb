import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EnvironmentKey } from '../config.js';
import type { RateLimit, Store, StoredKey } from '../store/store.js';

// All API keys the daemon accepts: environment keys (RULES_API_KEYS) and store keys, side by
// side. Only sha256 hashes are held. Store keys are re-read at most every 15 s, so a key issued
// or revoked on another instance takes effect here within that window (this instance's own
// changes take effect at once).

export const KEY_REFRESH_MS = 15_000;

export interface ApiKey {
  id: string;
  source: 'environment' | 'store';
  kind: 'admin' | 'trial';
  hash: Buffer;
  prefix?: string;
  scopes: string[];
  status: 'active' | 'revoked';
  runtimeRevoked: boolean;
  rateLimit?: RateLimit;
  owner?: string;
  note?: string;
  expiresAt?: string;
  createdAt?: string;
  quotaCu?: number;
}

export const sha256 = (raw: string) => createHash('sha256').update(raw).digest('hex');

/** A new raw key: a readable prefix and 32 random bytes. */
export function newRawKey(kind: 'admin' | 'trial'): string {
  return `${kind === 'trial' ? 'rk_trial' : 'rk_live'}_${randomBytes(32).toString('base64url')}`;
}

/** What may be shown of a key we issued: its kind marker and 3-4 random characters (of 43). */
export function keyPrefix(raw: string): string {
  return raw.slice(0, 12);
}

/**
 * What may be shown of an operator key (RULES_API_KEYS): a fingerprint of its sha256, never
 * characters of the key itself (operators choose their keys, and a listing must not narrow
 * them down). It is the same for `key` and `key_sha256`, and an operator can match it with
 * `printf %s "$KEY" | sha256sum | cut -c1-8`.
 */
export function keyFingerprint(hashHex: string): string {
  return `sha256:${hashHex.slice(0, 8)}`;
}

function fromEnvironment(k: EnvironmentKey): ApiKey {
  const hash = k.key_sha256 ?? sha256(k.key!);
  return {
    id: k.id,
    source: 'environment',
    kind: 'admin',
    hash: Buffer.from(hash, 'hex'),
    prefix: keyFingerprint(hash),
    scopes: k.scopes,
    status: 'active',
    runtimeRevoked: false,
    rateLimit: k.rate_limit,
    owner: k.owner,
    expiresAt: k.expires_at,
  };
}

function fromStore(k: StoredKey): ApiKey {
  return {
    id: k.id,
    source: 'store',
    kind: k.kind,
    hash: Buffer.from(k.key_sha256 || '00'.repeat(32), 'hex'),
    prefix: k.prefix || undefined,
    scopes: k.scopes,
    status: k.status,
    runtimeRevoked: k.status === 'revoked',
    rateLimit: k.rate_limit,
    owner: k.owner,
    note: k.note,
    expiresAt: k.expires_at,
    createdAt: k.created_at,
    quotaCu: k.quota_cu,
  };
}

export class KeyRegistry {
  private readonly environment: ApiKey[];
  private stored: ApiKey[] = [];
  private loadedAt = 0;
  /** Counts announced key changes, so a re-read begun before one does not pass for fresh after it. */
  private changes = 0;

  constructor(
    envKeys: EnvironmentKey[],
    private readonly store: Store,
    /** `watchFailed`: the store could not subscribe to key change announcements (it retries). */
    options: { watchFailed?: (error: unknown) => void } = {},
  ) {
    this.environment = envKeys.map(fromEnvironment);
    store.watchKeys?.(
      () => {
        this.changes++;
        this.loadedAt = 0;
      },
      (error) => options.watchFailed?.(error),
    );
  }

  /** The merged list, rebuilt when the store keys are re-read (not on every request). */
  private merged: ApiKey[] = [];

  /** Re-read store keys now (after this instance issued or revoked one). */
  async refresh(): Promise<void> {
    const changes = this.changes;
    this.stored = (await this.store.listKeys()).map(fromStore);
    // a change announced while the keys were being read may be missing from them: read again next time
    this.loadedAt = changes === this.changes ? Date.now() : 0;
    // a runtime revocation of an environment key names its id and hash, so a key rotated
    // under the same id is not caught by the old revocation
    const revoked = this.stored.filter((k) => k.status === 'revoked');
    const isRevoked = (k: ApiKey) => revoked.some((r) => r.id === k.id && r.hash.equals(k.hash));
    const env = this.environment.map((k) => (isRevoked(k) ? { ...k, status: 'revoked' as const, runtimeRevoked: true } : k));
    const envIds = new Set(env.map((k) => k.id));
    this.merged = [...env, ...this.stored.filter((k) => !envIds.has(k.id))];
  }

  private async current(): Promise<void> {
    if (Date.now() - this.loadedAt > KEY_REFRESH_MS) await this.refresh();
  }

  /** Every key with environment keys marked revoked when the store records a runtime revocation. */
  async all(): Promise<ApiKey[]> {
    await this.current();
    return this.merged;
  }

  /** Whether any key is configured at all (revoked and expired ones included): without one,
   *  protected routes answer 503 auth_not_configured rather than 401. */
  async hasAny(): Promise<boolean> {
    return (await this.all()).length > 0;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.all()).some((k) => k.id === id);
  }

  /** The active, unexpired key whose hash matches; every key is compared, in constant time. */
  async authenticate(raw: string, now = Date.now()): Promise<ApiKey | undefined> {
    const hash = Buffer.from(sha256(raw), 'hex');
    let found: ApiKey | undefined;
    for (const key of await this.all()) {
      if (key.hash.length === hash.length && timingSafeEqual(key.hash, hash) && !found) found = key;
    }
    if (!found || found.status !== 'active') return undefined;
    if (found.expiresAt && Date.parse(found.expiresAt) <= now) return undefined;
    return found;
  }
}
