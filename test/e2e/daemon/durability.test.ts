import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../support/daemon.js';

// A real `rules serve --store sqlite` process: what it acknowledged survives SIGKILL, and no raw
// key ever leaves it except in the issuance answer (not in other answers, logs or data files).

const ADMIN_KEY = 'daemon-test-admin-key-00000000000000000001';
const VICTIM_KEY = 'daemon-test-victim-key-00000000000000000001';
const ENV_KEYS = JSON.stringify([
  { id: 'ops', key: ADMIN_KEY, scopes: ['admin:keys', 'admin:analytics', 'rules:read'] },
  { id: 'victim', key: VICTIM_KEY, scopes: ['rules:read'] },
]);

type Daemon = Served;

/** `rules serve --store sqlite` with request logs on (they are searched for raw keys too). */
const start = (dataDir: string): Promise<Daemon> => serve({ args: ['--store', 'sqlite', '--data-dir', dataDir], env: { RULES_API_KEYS: ENV_KEYS, RULES_LOG_LEVEL: 'info' } });

/** Every answer body, by request, so raw keys can be looked for in them afterwards. */
const answers: { what: string; body: string }[] = [];

async function request(daemon: Daemon, method: string, route: string, options: { key?: string; body?: unknown } = {}) {
  const res = await fetch(`${daemon.url}${route}`, {
    method,
    headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const body = await res.text();
  answers.push({ what: `${method} ${route}`, body });
  return { status: res.status, json: JSON.parse(body) };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

describe('rules serve --store sqlite', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-daemon-'));
  const daemons: Daemon[] = [];
  afterAll(async () => {
    for (const d of daemons) d.process.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write across SIGKILL, and never shows a raw key except at issuance', { timeout: 180_000 }, async () => {
    const first = await start(dataDir);
    daemons.push(first);

    const trial = await request(first, 'POST', '/v1/keys/trial', { body: { label: 'durability test' } });
    expect(trial.status).toBe(201);
    const partner = await request(first, 'POST', '/v1/admin/keys', { key: ADMIN_KEY, body: { id: 'partner', scopes: ['rules:read', 'calculate:run'], owner: 'partner inc' } });
    expect(partner.status).toBe(201);
    const doomed = await request(first, 'POST', '/v1/admin/keys', { key: ADMIN_KEY, body: { id: 'doomed', scopes: ['rules:read'] } });
    expect(doomed.status).toBe(201);
    const rawKeys = [ADMIN_KEY, VICTIM_KEY, trial.json.data.key as string, partner.json.data.key as string, doomed.json.data.key as string];
    const issuance = new Set(answers.map((a) => a.body));

    // use the keys, so that logs and counters have something to say about them
    expect((await request(first, 'GET', '/v1/programs', { key: trial.json.data.key })).status).toBe(200);
    expect((await request(first, 'GET', '/v1/programs', { key: doomed.json.data.key })).status).toBe(200);
    const sample = (await request(first, 'GET', '/v1/capabilities', { key: partner.json.data.key })).json.data.runtime.sample_requests[0].sample_request;

    expect((await request(first, 'POST', '/v1/admin/keys/doomed/revoke', { key: ADMIN_KEY })).status).toBe(200);
    expect((await request(first, 'POST', '/v1/admin/keys/victim/revoke', { key: ADMIN_KEY })).status).toBe(200);
    expect((await request(first, 'GET', '/v1/programs', { key: doomed.json.data.key })).status).toBe(401);
    const run = await request(first, 'POST', '/v1/admin/validation/runs', { key: ADMIN_KEY, body: { kind: 'parity', rows: [{ variable: 'snap', status: 'parity_match' }], cases: [{ latency_ms: 12 }] } });
    expect(run.status).toBe(201);
    const job = await request(first, 'POST', '/v1/jobs/calculate', { key: partner.json.data.key, body: { requests: [sample, sample, sample] } });
    expect(job.status).toBe(202);
    expect(job.json.data.durable).toBe(true);

    first.process.kill('SIGKILL');
    expect((await first.process).signal).toBe('SIGKILL');

    const second = await start(dataDir);
    daemons.push(second);
    const keys = (await request(second, 'GET', '/v1/admin/keys', { key: ADMIN_KEY })).json.data.keys as { id: string; status: string; runtime_revoked: boolean; source: string }[];
    expect(keys.find((k) => k.id === 'partner')).toMatchObject({ status: 'active', source: 'store' });
    expect(keys.find((k) => k.id === 'doomed')).toMatchObject({ status: 'revoked', runtime_revoked: true });
    expect(keys.find((k) => k.id === 'victim')).toMatchObject({ status: 'revoked', runtime_revoked: true, source: 'environment' });
    expect(keys.find((k) => k.id === trial.json.data.key_id)).toMatchObject({ status: 'active' });
    expect((await request(second, 'GET', '/v1/programs', { key: partner.json.data.key })).status).toBe(200);
    expect((await request(second, 'GET', '/v1/programs', { key: trial.json.data.key })).status).toBe(200);
    expect((await request(second, 'GET', '/v1/programs', { key: doomed.json.data.key })).status).toBe(401);
    expect((await request(second, 'GET', '/v1/programs', { key: VICTIM_KEY })).status).toBe(401);

    const stored = await request(second, 'GET', `/v1/admin/validation/runs/${run.json.data.id}`, { key: ADMIN_KEY });
    expect(stored.status).toBe(200);
    expect(stored.json.data).toMatchObject({ ...run.json.data, rows: [{ variable: 'snap', status: 'parity_match' }] });

    let record;
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      record = await request(second, 'GET', `/v1/jobs/${job.json.data.job_id}`, { key: partner.json.data.key });
      expect(record.status).toBe(200);
      if (record.json.data.status === 'succeeded' || record.json.data.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    expect(record.json.data).toMatchObject({ status: 'succeeded', total: 3, completed: 3, api_key_id: 'partner' });

    const actions = ((await request(second, 'GET', '/v1/admin/audit', { key: ADMIN_KEY })).json.data.entries as { action: string; target: string }[]).map((e) => `${e.action} ${e.target}`);
    expect(actions).toEqual(['key.revoked victim', 'key.revoked doomed', 'key.issued doomed', 'key.issued partner', `trial_key.issued ${trial.json.data.key_id}`]);

    // every other answer, of both daemons
    for (const route of ['/v1/admin/keys', '/v1/admin/analytics', '/v1/admin/analytics?scope=global', '/v1/admin/kill', '/v1/admin/validation/runs']) {
      expect((await request(second, 'GET', route, { key: ADMIN_KEY })).status, route).toBe(200);
    }
    const usage = (await request(second, 'GET', '/v1/admin/usage', { key: ADMIN_KEY })).json.data.usage as { api_key_id: string }[];
    expect(usage.map((u) => u.api_key_id)).toContain('partner');
    second.process.kill('SIGTERM');
    await second.process;

    for (const answer of answers.filter((a) => !issuance.has(a.body))) {
      for (const raw of rawKeys) expect(answer.body.includes(raw), `${raw} in ${answer.what}`).toBe(false);
    }
    for (const [i, daemon] of daemons.entries()) {
      expect(daemon.output()).toMatch(/"url":"\/v1\/admin\/keys"/); // request logs are on
      for (const raw of rawKeys) expect(daemon.output().includes(raw), `${raw} in the output of daemon ${i + 1}`).toBe(false);
    }
    const files = filesUnder(dataDir);
    expect(files.some((f) => f.endsWith('rules.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const raw of rawKeys) expect(bytes.includes(Buffer.from(raw)), `${raw} in ${file}`).toBe(false);
    }
  });
});
