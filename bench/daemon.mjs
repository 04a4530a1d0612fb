// A real `rules serve` for the benchmarks that load one over HTTP: started on a free port with a
// bench key whose rate limit lets every request through, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const project = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_KEY = 'bench-key-0123456789abcdef0123456789';
export const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };

/** The output of `child` until `pattern` matches it (its first group), or the exit. */
export function waitFor(child, stream, pattern, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    stream.on('data', (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited ${code}: ${out}`)));
  });
}

/** `rules serve` with its data in `dataDir` and these extra arguments and environment; resolves to {url, daemon}. */
export async function startDaemon(dataDir, serveArgs, env = {}) {
  const daemon = spawn(process.execPath, [`${project}bin/rules.js`, 'serve', '--port', '0', '--data-dir', dataDir, ...serveArgs], {
    env: { ...process.env, RULES_LOG_LEVEL: 'warn', RULES_API_KEYS: JSON.stringify([{ id: 'bench', key: BENCH_KEY, scopes: ['*'], rate_limit: { requests: 100000000, window_seconds: 60 } }]), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await waitFor(daemon, daemon.stderr, /listening on (http:\/\/\S+)/, 'rules serve');
  return { url, daemon };
}

/** SIGTERM, and wait until the daemon has stopped. */
export function stop(daemon) {
  const exited = new Promise((resolve) => daemon.once('exit', resolve));
  daemon.kill('SIGTERM');
  return exited;
}

/** A running process's peak resident memory in MiB (Linux's VmHWM), or null where /proc does not say. */
export function peakRssMib(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}
