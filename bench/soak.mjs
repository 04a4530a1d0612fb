// npm run bench:soak — a real daemon (`rules serve`, SQLite store) under mixed traffic for
// BENCH_SOAK_SECONDS (default 600): reads (programs, capabilities, a package, search, a rule),
// calculations, 25-entry batches, 10-entry jobs submitted and polled, keys issued, used, revoked
// and refused, and failed authentications (each from its own forwarded address, so the
// failed-auth throttle of one client does not end the run). Records the requests served, the
// answers by status and those that were not the expected one, p50/p99 latency per kind, and the
// daemon's resident memory sampled every second: the median of the first 30 s after the warm-up
// (BENCH_SOAK_WARMUP_SECONDS, default 60) against the median of the last 30 s. Memory may grow at
// most 10 % after the warm-up; a run long enough to judge (5 minutes or more) that grows more
// exits 1. Results in bench/results/soak.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './results.mjs';

const project = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const warmup = Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? Math.min(60, seconds / 5));
const clients = 8;
const GROWTH_BOUND = 0.1;
const JUDGED_FROM_S = 300;
const admin = 'soak-operator-key-0123456789abcdef0123';
const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-bench-soak-'));

const daemon = spawn(process.execPath, [`${project}bin/rules.js`, 'serve', '--port', '0', '--store', 'sqlite', '--data-dir', dataDir], {
  env: {
    ...process.env,
    RULES_LOG_LEVEL: 'warn',
    RULES_TRUST_PROXY: '1',
    RULES_API_KEYS: JSON.stringify([{ id: 'soak-operator', key: admin, scopes: ['*'], rate_limit: { requests: 1_000_000, window_seconds: 60 } }]),
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let daemonErr = '';
const base = await new Promise((resolve, reject) => {
  daemon.stderr.on('data', (chunk) => {
    daemonErr += chunk;
    const m = /listening on (http:\/\/\S+)/.exec(daemonErr);
    if (m) resolve(m[1]);
  });
  daemon.once('exit', (code) => reject(new Error(`rules serve exited ${code}: ${daemonErr}`)));
});

/** The daemon's resident set in bytes (Linux /proc, else ps). */
function rss() {
  const status = `/proc/${daemon.pid}/status`;
  if (existsSync(status)) return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))[1]) * 1024;
  return 0;
}

