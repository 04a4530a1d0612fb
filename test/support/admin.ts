import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll } from 'vitest';
import { MemoryStore } from '../../server/store/memory.js';
import { RedisStore } from '../../server/store/redis.js';
import { SqliteStore } from '../../server/store/sqlite.js';
import { type Store, StoreUnavailableError } from '../../server/store/store.js';
import { type RedisServer, startRedis } from './redis.js';
import { ENV_KEYS } from './app.js';

// Shared pieces of the admin and key tests: the three stores every suite runs against, a store
// whose chosen methods fail as if unreachable, and a request helper.

export interface StoreKind {
  name: Store['kind'];
  durable: boolean;
  create(): Promise<Store>;
  /** Another handle on the same data: a second instance, or the same instance restarted. */
  sibling(store: Store): Promise<Store>;
}

let redis: Promise<RedisServer> | undefined;
let prefixes = 0;
/** One redis-server per test file, started on first use; each store gets a prefix of its own. */
const sharedRedis = () => (redis ??= startRedis());
afterAll(async () => {
  if (redis) await (await redis).stop();
});

export const STORE_KINDS: StoreKind[] = [
  { name: 'memory', durable: false, create: async () => new MemoryStore(), sibling: async (store) => store },
  {
    name: 'sqlite',
    durable: true,
    create: async () => SqliteStore.open(path.join(mkdtempSync(path.join(tmpdir(), 'rules-admin-')), 'rules.db')),
    sibling: async (store) => SqliteStore.open((store as SqliteStore).file),
  },
  {
    name: 'redis',
    durable: true,
    create: async () => RedisStore.connect((await sharedRedis()).url, { prefix: `admin-${++prefixes}:` }),
    sibling: async (store) => RedisStore.connect((store as RedisStore).url, { prefix: (store as RedisStore).prefix }),
  },
];

/** Keys beside the harness keys: one per admin scope. */
export const ADMIN_KEYS = { keysOnly: 'test-key-admin-keys-only-00000000000000000001', analyticsOnly: 'test-key-admin-analytics-only-00000000000000000001' };
export const ADMIN_ENV = {
  RULES_API_KEYS: JSON.stringify([
    ...(JSON.parse(ENV_KEYS) as unknown[]),
    { id: 'keys-admin', key: ADMIN_KEYS.keysOnly, scopes: ['admin:keys'] },
    { id: 'analytics-admin', key: ADMIN_KEYS.analyticsOnly, scopes: ['admin:analytics'] },
  ]),
};

/** `store` with the methods named in `failing` rejecting as an unreachable store would. */
export function withOutage(store: Store, failing: Set<string>): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (failing.has(String(prop)) ? Promise.reject(new StoreUnavailableError(`${String(prop)}: store down`)) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The client address (each one has its own failed-auth and trial counters). */
  client?: string;
}

export function caller(app: FastifyInstance) {
  return (method: 'GET' | 'POST', url: string, options: CallOptions = {}): Promise<LightMyRequestResponse> =>
    app.inject({
      method,
      url,
      headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...options.headers },
      ...(options.body === undefined ? {} : { payload: options.body as string | object }),
      ...(options.client ? { remoteAddress: options.client } : {}),
    });
}

/** Seconds from now to the next UTC midnight. */
export function secondsToNextUtcDay(now = Date.now()): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return Math.ceil((next.getTime() - now) / 1000);
}
