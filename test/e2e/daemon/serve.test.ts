import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SqliteStore } from '../../../server/store/sqlite.js';
import { execa } from 'execa';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { CLI, PROJECT } from '../../support/paths.js';
import { LAB, labRoot, SNAP_REQUEST, sleep, slowHousehold, UUID } from '../../support/lab.js';

// The daemon as a user starts it: `node bin/rules.js serve` (built dist/, see test/support/global-setup.ts),
// over real HTTP. Start-up banner, configuration from flags and RULES_* twins, configuration
// errors, and a SIGTERM while a job runs.

const KEY = { all: 'daemon-test-key-all-00000000000000000001', calc: 'daemon-test-key-calc-00000000000000000001', admin: 'daemon-test-key-admin-00000000000000000001' };
const API_KEYS = JSON.stringify([
  { id: 'all', key: KEY.all, scopes: ['*'] },
  { id: 'calc', key: KEY.calc, scopes: ['calculate:run', 'rules:read'] },
  { id: 'admin', key: KEY.admin, scopes: ['admin:parity'] },
]);

const tempDir = (label: string) => mkdtempSync(path.join(tmpdir(), `rules-daemon-${label}-`));

/** Start `rules serve` with these arguments and environment (RULES_* of the test process removed). */
const start = (args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Served> => serve({ args, env, timeoutMs });


const api = async (served: Served, method: string, url: string, key?: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${served.url}${url}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

describe('rules serve --port 0 --data-dir <tmp> --store sqlite', () => {
  let served: Served;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = tempDir('sqlite');
    served = await start(['--port', '0', '--data-dir', dataDir, '--store', 'sqlite'], { RULES_API_KEYS: API_KEYS });
  });
  afterAll(async () => {
    expect(await served?.stop()).toBe(0);
  });

  test('the start-up banner says where it listens, the runtime mode, how many packages, and how to get a trial key', () => {
    const err = served.output();
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(served.url).port)).toBeGreaterThan(0);
    expect(err).toMatch(/runtime compiled\b/);
    expect(err).toMatch(/\b4 packages\b/);
    expect(err).toContain(`curl -s -X POST ${served.url}/v1/keys/trial`);
    expect(existsSync(path.join(dataDir, 'rules.db'))).toBe(true);
  });

  test('serves real requests over HTTP: envelopes, headers, auth, calculation', async () => {
    const health = await api(served, 'GET', '/v1/health', undefined, undefined, { 'x-request-id': 'over-http-1' });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', data: { service: 'rules-api', live: true }, meta: { request_id: 'over-http-1', api_version: '0.1.0', environment: 'local' } });
    expect(health.headers.get('x-request-id')).toBe('over-http-1');
    expect(health.headers.get('cache-control')).toBe('no-store');

    const ready = await api(served, 'GET', '/v1/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data.ready).toBe(true);

    const denied = await api(served, 'GET', '/v1/programs');
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('unauthorized');
    expect(denied.headers.get('x-request-id')).toMatch(UUID);

    const programs = await api(served, 'GET', '/v1/programs', KEY.all);
    expect(programs.status).toBe(200);
    expect(programs.headers.get('x-ratelimit-limit')).toBe('120');
    expect(programs.body.data.programs.length).toBeGreaterThan(0);

    const calc = await fetch(`${served.url}/v1/calculate`, { method: 'POST', headers: { authorization: `Bearer ${KEY.calc}`, 'content-type': 'application/json' }, body: JSON.stringify(SNAP_REQUEST) });
    expect(calc.status).toBe(200);
    const data = ((await calc.json()) as { data: { engine: string; runtime: { mode: string }; outputs: Record<string, unknown> } }).data;
    expect(data.engine).toBe('rules');
    expect(data.runtime.mode).toBe('compiled');
    expect(typeof data.outputs.snap_allotment).toBe('number');

    const missing = await api(served, 'GET', '/v1/nowhere', KEY.all);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');

    const doc = await api(served, 'GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
  });

  test('a job on the SQLite store is durable', async () => {
    const res = await api(served, 'POST', '/v1/jobs/calculate', KEY.calc, { requests: [SNAP_REQUEST] });
    expect(res.status).toBe(202);
    expect(res.body.data.durable).toBe(true);
  });

  test('rules parity --url --key runs the parity cases against the live daemon', async () => {
    const res = await execa('node', [CLI, 'parity', '--url', served.url, '--key', KEY.admin], { reject: false, env: cleanEnv({}), extendEnv: false });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/\b13 matching, 0 different, 0 errored, 1 skipped\b/);
    const json = await execa('node', [CLI, 'parity', '--url', `${served.url}/`, '--key', KEY.admin, '--json'], { reject: false, env: cleanEnv({}), extendEnv: false });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).summary).toMatchObject({ total: 13, matching: 13, different: 0, errored: 0, skipped: 1 });
  });

  test('rules parity --url with a key lacking admin:parity exits 2 naming the refusal', async () => {
    const res = await execa('node', [CLI, 'parity', '--url', served.url, '--key', KEY.calc], { reject: false, env: cleanEnv({}), extendEnv: false });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/403|insufficient_scope/);
  });
});

