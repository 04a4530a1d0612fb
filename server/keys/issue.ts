import { type ApiKey, type KeyRegistry, keyPrefix, newRawKey, sha256 } from '../auth/keys.js';
import { ApiError } from '../errors.js';
import type { RateLimit, Store, StoredKey } from '../store/store.js';
import { audit, type AuditOrigin } from './audit.js';

// Issuing, revoking and describing operator keys, shared by the admin routes and the `rules keys`
// CLI. Only the sha256 of a key is stored; the raw key leaves the process once, in the answer.

const REVOCATION_WINDOW = 'at once where it was revoked and within 30 s on every running instance';

export interface IssueKeyRequest {
  id: string;
  scopes: string[];
  owner?: string;
  note?: string;
  expires_at?: string;
  rate_limit?: RateLimit;
}

/** Said with every issuance and revocation by a store that forgets keys on restart. */
export const memoryCaveat = (store: Store) => (store.durable ? '' : ` This server keeps keys in per-instance ${store.kind} storage: the key is lost when it restarts.`);

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
