// npm run bench:http — a real daemon on loopback under autocannon, in one run:
// GET /v1/health, an authenticated GET /v1/programs, POST /v1/search, POST /v1/calculate (a
// bundled state SNAP sample), a 25-entry batch, and GET /v1/health again while 50-entry jobs and
// batches run. Records requests/s and p50/p99 latency in bench/results/http.json, with the
// issue-15 targets: calculate ≥ 0.6 of the authenticated read, a batch ≥ 50,000 calculations/s,
// health p99 < 5 ms under the job and batch load. Then the transport floor (bench/bare-http.mjs):
// the read, the calculation and the batch against a bare node:http server answering with the
// daemon's own response bytes, what loopback HTTP and the load generator allow on this machine.
// npm run bench:http -- --store redis — calculate and an authenticated read (GET /v1/programs)
// on a SQLite daemon, then on Redis daemons (redis-servers started here on free ports, the
// append-only file fsynced every second, then on every write), in one run:
// bench/results/http-stores.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { headers, startDaemon as startBenchDaemon, stop, waitFor } from './daemon.mjs';
import { writeResult } from './results.mjs';

const duration = Number(process.env.BENCH_SECONDS ?? 10);
const args = process.argv.slice(2);
const compareStores = args[0] === '--store' && args[1] === 'redis';
if (args.length && !compareStores) {
  console.error('usage: node bench/http.mjs [--store redis]');
  process.exit(2);
}
const temporary = [];
const tempDir = (label) => {
  const dir = mkdtempSync(path.join(tmpdir(), `rules-bench-${label}-`));
  temporary.push(dir);
  return dir;
};

/** `rules serve` with these extra arguments and environment; resolves to {url, daemon}. */
const startDaemon = (serveArgs, env = {}) => startBenchDaemon(tempDir('http'), serveArgs, env);

/** A redis-server on a free port in a temporary folder, with the append-only file fsynced as `fsync` says. */
async function startRedis(fsync) {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', fsync, '--dir', tempDir('redis')], { stdio: ['ignore', 'pipe', 'inherit'] });
  await waitFor(server, server.stdout, /(Ready to accept connections)/, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, server };
}


async function measure(url, s) {
  const r = await autocannon({ url: `${url}${s.path}`, method: s.method, headers, body: s.body ? JSON.stringify(s.body) : undefined, connections: 10, duration });
  return { scenario: s.name, requests_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, non_2xx: r.non2xx, errors: r.errors };
}

const print = (prefix, row) => console.log(`${prefix}${row.scenario}: ${row.requests_per_s} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms${row.non_2xx ? `, ${row.non_2xx} non-2xx` : ''}`);
const machine = { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version };

if (compareStores) {
  const servers = [];
  const runs = [];
  try {
    const daemons = [['sqlite', [], {}]];
    for (const fsync of ['everysec', 'always']) {
      const redis = await startRedis(fsync);
      servers.push(redis.server);
      daemons.push([`redis (appendfsync ${fsync})`, ['--store', 'redis'], { RULES_REDIS_URL: redis.url, RULES_REDIS_PREFIX: 'bench:' }]);
    }
    for (const [store, serveArgs, env] of daemons) {
      const { url, daemon } = await startDaemon(serveArgs.length ? serveArgs : ['--store', store], env);
      try {
        const sample = await calculateSample(url);
        for (const s of [
          { name: 'GET /v1/programs (authenticated read)', method: 'GET', path: '/v1/programs' },
          { name: `POST /v1/calculate (${sample.jurisdiction}/${sample.program_id} sample)`, method: 'POST', path: '/v1/calculate', body: sample },
        ]) {
          const row = { store, ...(await measure(url, s)) };
          runs.push(row);
          print(`[${store}] `, row);
        }
      } finally {
        await stop(daemon);
      }
    }
  } finally {
    for (const server of servers) server.kill('SIGKILL');
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  }
  const sqlite = (scenario) => runs.find((r) => r.store === 'sqlite' && r.scenario === scenario).requests_per_s;
  const report = {
    benchmark: 'http-stores',
    recorded_at: new Date().toISOString(),
    machine,
    load: { tool: 'autocannon', connections: 10, duration_s: duration, daemon: 'rules serve --store sqlite (synchronous=FULL, counter hits NORMAL), then rules serve --store redis on a redis-server with appendfsync everysec, then always (one process each, on this machine)' },
    results: runs,
    to_sqlite: runs.filter((r) => r.store !== 'sqlite').map((r) => ({ store: r.store, scenario: r.scenario, ratio: +(r.requests_per_s / sqlite(r.scenario)).toFixed(2) })),
  };
  const file = writeResult('http-stores', report);
  for (const r of report.to_sqlite) console.log(`${r.store} / sqlite, ${r.scenario}: ${r.ratio}`);
  console.log(`→ ${file}`);
  process.exit(0);
}

