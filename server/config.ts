import { hostname } from 'node:os';
import path from 'node:path';
import { DEFAULT_CALCULATE_TIMEOUT_MS } from './calculation.js';
import type { Environment } from './envelope.js';
import { RATE_LIMIT_BOUNDS } from './admin-schemas.js';
import { parseTrustProxy, type TrustProxy } from './proxy-trust.js';
import type { RateLimit } from './store/store.js';

// Daemon configuration: flags win over their environment twins, which win over defaults.
//   --host RULES_HOST · --port RULES_PORT · --data-dir RULES_DATA_DIR · --compiled RULES_COMPILED
//   --root RULES_ROOT (path-list) · --runtime RULES_RUNTIME · --store RULES_STORE · --watch RULES_WATCH
//   --log-level RULES_LOG_LEVEL
// Other settings: RULES_LOG_FORMAT, RULES_ENVIRONMENT, RULES_API_KEYS (raw keys of 32+ characters), RULES_TRUST_PROXY, RULES_CORS_ORIGINS,
// RULES_CALCULATE_TIMEOUT_MS, RULES_JOB_CONCURRENCY, RULES_MAX_PENDING_JOBS_PER_KEY, RULES_TRIAL_DAILY_CAP, RULES_TRIAL_CLIENT_DAILY_CAP,
// RULES_SHUTDOWN_GRACE_MS, RULES_REDIS_URL, RULES_REDIS_PREFIX (with --store redis), RULES_INSTANCE_ID,
// and the connection limits (ConnectionLimits below).

export class ConfigError extends Error {}

export interface EnvironmentKey {
  id: string;
  key?: string;
  key_sha256?: string;
  scopes: string[];
  rate_limit?: RateLimit;
  owner?: string;
  expires_at?: string;
}

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  compiled: string | null;
  roots: string[];
  runtime: 'compiled' | 'fixture';
  store: 'sqlite' | 'memory' | 'redis';
  /** With --store redis: where the shared store is and the key prefix of this deployment. */
  redis: { url: string; prefix: string } | null;
  /** Names this instance in global analytics (and in the job queue). */
  instanceId: string;
  watch: boolean;
  environment: Environment;
  apiKeys: EnvironmentKey[];
  /** The proxies in front whose `x-forwarded-for` entries are believed (server/proxy-trust.ts). */
  trustProxy: TrustProxy;
  connections: ConnectionLimits;
  corsOrigins: string[];
  calculateTimeoutMs: number;
  jobConcurrency: number;
  /** Unfinished jobs one key may have before submissions are refused (429). */
  maxPendingJobsPerKey: number;
  /** How long SIGTERM waits for requests in flight before cutting their connections. */
  shutdownGraceMs: number;
  trialDailyCap: number;
  trialClientDailyCap: number;
  /** Pino level; `info` logs one line per request. */
  logLevel: LogLevel;
  /** `readable` (one short line per record), `json`, or `auto`: readable on a terminal, else JSON. */
  logFormat: 'readable' | 'json' | 'auto';
}

/** How long a client may take and how many connections it may hold (server/connections.ts). */
export interface ConnectionLimits {
  /** The request line and headers arrive within this (RULES_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** The longest pause while a request body is arriving (RULES_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
  /** The whole request, headers and body, arrives within this (RULES_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** An idle connection between two requests is closed after this (RULES_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** Open connections in all (RULES_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Open connections from one client address, proxies apart (RULES_MAX_CONNECTIONS_PER_CLIENT). */
  maxConnectionsPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // longer than the idle timeout of common load balancers (60 s), as Fastify's default, so a
  // balancer never reuses a connection the daemon is closing
  keepAliveTimeoutMs: 72_000,
  maxConnections: 8_192,
  maxConnectionsPerClient: 128,
};

/** Timeouts are at most an hour: a longer one is no protection (and past 2^31 ms Node's timers fire at once). */
const MAX_TIMEOUT_MS = 3_600_000;

function connectionLimits(env: NodeJS.ProcessEnv): ConnectionLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  const limits: ConnectionLimits = {
    headersTimeoutMs: positiveInt('RULES_HEADERS_TIMEOUT_MS', env.RULES_HEADERS_TIMEOUT_MS, d.headersTimeoutMs, MAX_TIMEOUT_MS),
    bodyTimeoutMs: positiveInt('RULES_BODY_TIMEOUT_MS', env.RULES_BODY_TIMEOUT_MS, d.bodyTimeoutMs, MAX_TIMEOUT_MS),
    requestTimeoutMs: positiveInt('RULES_REQUEST_TIMEOUT_MS', env.RULES_REQUEST_TIMEOUT_MS, d.requestTimeoutMs, MAX_TIMEOUT_MS),
    keepAliveTimeoutMs: positiveInt('RULES_KEEP_ALIVE_TIMEOUT_MS', env.RULES_KEEP_ALIVE_TIMEOUT_MS, d.keepAliveTimeoutMs, MAX_TIMEOUT_MS),
    maxConnections: positiveInt('RULES_MAX_CONNECTIONS', env.RULES_MAX_CONNECTIONS, d.maxConnections, 1_000_000),
    maxConnectionsPerClient: positiveInt('RULES_MAX_CONNECTIONS_PER_CLIENT', env.RULES_MAX_CONNECTIONS_PER_CLIENT, d.maxConnectionsPerClient, 1_000_000),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(`RULES_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed RULES_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}): the headers are part of the request`);
  }
  if (limits.maxConnectionsPerClient > limits.maxConnections) {
    throw new ConfigError(`RULES_MAX_CONNECTIONS_PER_CLIENT (${limits.maxConnectionsPerClient}) must not exceed RULES_MAX_CONNECTIONS (${limits.maxConnections})`);
  }
  return limits;
}

