import type { FastifyRequest } from 'fastify';
import type { AuditEntry, Store } from '../store/store.js';

// The audit trail: who did what to which key or switch, appended as it happens.

/** Who did something, for the audit trail. */
export interface AuditOrigin {
  actor: string | null;
  client: string | null;
  request_id: string;
}

export const originOf = (request: FastifyRequest): AuditOrigin => ({ actor: request.apiKey?.id ?? null, client: request.ip ?? null, request_id: String(request.id) });

/** Append to the audit trail (AuditEntry), now. */
export async function audit(store: Store, origin: AuditOrigin, action: string, target: string, detail?: Record<string, unknown>): Promise<void> {
  const entry: AuditEntry = { at: new Date().toISOString(), action, target, ...origin, ...(detail ? { detail } : {}) };
  await store.addAudit(entry);
}