const json = { 'content-type': 'application/json' };
const as = (key) => ({ 'x-api-key': key });
async function send(method, url, key, body, extra = {}) {
  const started = performance.now();
  const res = await fetch(`${base}${url}`, { method, headers: { ...(key ? as(key) : {}), ...(body ? json : {}), ...extra }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, body: text ? JSON.parse(text) : undefined };
}

const caps = (await send('GET', '/v1/capabilities', admin)).body.data;
const samples = caps.runtime.sample_requests.map((s) => s.sample_request);
const ruleId = (await send('POST', '/v1/search', admin, { query: 'snap allotment', limit: 1 })).body.data.results[0].id;

/** A sample household with one income changed, so calculations are not all the same. */
function calculation(i) {
  const sample = samples[i % samples.length];
  const household = structuredClone(sample.household);
  const main = Object.values(household.entities ?? {})[0];
  const facts = main && Object.values(main)[0];
  if (facts && 'snap_earned_income' in facts) facts.snap_earned_income = (i * 37) % 4000;
  return { ...sample, household };
}

const stats = { served: 0, byStatus: {}, unexpected: {}, latencies: {}, jobs: { submitted: 0, finished: 0 }, keys: { issued: 0, revoked: 0 } };
const pendingJobs = [];
let n = 0;

function record(kind, res, expected) {
  stats.served++;
  stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
  (stats.latencies[kind] ??= []).push(res.ms);
  if (!expected.includes(res.status)) stats.unexpected[`${kind} ${res.status}`] = (stats.unexpected[`${kind} ${res.status}`] ?? 0) + 1;
  return res;
}

/** A client address of its own for step `i` (behind the trusted proxy), so failed authentications
 *  spread over many clients, as they do in life, and none reaches the throttle. */
const clientAddress = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** One step of traffic, chosen by weight. */
const ACTIONS = [
  [20, 'read', async () => {
    const urls = ['/v1/programs', '/v1/capabilities', '/v1/runtime/packages/us-co/co-snap', `/v1/rules/${ruleId.replace('#', '%23')}`];
    record('read', await send('GET', urls[n % urls.length], admin), [200]);
  }],
  [6, 'search', async () => record('search', await send('POST', '/v1/search', admin, { query: ['snap income', 'allotment', 'shelter deduction', 'utility'][n % 4], limit: 10 }), [200])],
  [20, 'calculate', async () => record('calculate', await send('POST', '/v1/calculate', admin, calculation(n)), [200])],
  [3, 'batch', async () => record('batch', await send('POST', '/v1/calculate/batch', admin, { requests: Array.from({ length: 25 }, (_, i) => calculation(n + i)) }), [200])],
  [1, 'job submit', async () => {
    const res = record('job submit', await send('POST', '/v1/jobs/calculate', admin, { requests: Array.from({ length: 10 }, (_, i) => calculation(n + i)) }), [202]);
    if (res.status === 202) {
      stats.jobs.submitted++;
      pendingJobs.push(res.body.data.job_id);
    }
  }],
  [3, 'job poll', async () => {
    const id = pendingJobs.shift();
    if (!id) return;
    const res = record('job poll', await send('GET', `/v1/jobs/${encodeURIComponent(id)}`, admin), [200]);
    if (['succeeded', 'failed'].includes(res.body?.data?.status)) stats.jobs.finished++;
    else pendingJobs.push(id);
  }],
  [1, 'key lifecycle', async () => {
    const issued = record('key issue', await send('POST', '/v1/admin/keys', admin, { id: `soak-${n}`, scopes: ['rules:read'], owner: 'soak' }), [201]);
    if (issued.status !== 201) return;
    stats.keys.issued++;
    const { key, entry: { id } } = issued.body.data;
    // the key's holder is a client of its own (its refusal after the revocation is a failed authentication)
    const holder = { 'x-forwarded-for': clientAddress(n) };
    record('read (issued key)', await send('GET', '/v1/programs', key, undefined, holder), [200]);
    const revoked = record('key revoke', await send('POST', `/v1/admin/keys/${encodeURIComponent(id)}/revoke`, admin), [200]);
    if (revoked.status === 200) stats.keys.revoked++;
    record('read (revoked key)', await send('GET', '/v1/programs', key, undefined, holder), [401]);
  }],
  [4, 'failed auth', async () => {
    // as many clients getting a key wrong
    record('failed auth', await send('GET', '/v1/programs', `wrong-key-${n}-000000000000000000000000`, undefined, { 'x-forwarded-for': clientAddress(n) }), [401]);
  }],
];
const totalWeight = ACTIONS.reduce((s, [w]) => s + w, 0);
function pick(i) {
  let r = (i * 7919) % totalWeight;
  for (const action of ACTIONS) if ((r -= action[0]) < 0) return action;
  return ACTIONS[0];
}

const started = Date.now();
const samplesRss = [];
const sampler = setInterval(() => samplesRss.push({ t: (Date.now() - started) / 1000, rss: rss() }), 1000);
const loadAtStart = loadavg();
const end = started + seconds * 1000;
let failures = 0;
const progress = process.stderr.isTTY
  ? setInterval(() => process.stderr.write(`\r${Math.round((Date.now() - started) / 1000)}/${seconds} s, ${stats.served} requests, RSS ${Math.round(rss() / 2 ** 20)} MiB `), 1000)
  : undefined;

await Promise.all(
  Array.from({ length: clients }, async () => {
    while (Date.now() < end) {
      const [, kind, run] = pick(n++);
      try {
        await run();
      } catch (err) {
        failures++;
        stats.unexpected[`${kind} ${err.cause?.code ?? err.message}`] = (stats.unexpected[`${kind} ${err.cause?.code ?? err.message}`] ?? 0) + 1;
      }
    }
  }),
);
clearInterval(sampler);
clearInterval(progress);
if (progress) process.stderr.write('\n');
const loadAtEnd = loadavg();
const exited = new Promise((resolve) => daemon.once('exit', resolve));
daemon.kill('SIGTERM');
await exited;
rmSync(dataDir, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(1) : null;
};
const window = Math.min(30, Math.max(1, (seconds - warmup) / 4));
const rssStart = median(samplesRss.filter((s) => s.t >= warmup && s.t < warmup + window).map((s) => s.rss));
const rssEnd = median(samplesRss.filter((s) => s.t >= seconds - window).map((s) => s.rss));
const growth = rssStart ? (rssEnd - rssStart) / rssStart : 0;
const all = Object.values(stats.latencies).flat();
const judged = seconds >= JUDGED_FROM_S;
const report = {
  benchmark: 'soak',
  recorded_at: new Date().toISOString(),
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, load_at_start: loadAtStart.map((l) => +l.toFixed(2)), load_at_end: loadAtEnd.map((l) => +l.toFixed(2)) },
  load: { daemon: 'rules serve --store sqlite (one process)', clients, duration_s: seconds, warmup_s: warmup, mix: Object.fromEntries(ACTIONS.map(([w, kind]) => [kind, +(w / totalWeight).toFixed(3)])) },
  requests_served: stats.served,
  requests_per_s: Math.round(stats.served / seconds),
  by_status: stats.byStatus,
  unexpected: stats.unexpected,
  client_failures: failures,
  jobs: stats.jobs,
  keys: stats.keys,
  latency_ms: {
    all: { p50: percentile(all, 50), p99: percentile(all, 99) },
    ...Object.fromEntries(Object.entries(stats.latencies).map(([k, xs]) => [k, { requests: xs.length, p50: percentile(xs, 50), p99: percentile(xs, 99) }])),
  },
  rss_bytes: { after_warmup: rssStart, at_end: rssEnd, peak: Math.max(...samplesRss.map((s) => s.rss)), window_s: window },
  rss_growth: +growth.toFixed(4),
  rss_growth_bound: GROWTH_BOUND,
  within_bound: growth <= GROWTH_BOUND,
  judged,
  rss_timeline_mib: samplesRss.filter((_, i) => i % 10 === 0).map((s) => [Math.round(s.t), +(s.rss / 2 ** 20).toFixed(1)]),
};
const file = writeResult('soak', report);
console.log(`${stats.served} requests in ${seconds} s (${report.requests_per_s}/s), p99 ${report.latency_ms.all.p99} ms; statuses ${JSON.stringify(stats.byStatus)}; unexpected ${JSON.stringify(stats.unexpected)}`);
console.log(`RSS ${(rssStart / 2 ** 20).toFixed(1)} MiB after warm-up, ${(rssEnd / 2 ** 20).toFixed(1)} MiB at the end: ${(growth * 100).toFixed(1)} % (bound ${GROWTH_BOUND * 100} %${judged ? '' : `, not judged under ${JUDGED_FROM_S} s`})`);
console.log(`→ ${file}`);
process.exit(judged && !report.within_bound ? 1 : Object.keys(stats.unexpected).length || failures ? 1 : 0);