function trustProxy(raw: string | undefined): TrustProxy {
  const trust = parseTrustProxy(raw);
  if (typeof trust === 'object' && !Array.isArray(trust)) throw new ConfigError(trust.error);
  return trust;
}

export interface ServeFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  compiled?: string;
  root?: string[];
  runtime?: string;
  store?: string;
  watch?: boolean;
  logLevel?: string;
}

const ENVIRONMENTS: Environment[] = ['local', 'dev', 'staging', 'production'];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** Unfinished jobs one key may have unless RULES_MAX_PENDING_JOBS_PER_KEY says otherwise. */
export const DEFAULT_MAX_PENDING_JOBS_PER_KEY = 10;
export type LogLevel = (typeof LOG_LEVELS)[number];

function positiveInt(name: string, raw: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ConfigError(`${name} must be a whole number between 1 and ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

const flagOn = (raw: string | undefined) => raw === '1' || raw === 'true' || raw === 'yes';

const inBounds = (value: unknown, bounds: { minimum: number; maximum: number }): boolean => Number.isInteger(value) && (value as number) >= bounds.minimum && (value as number) <= bounds.maximum;

/** Operator keys are at least this long: guessable keys are refused at start-up. */
export const MIN_OPERATOR_KEY_LENGTH = 32;

function checkOperatorKey(raw: string, where: string): void {
  if (raw.length < MIN_OPERATOR_KEY_LENGTH) {
    throw new ConfigError(`${where}.key is ${raw.length} characters; operator keys need at least ${MIN_OPERATOR_KEY_LENGTH} (e.g. \`openssl rand -hex 32\`)`);
  }
  // presented keys are trimmed, so a key with surrounding spaces could never be used
  if (raw.trim() !== raw) throw new ConfigError(`${where}.key starts or ends with whitespace, so no request could present it`);
}

export function parseApiKeys(raw: string | undefined): EnvironmentKey[] {
  if (!raw || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('RULES_API_KEYS must be a JSON array of {id, key | key_sha256, scopes, rate_limit?, owner?, expires_at?}');
  }
  if (!Array.isArray(parsed)) throw new ConfigError('RULES_API_KEYS must be a JSON array');
  const ids = new Set<string>();
  return parsed.map((k, i) => {
    const where = `RULES_API_KEYS[${i}]`;
    if (typeof k !== 'object' || k === null) throw new ConfigError(`${where} must be an object`);
    const key = k as Record<string, unknown>;
    if (typeof key.id !== 'string' || !key.id) throw new ConfigError(`${where}.id must be a non-empty string`);
    if (ids.has(key.id)) throw new ConfigError(`${where}.id ${key.id} is used twice`);
    ids.add(key.id);
    if (typeof key.key !== 'string' && !(typeof key.key_sha256 === 'string' && /^[0-9a-f]{64}$/i.test(key.key_sha256))) {
      throw new ConfigError(`${where} needs \`key\` (the raw key) or \`key_sha256\` (64 hex digits)`);
    }
    if (typeof key.key === 'string') checkOperatorKey(key.key, where);
    if (!Array.isArray(key.scopes) || key.scopes.length === 0 || !key.scopes.every((s) => typeof s === 'string')) throw new ConfigError(`${where}.scopes must be a non-empty array of strings`);
    const rl = key.rate_limit as Record<string, unknown> | undefined;
    const { requests, window_seconds } = RATE_LIMIT_BOUNDS;
    if (rl !== undefined && !(typeof rl === 'object' && rl !== null && inBounds(rl.requests, requests) && inBounds(rl.window_seconds, window_seconds))) {
      throw new ConfigError(`${where}.rate_limit must be {requests: ${requests.minimum}-${requests.maximum}, window_seconds: ${window_seconds.minimum}-${window_seconds.maximum}} (whole numbers)`);
    }
    if (key.expires_at !== undefined && (typeof key.expires_at !== 'string' || Number.isNaN(Date.parse(key.expires_at)))) throw new ConfigError(`${where}.expires_at must be a date-time`);
    return {
      id: key.id,
      key: key.key as string | undefined,
      key_sha256: (key.key_sha256 as string | undefined)?.toLowerCase(),
      scopes: key.scopes as string[],
      rate_limit: rl as EnvironmentKey['rate_limit'],
      owner: key.owner as string | undefined,
      expires_at: key.expires_at as string | undefined,
    };
  });
}

