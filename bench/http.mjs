// npm run bench:http — a real daemon on loopback under autocannon, in one run:
// GET /v1/health, POST /v1/search, POST /v1/calculate (a bundled state SNAP sample) and a
// 25-entry batch. Records requests/s and p50/p99 latency in bench/results/http.json.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const project = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const key = 'bench-key-0123456789abcdef0123456789';
const data = mkdtempSync(path.join(tmpdir(), 'rules-bench-http-'));

const daemon = spawn(process.execPath, [`${project}bin/rules.js`, 'serve', '--port', '0', '--store', 'memory', '--data-dir', data], {
  env: { ...process.env, RULES_LOG_LEVEL: 'warn', RULES_API_KEYS: JSON.stringify([{ id: 'bench', key, scopes: ['*'], rate_limit: { requests: 100000000, window_seconds: 60 } }]) },
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((resolve, reject) => {
  let err = '';
  daemon.stderr.on('data', (chunk) => {
    err += chunk;
    const m = /listening on (http:\/\/\S+)/.exec(err);
    if (m) resolve(m[1]);
  });
  daemon.once('exit', (code) => reject(new Error(`daemon exited ${code}: ${err}`)));
});

const headers = { 'x-api-key': key, 'content-type': 'application/json' };
const caps = await (await fetch(`${url}/v1/capabilities`, { headers })).json();
const sample = caps.data.runtime.sample_requests.find((s) => s.jurisdiction === 'us-co')?.sample_request ?? caps.data.runtime.sample_requests[0].sample_request;

const scenarios = [
  { name: 'GET /v1/health', method: 'GET', path: '/v1/health' },
  { name: 'POST /v1/search', method: 'POST', path: '/v1/search', body: { query: 'snap allotment', limit: 20 } },
  { name: `POST /v1/calculate (${sample.jurisdiction}/${sample.program_id} sample)`, method: 'POST', path: '/v1/calculate', body: sample },
  { name: 'POST /v1/calculate/batch (25 entries)', method: 'POST', path: '/v1/calculate/batch', body: { requests: Array.from({ length: 25 }, () => sample) } },
];

const results = [];
for (const s of scenarios) {
  const r = await autocannon({ url: `${url}${s.path}`, method: s.method, headers, body: s.body ? JSON.stringify(s.body) : undefined, connections: 10, duration });
  const row = { scenario: s.name, requests_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, non_2xx: r.non2xx, errors: r.errors };
  results.push(row);
  console.log(`${s.name}: ${row.requests_per_s} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms${row.non_2xx ? `, ${row.non_2xx} non-2xx` : ''}`);
}
daemon.kill('SIGTERM');
rmSync(data, { recursive: true, force: true });

const health = results[0].requests_per_s;
const calc = results[2].requests_per_s;
const report = {
  benchmark: 'http',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  load: { tool: 'autocannon', connections: 10, duration_s: duration, daemon: 'rules serve --store memory (one process)' },
  results,
  calculate_to_health_ratio: +(calc / health).toFixed(2),
};
mkdirSync(`${project}bench/results`, { recursive: true });
writeFileSync(`${project}bench/results/http.json`, JSON.stringify(report, null, 2) + '\n');
console.log(`calculate / health throughput: ${report.calculate_to_health_ratio} (target ≥ 0.5) → bench/results/http.json`);