describe('configuration through the RULES_* environment twins', () => {
  test('RULES_PORT, RULES_HOST, RULES_DATA_DIR, RULES_STORE, RULES_RUNTIME and RULES_ENVIRONMENT', async () => {
    const dataDir = tempDir('env');
    const served = await start([], {
      RULES_PORT: '0',
      RULES_HOST: '127.0.0.1',
      RULES_DATA_DIR: dataDir,
      RULES_STORE: 'memory',
      RULES_RUNTIME: 'fixture',
      RULES_ENVIRONMENT: 'staging',
      RULES_API_KEYS: API_KEYS,
    });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(served.output()).toMatch(/runtime fixture\b/);
      expect(existsSync(path.join(dataDir, 'rules.db'))).toBe(false); // memory store
      const version = await api(served, 'GET', '/v1/version');
      expect(version.body.data).toEqual({ api_version: '0.1.0', environment: 'staging' });
      expect(version.body.meta.environment).toBe('staging');

      const pkg = await api(served, 'GET', '/v1/runtime/packages', KEY.all);
      expect(pkg.body.data.packages.length).toBeGreaterThan(0);
      const first = pkg.body.data.packages[0];
      const detail = await api(served, 'GET', `/v1/runtime/packages/${first.jurisdiction}/${first.program_id}`, KEY.all);
      const calc = await api(served, 'POST', '/v1/calculate', KEY.calc, detail.body.data.package.sample_request);
      expect(calc.status).toBe(200);
      expect(calc.body.data.runtime.mode).toBe('fixture');
      expect(calc.body.data.warnings.some((w: string) => /experimental/i.test(w) && /not (an )?authoritative/i.test(w))).toBe(true);

      const job = await api(served, 'POST', '/v1/jobs/calculate', KEY.calc, { requests: [detail.body.data.package.sample_request] });
      expect(job.status).toBe(202);
      expect(job.body.data.durable).toBe(false);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  test('--store memory reports durable false on job submission (and flags win over their twins)', async () => {
    const dataDir = tempDir('memory');
    const served = await start(['--port', '0', '--data-dir', dataDir, '--store', 'memory'], { RULES_API_KEYS: API_KEYS, RULES_STORE: 'sqlite', RULES_PORT: 'not-a-port' });
    try {
      const job = await api(served, 'POST', '/v1/jobs/calculate', KEY.calc, { requests: [SNAP_REQUEST] });
      expect(job.status).toBe(202);
      expect(job.body.data.durable).toBe(false);
      expect(existsSync(path.join(dataDir, 'rules.db'))).toBe(false);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});

describe('bad configuration exits 2 with a clear message', () => {
  const run = (args: string[], env: Record<string, string>) => execa('node', [CLI, 'serve', '--port', '0', '--data-dir', tempDir('bad'), ...args], { reject: false, env: cleanEnv(env), extendEnv: false, timeout: 30_000 });

  test('RULES_RUNTIME not compiled or fixture', async () => {
    const res = await run([], { RULES_RUNTIME: 'quantum', RULES_API_KEYS: API_KEYS });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('RULES_RUNTIME');
    expect(res.stderr).toContain('quantum');
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  test('--runtime not compiled or fixture', async () => {
    const res = await run(['--runtime', 'quantum'], { RULES_API_KEYS: API_KEYS });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/runtime/i);
  });

  test.each([
    ['not JSON', 'not json'],
    ['not an array', '{"id": "x"}'],
    ['a key without key or key_sha256', '[{"id": "x", "scopes": ["*"]}]'],
    ['a key without scopes', `[{"id": "x", "key": "${KEY.all}"}]`],
  ])('RULES_API_KEYS %s', async (_name, raw) => {
    const res = await run([], { RULES_API_KEYS: raw });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('RULES_API_KEYS');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  test('RULES_PORT not a port', async () => {
    const res = await execa('node', [CLI, 'serve', '--data-dir', tempDir('bad')], { reject: false, env: cleanEnv({ RULES_PORT: 'eighty', RULES_API_KEYS: API_KEYS }), extendEnv: false, timeout: 30_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('RULES_PORT');
  });

  test('RULES_SHUTDOWN_GRACE_MS not a positive number of milliseconds', async () => {
    const res = await run([], { RULES_SHUTDOWN_GRACE_MS: '-1', RULES_API_KEYS: API_KEYS });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('RULES_SHUTDOWN_GRACE_MS');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('SIGTERM while a job runs', () => {
  test('in-flight work finishes, the daemon exits 0, and after a restart on the same data dir the job completes', async () => {
    const dataDir = tempDir('sigterm');
    const args = ['--port', '0', '--data-dir', dataDir, '--store', 'sqlite', '--root', labRoot()];
    const env = { RULES_API_KEYS: API_KEYS, RULES_JOB_CONCURRENCY: '1' };
    const TOTAL = 12;
    const request = { program_id: LAB.slow, jurisdiction: LAB.jurisdiction, household: slowHousehold(100) };

    const first = await start(args, env);
    let jobId: string;
    let statusUrl: string;
    let seen: number;
    try {
      const submitted = await api(first, 'POST', '/v1/jobs/calculate', KEY.calc, { requests: Array(TOTAL).fill(request) });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
      expect(submitted.body.data).toMatchObject({ total: TOTAL, durable: true });
      jobId = submitted.body.data.job_id;
      statusUrl = submitted.body.data.status_url;
      // wait until the job is under way
      for (;;) {
        const job = (await api(first, 'GET', statusUrl, KEY.calc)).body.data;
        if (job.completed >= 1) {
          expect(job.status).toBe('running');
          seen = job.completed;
          break;
        }
        await sleep(20);
      }
      expect(seen).toBeLessThan(TOTAL - 2); // the job is still far from done: SIGTERM lands mid-job
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(first.output()).toMatch(/stopped/);

    // what the first daemon left in the store: the entry running at SIGTERM finished and was recorded
    const store = SqliteStore.open(path.join(dataDir, 'rules.db'));
    const left = await store.job(jobId);
    await store.close();
    expect(left).toBeDefined();
    expect(left!.completed).toBeGreaterThan(seen);
    expect(left!.completed, 'pending entries are left for the next start, not drained').toBeLessThanOrEqual(seen + 2);
    expect(left!.results.filter((r) => r !== null)).toHaveLength(left!.completed);
    expect(['running', 'succeeded']).toContain(left!.status);

    const second = await start(args, env);
    try {
      let job;
      const until = Date.now() + 30_000;
      for (;;) {
        const res = await api(second, 'GET', statusUrl, KEY.calc);
        expect(res.status, 'the job survives the restart').toBe(200);
        job = res.body.data;
        expect(job.completed).toBeGreaterThanOrEqual(left!.completed);
        if (job.status === 'succeeded' || job.status === 'failed') break;
        if (Date.now() > until) throw new Error(`job still ${job.status} (${job.completed}/${job.total}) after the restart`);
        await sleep(50);
      }
      expect(job.status).toBe('succeeded');
      expect(job.completed).toBe(TOTAL);
      expect(job.results).toHaveLength(TOTAL);
      for (const r of job.results) expect(r).toEqual({ status: 'ok', result: expect.objectContaining({ outputs: { slow_total: 1_000_000 } }) });
      // still bound to its key
      expect((await api(second, 'GET', statusUrl, KEY.all)).status).toBe(404);
      if (left!.status === 'running') expect(second.output()).toMatch(/resumed 1 unfinished job/);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 90_000);
});

describe('SIGTERM with a request that never completes', () => {
  test('the grace period (RULES_SHUTDOWN_GRACE_MS) bounds the stop: the stalled connection is cut, exit 0', async () => {
    const served = await start(['--store', 'memory'], { RULES_API_KEYS: API_KEYS, RULES_SHUTDOWN_GRACE_MS: '500' });
    const { port } = new URL(served.url);
    // a client that announces a body and never sends it: the request stays in flight
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/calculate HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${KEY.calc}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"program_id":`);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await sleep(100);
    const started = Date.now();
    const code = await served.stop();
    const took = Date.now() - started;
    expect(code).toBe(0);
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5_000);
    await closed;
    expect(served.output()).toMatch(/at most 500 ms for requests/);
    expect(served.output()).toMatch(/the grace period ended: connections still in flight were closed/);
  }, 30_000);
});

describe('what a compilation could not read', () => {
  test('is logged when the daemon compiles, and again when a later start reuses that output', async () => {
    const root = path.join(tempDir('root'), 'rulespec');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    mkdirSync(path.join(root, 'drafts'));
    const dataDir = tempDir('reuse');
    const args = ['--store', 'memory', '--data-dir', dataDir, '--root', root];
    for (const reuse of [false, true]) {
      const served = await start(args, { RULES_API_KEYS: API_KEYS });
      expect(await served.stop(), served.output()).toBe(0);
      expect(served.output().includes('reusing the compiled output')).toBe(reuse);
      expect(served.output()).toMatch(/rules serve: +warning \S*drafts: not a jurisdiction folder/);
    }
    // an edited encoding, or an output folder that lost a file, is compiled again
    const spec = readdirSync(path.join(root, 'programs'), { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.yaml'))!;
    appendFileSync(path.join(root, 'programs', spec), '\n# edited\n');
    const manifest = JSON.parse(readFileSync(path.join(dataDir, 'compiled', 'manifest.json'), 'utf8')) as { index: { programs: string } };
    for (const change of ['edited', 'lost']) {
      if (change === 'lost') rmSync(path.join(dataDir, 'compiled', manifest.index.programs));
      const served = await start(args, { RULES_API_KEYS: API_KEYS });
      expect(await served.stop(), served.output()).toBe(0);
      expect(served.output(), change).not.toMatch(/reusing the compiled output/);
      expect(served.output(), change).toMatch(/compiled \d+ packages/);
    }
  }, 90_000);
});
