import type { SourceTree } from '../compiler/2-resolve/source-tree.js';
import type { KeyRegistry } from './auth/keys.js';
import type { ServerConfig } from './config.js';
import type { Analytics } from './analytics.js';
import type { JobQueue } from './jobs.js';
import type { Catalog } from './catalog/catalog.js';
import type { Store } from './store/store.js';

// Everything a route handler can reach. The catalogue is read through a function because hot
// reload swaps it; a handler reads it once and keeps that version for the whole request.

export interface ServerContext {
  config: ServerConfig;
  store: Store;
  keys: KeyRegistry;
  catalog(): Catalog;
  /** The live encoding tree for graphs composed on demand; null when none is configured. */
  tree(): SourceTree | null;
  jobs: JobQueue;
  analytics: Analytics;
  instanceId: string;
  startedAt: Date;
}