export function loadConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const dataDir = path.resolve(flags.dataDir ?? env.RULES_DATA_DIR ?? '.rules');
  const compiled = flags.compiled ?? env.RULES_COMPILED ?? null;
  const rootList = flags.root?.length ? flags.root : env.RULES_ROOT ? env.RULES_ROOT.split(path.delimiter).filter(Boolean) : [];
  const store = oneOf('--store / RULES_STORE', flags.store ?? env.RULES_STORE, ['sqlite', 'memory', 'redis'] as const, 'sqlite');
  return {
    host: flags.host ?? env.RULES_HOST ?? '127.0.0.1',
    port: (flags.port ?? env.RULES_PORT) === undefined ? 8080 : port(flags.port ?? env.RULES_PORT),
    dataDir,
    compiled: compiled ? path.resolve(compiled) : null,
    roots: rootList.map((r) => path.resolve(r)),
    runtime: oneOf('--runtime / RULES_RUNTIME', flags.runtime ?? env.RULES_RUNTIME, ['compiled', 'fixture'] as const, 'compiled'),
    store,
    redis: store === 'redis' ? { url: redisUrl(env.RULES_REDIS_URL), prefix: redisPrefix(env.RULES_REDIS_PREFIX) } : null,
    instanceId: instanceId(env.RULES_INSTANCE_ID),
    watch: flags.watch ?? flagOn(env.RULES_WATCH),
    environment: oneOf('RULES_ENVIRONMENT', env.RULES_ENVIRONMENT, ENVIRONMENTS, 'local'),
    apiKeys: parseApiKeys(env.RULES_API_KEYS),
    trustProxy: trustProxy(env.RULES_TRUST_PROXY),
    connections: connectionLimits(env),
    corsOrigins: (env.RULES_CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    calculateTimeoutMs: positiveInt('RULES_CALCULATE_TIMEOUT_MS', env.RULES_CALCULATE_TIMEOUT_MS, DEFAULT_CALCULATE_TIMEOUT_MS, MAX_TIMEOUT_MS),
    jobConcurrency: positiveInt('RULES_JOB_CONCURRENCY', env.RULES_JOB_CONCURRENCY, 2, 64),
    maxPendingJobsPerKey: positiveInt('RULES_MAX_PENDING_JOBS_PER_KEY', env.RULES_MAX_PENDING_JOBS_PER_KEY, DEFAULT_MAX_PENDING_JOBS_PER_KEY, 10_000),
    shutdownGraceMs: positiveInt('RULES_SHUTDOWN_GRACE_MS', env.RULES_SHUTDOWN_GRACE_MS, 10_000, MAX_TIMEOUT_MS),
    trialDailyCap: positiveInt('RULES_TRIAL_DAILY_CAP', env.RULES_TRIAL_DAILY_CAP, 1000),
    trialClientDailyCap: positiveInt('RULES_TRIAL_CLIENT_DAILY_CAP', env.RULES_TRIAL_CLIENT_DAILY_CAP, 5),
    logLevel: oneOf('--log-level / RULES_LOG_LEVEL', flags.logLevel ?? env.RULES_LOG_LEVEL, LOG_LEVELS, 'info'),
    logFormat: oneOf('RULES_LOG_FORMAT', env.RULES_LOG_FORMAT, ['readable', 'json', 'auto'] as const, 'auto'),
  };
}

function port(raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`--port / RULES_PORT must be a port number (0-65535), got ${JSON.stringify(raw)}`);
  return n;
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Settings given in the environment that the chosen store does not use (to be reported). */
export function ignoredSettings(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  return config.store === 'redis' ? [] : ['RULES_REDIS_URL', 'RULES_REDIS_PREFIX'].filter((name) => env[name] !== undefined && env[name] !== '');
}

function redisUrl(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_REDIS_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('RULES_REDIS_URL must be a URL such as redis://[user:password@]host:6379[/db] or rediss://… (TLS)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`RULES_REDIS_URL must start with redis:// or rediss:// (TLS), got ${url.protocol}//`);
  return raw;
}

function redisPrefix(raw: string | undefined): string {
  if (raw === undefined) return 'rules:';
  if (!/^[\x21-\x7e]{1,64}$/.test(raw)) throw new ConfigError(`RULES_REDIS_PREFIX must be 1-64 visible ASCII characters (e.g. rules:), got ${JSON.stringify(raw)}`);
  return raw;
}

function instanceId(raw: string | undefined): string {
  if (raw === undefined || raw === '') return `${hostname()}-${process.pid}`;
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(raw)) throw new ConfigError(`RULES_INSTANCE_ID must be 1-100 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-', got ${JSON.stringify(raw)}`);
  return raw;
}
