import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, PROJECT } from '../paths.js';

// A real `rules serve` process (memory store, a free port) with an admin:analytics key and a
// rules:read key; it needs the built CLI (dist/), which the global setup builds.

export const OPS_KEY = 'pages-test-ops-key-0001';
export const READER_KEY = 'pages-test-reader-key-0001';

export interface RunningDaemon {
  url: string;
  stop(): Promise<void>;
}

export async function startDaemon(): Promise<RunningDaemon> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-pages-'));
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--store', 'memory', '--port', '0', '--data-dir', dataDir], {
    cwd: PROJECT,
    env: {
      ...process.env,
      RULES_LOG_LEVEL: 'warn',
      RULES_API_KEYS: JSON.stringify([
        { id: 'ops', key: OPS_KEY, scopes: ['admin:analytics'] },
        { id: 'reader', key: READER_KEY, scopes: ['rules:read'] },
      ]),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rules serve did not start within 90 s:\n${stderr}`)), 90_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const m = /rules serve: listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rules serve exited with ${code}:\n${stderr}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
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
