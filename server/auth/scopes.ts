// Key scopes (Rules API, Authentication). `*` passes every check.

export const SCOPES = ['rules:read', 'sources:read', 'graphs:read', 'calculate:run', 'admin:parity', 'admin:analytics', 'admin:keys', 'compat:external'] as const;
export type Scope = (typeof SCOPES)[number];

export const TRIAL_SCOPES: Scope[] = ['rules:read', 'sources:read', 'graphs:read', 'calculate:run'];

export function hasScope(granted: string[], needed: Scope): boolean {
  return granted.includes('*') || granted.includes(needed);
}