/** The co-snap sample request the daemon advertises (else its first). */
async function calculateSample(url) {
  const caps = await (await fetch(`${url}/v1/capabilities`, { headers })).json();
  return caps.data.runtime.sample_requests.find((s) => s.jurisdiction === 'us-co')?.sample_request ?? caps.data.runtime.sample_requests[0].sample_request;
}

const { url, daemon } = await startDaemon(['--store', 'memory']);
const sample = await calculateSample(url);

const scenarios = [
  { name: 'GET /v1/health', method: 'GET', path: '/v1/health' },
  { name: 'GET /v1/programs (authenticated read)', method: 'GET', path: '/v1/programs' },
  { name: 'POST /v1/search', method: 'POST', path: '/v1/search', body: { query: 'snap allotment', limit: 20 } },
  { name: `POST /v1/calculate (${sample.jurisdiction}/${sample.program_id} sample)`, method: 'POST', path: '/v1/calculate', body: sample },
  { name: 'POST /v1/calculate/batch (25 entries)', method: 'POST', path: '/v1/calculate/batch', body: { requests: Array.from({ length: 25 }, () => sample) } },
];

const results = [];
for (const s of scenarios) {
  const row = await measure(url, s);
  results.push(row);
  print('', row);
}

/** Health measured while 50-entry jobs are submitted every 250 ms and batches run on 2 connections. */
async function healthUnderLoad() {
  let submitting = true;
  let jobs = 0;
  const submitter = (async () => {
    while (submitting) {
      const res = await fetch(`${url}/v1/jobs/calculate`, { method: 'POST', headers, body: JSON.stringify({ requests: Array.from({ length: 50 }, () => sample) }) });
      if (res.status === 202) jobs++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const batches = autocannon({ url: `${url}/v1/calculate/batch`, method: 'POST', headers, body: JSON.stringify({ requests: Array.from({ length: 25 }, () => sample) }), connections: 2, duration });
  const health = await measure(url, { name: 'GET /v1/health while 50-entry jobs and batches run', method: 'GET', path: '/v1/health' });
  const batch = await batches;
  submitting = false;
  await submitter;
  return { ...health, background: { jobs_submitted: jobs, batch_requests_per_s: Math.round(batch.requests.average) } };
}
const underLoad = await healthUnderLoad();
results.push(underLoad);
print('', underLoad);

/** The read, the calculation and the batch against bench/bare-http.mjs serving the daemon's answers to them. */
async function transportFloor() {
  const measured = scenarios.filter((s) => s.path !== '/v1/health' && s.path !== '/v1/search');
  const bodies = {};
  for (const s of measured) {
    const res = await fetch(`${url}${s.path}`, { method: s.method, headers, body: s.body ? JSON.stringify(s.body) : undefined });
    if (!res.ok) throw new Error(`${s.name}: ${res.status}`);
    bodies[s.path] = Buffer.from(await res.arrayBuffer()).toString('base64');
  }
  const file = path.join(tempDir('floor'), 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const server = spawn(process.execPath, [fileURLToPath(new URL('bare-http.mjs', import.meta.url)), file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const bare = await waitFor(server, server.stderr, /listening on (http:\/\/\S+)/, 'bench/bare-http.mjs');
  const rows = [];
  try {
    for (const s of measured) {
      const row = { ...(await measure(bare, { ...s, name: `floor: ${s.name}` })), response_bytes: Buffer.from(bodies[s.path], 'base64').length };
      rows.push(row);
      print('', row);
    }
  } finally {
    await stop(server);
  }
  return rows;
}
const floor = await transportFloor();
await stop(daemon);
for (const dir of temporary) rmSync(dir, { recursive: true, force: true });

const rate = (prefix, rows = results) => rows.find((r) => r.scenario.startsWith(prefix)).requests_per_s;
const targets = {
  calculate_to_authenticated_read: { value: +(rate('POST /v1/calculate (') / rate('GET /v1/programs')).toFixed(2), target: '>= 0.6', floor: +(rate('floor: POST /v1/calculate (', floor) / rate('floor: GET /v1/programs', floor)).toFixed(2) },
  batch_calculations_per_s: { value: rate('POST /v1/calculate/batch') * 25, target: '>= 50000', floor: rate('floor: POST /v1/calculate/batch', floor) * 25 },
  health_p99_ms_under_job_and_batch_load: { value: underLoad.p99_ms, target: '< 5' },
};
const report = {
  benchmark: 'http',
  recorded_at: new Date().toISOString(),
  machine,
  load: { tool: 'autocannon', connections: 10, duration_s: duration, daemon: 'rules serve --store memory (one process); the load generator shares the machine' },
  results,
  floor: { server: 'bench/bare-http.mjs: node:http in its own process answering each request with the bytes the daemon answered it with, after reading its body', results: floor },
  targets,
};
const file = writeResult('http', report);
for (const [name, t] of Object.entries(targets)) console.log(`${name}: ${t.value} (target ${t.target}${t.floor === undefined ? '' : `; bare transport ${t.floor}`})`);
console.log(`→ ${file}`);
