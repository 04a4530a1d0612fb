import { rmSync } from 'node:fs';
import { serve } from '../../support/daemon.js';

// A real `rules serve` process (memory store, a free port) with an admin:analytics key and a
// rules:read key; it needs the built CLI (dist/), which the global setup builds.

export const OPS_KEY = 'pages-test-ops-key-00000000000000000001';
export const READER_KEY = 'pages-test-reader-key-00000000000000000001';

export interface RunningDaemon {
  url: string;
  stop(): Promise<void>;
}

export async function startDaemon(): Promise<RunningDaemon> {
  const served = await serve({
    args: ['--store', 'memory'],
    keys: [
      { id: 'ops', key: OPS_KEY, scopes: ['admin:analytics'] },
      { id: 'reader', key: READER_KEY, scopes: ['rules:read'] },
    ],
  });
  return {
    url: served.url,
    async stop() {
      await served.stop();
      rmSync(served.dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON call to the daemon with a key; resolves to the status and parsed body. */
export async function call(url: string, key: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': key, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json() };
}
