// Adapter configuration, read once at start from the environment (Rules API, "Companion stdio
// tool adapter"). An empty variable counts as unset, as shells and CI templates often export them empty.

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface AdapterConfig {
  /** API origin without trailing slashes; request paths (`/v1/...`) are appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; without one, protected tools answer 401. */
  apiKey?: string;
  /** Per-request timeout. */
  timeoutMs: number;
}

/** A setting the adapter cannot start with; the CLI reports it on stderr and exits 2. */
export class AdapterConfigError extends Error {}

export function readAdapterConfig(env: NodeJS.ProcessEnv): AdapterConfig {
  const setting = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  return {
    baseUrl: parseBaseUrl(setting('SERVICE_API_BASE_URL') ?? DEFAULT_BASE_URL),
    apiKey: setting('SERVICE_API_KEY'),
    timeoutMs: parseTimeout(setting('SERVICE_API_TIMEOUT_MS')),
  };
}

function parseBaseUrl(raw: string): string {
  const baseUrl = raw.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new AdapterConfigError(`SERVICE_API_BASE_URL must be an http(s) URL such as ${DEFAULT_BASE_URL}, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AdapterConfigError(`SERVICE_API_BASE_URL must use http or https, got "${raw}"`);
  }
  return baseUrl;
}

function parseTimeout(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TIMEOUT_MS;
  const timeoutMs = Number(raw);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new AdapterConfigError(`SERVICE_API_TIMEOUT_MS must be a positive number of milliseconds (default ${DEFAULT_TIMEOUT_MS}), got "${raw}"`);
  }
  return timeoutMs;
}
