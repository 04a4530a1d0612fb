import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SourceTree } from '../../compiler/2-resolve/source-tree.js';
import { writeOutputTree } from '../../compiler/5-emit/output-tree.js';
import { Workspace } from '../../compiler/workspace.js';
import { Analytics } from '../../server/analytics.js';
import { buildApp } from '../../server/app.js';
import { KeyRegistry } from '../../server/auth/keys.js';
import { loadConfig, type ServerConfig } from '../../server/config.js';
import type { ServerContext } from '../../server/context.js';
import { afterAll } from 'vitest';
import { Catalog, type RuntimeMode } from '../../server/catalog/catalog.js';
import { jobQueueFor } from '../../server/start.js';
import { MemoryStore } from '../../server/store/memory.js';
import { RedisStore } from '../../server/store/redis.js';
import { SqliteStore } from '../../server/store/sqlite.js';
import type { Store } from '../../server/store/store.js';
import { PROJECT } from './paths.js';
import { type RedisServer, startRedis } from './redis.js';

// An app over the bundled encodings, driven with app.inject (no socket).

export const KEYS = {
  all: 'test-key-all-scopes-00000000000000000001',
  read: 'test-key-rules-read-00000000000000000001',
  calc: 'test-key-calculate-00000000000000000001',
  admin: 'test-key-admin-00000000000000000001',
  limited: 'test-key-limited-00000000000000000001',
  expired: 'test-key-expired-00000000000000000001',
};

export const ENV_KEYS = JSON.stringify([
  { id: 'all', key: KEYS.all, scopes: ['*'] },
  { id: 'reader', key: KEYS.read, scopes: ['rules:read'] },
  { id: 'calc', key: KEYS.calc, scopes: ['calculate:run', 'rules:read'] },
  { id: 'admin', key: KEYS.admin, scopes: ['admin:keys', 'admin:analytics', 'admin:parity'] },
  { id: 'limited', key: KEYS.limited, scopes: ['*'], rate_limit: { requests: 3, window_seconds: 60 } },
  { id: 'expired', key: KEYS.expired, scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' },
]);

let compiled: string | undefined;

/** The bundled encodings compiled once per test file. */
export function bundledOutput(): string {
  if (!compiled) {
    compiled = path.join(mkdtempSync(path.join(tmpdir(), 'rules-server-')), 'compiled');
    const ws = new Workspace([path.join(PROJECT, 'rulespec')], [path.join(PROJECT, 'rulespec', 'programs')]);
    writeOutputTree(compiled, ws.build(), { durationMs: 0 }, { fullSweep: true });
  }
  return compiled;
}

export interface TestApp {
  app: FastifyInstance;
  ctx: ServerContext;
  store: Store;
}

export interface TestAppOptions {
  mode?: RuntimeMode;
  store?: Store;
  config?: Partial<ServerConfig>;
  /** Serve this compiled output tree instead of the bundled encodings. */
  compiled?: string;
  /** The encoding tree for composed graphs; null for "not configured" (default: the bundled encodings). */
  tree?: SourceTree | null;
}

let redis: Promise<RedisServer> | undefined;
let stores = 0;
afterAll(async () => {
  if (redis) await (await redis).stop();
});

/**
 * The store of an app whose test names none: memory, or the kind RULES_TEST_STORE names
 * (`sqlite`, `redis`: one redis-server per test file), so the API suites run on every store.
 */
async function defaultStore(): Promise<Store> {
  const kind = process.env.RULES_TEST_STORE ?? 'memory';
  if (kind === 'memory') return new MemoryStore();
  if (kind === 'sqlite') return SqliteStore.open(path.join(mkdtempSync(path.join(tmpdir(), 'rules-api-')), 'rules.db'));
  if (kind === 'redis') return RedisStore.connect((await (redis ??= startRedis())).url, { prefix: `api-${++stores}:` });
  throw new Error(`RULES_TEST_STORE must be memory, sqlite or redis, got ${kind}`);
}

export async function testApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const config = { ...loadConfig({ store: 'memory' }, { RULES_API_KEYS: ENV_KEYS, ...env }), ...options.config };
  const store = options.store ?? (await defaultStore());
  const catalog = Catalog.load(options.compiled ?? bundledOutput(), options.mode ?? 'compiled');
  const keys = new KeyRegistry(config.apiKeys, store);
  await keys.refresh();
  const analytics = new Analytics('test');
  const jobs = jobQueueFor(store, config, { catalog: () => catalog, instanceId: 'test', analytics });
  const tree = options.tree === undefined ? new SourceTree([path.join(PROJECT, 'rulespec')]) : options.tree;
  const ctx: ServerContext = { config, store, keys, catalog: () => catalog, tree: () => tree, jobs, analytics, instanceId: 'test', startedAt: new Date() };
  await jobs.resume();
  const app = buildApp(ctx);
  app.addHook('onClose', async () => {
    await jobs.stop();
    if (!options.store) await store.close(); // the harness opened it
  });
  await app.ready();
  return { app, ctx, store };
}

export const auth = (key: string) => ({ 'x-api-key': key });
