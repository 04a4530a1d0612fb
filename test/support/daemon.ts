import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { CLI, PROJECT } from './paths.js';

// `rules serve` as a user starts it (the built CLI, a free port), for every test that needs a
// real daemon. Resolves once the start-up banner is complete.

export interface ServeOptions {
  /** Extra `rules serve` arguments; `--port 0` and `--data-dir` are added unless given. */
  args?: string[];
  /** Environment on top of the test process's, with every RULES_* setting of the test process removed. */
  env?: Record<string, string>;
  /** Environment keys (RULES_API_KEYS). */
  keys?: { id: string; key: string; scopes: string[]; rate_limit?: { requests: number; window_seconds: number } }[];
  dataDir?: string;
  timeoutMs?: number;
}

export interface Served {
  url: string;
  dataDir: string;
  process: ResultPromise;
  /** Everything the daemon wrote so far (stderr, then stdout logs, as they came). */
  output(): string;
  /** Send a signal (SIGTERM by default) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
}

/** The test process environment without any RULES_* setting (quiet logs, no colour), plus `env`. */
export function cleanEnv(env: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('RULES_') && v !== undefined)) as Record<string, string>;
  return { ...base, RULES_LOG_LEVEL: 'warn', NO_COLOR: '1', ...env };
}

export async function serve(options: ServeOptions = {}): Promise<Served> {
  const env = cleanEnv({ ...(options.keys ? { RULES_API_KEYS: JSON.stringify(options.keys) } : {}), ...options.env });
  const args = [...(options.args ?? [])];
  // a free port and a fresh data dir, unless the flag or its environment twin says otherwise
  if (!args.includes('--port') && !env.RULES_PORT) args.push('--port', '0');
  const given = args.includes('--data-dir') ? args[args.indexOf('--data-dir') + 1] : env.RULES_DATA_DIR;
  const dataDir = given ?? options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'rules-daemon-'));
  if (!given) args.push('--data-dir', dataDir);
  // a stop is the daemon's own (execa's default SIGKILL 5 s after a signal would hide a slow stop
  // on a loaded machine as a crash); a stop that hangs still fails, at 20 s
  const child = execa(process.execPath, [CLI, 'serve', ...args], { cwd: PROJECT, env, extendEnv: false, reject: false, all: true, forceKillAfterDelay: 20_000 });
  let output = '';
  child.all!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let exited = false;
  void child.then(() => (exited = true));
  const url = await new Promise<string>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 90_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`rules serve did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      // the banner's last line: everything before it has been printed
      const listening = /rules serve: listening on (http:\/\/\S+)/.exec(output);
      if (listening && /rules serve: API reference: /.test(output)) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    child.all!.on('data', check);
    void child.then(() => {
      clearTimeout(timer);
      reject(new Error(`rules serve exited before listening:\n${output}`));
    });
  });
  return {
    url,
    dataDir,
    process: child,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exited) child.kill(signal);
      return (await child).exitCode;
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP request to a served daemon, with `key` as x-api-key and `body` as JSON. */
export async function request(served: Served, method: string, url: string, options: { key?: string; body?: unknown } = {}): Promise<Answer> {
  const res = await fetch(`${served.url}${url}`, {
    method,
    headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
