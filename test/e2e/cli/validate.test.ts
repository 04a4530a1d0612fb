import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { launchBrowser, type Browser } from '../../support/browser.js';
import { CLI, HAVE_CORPUS, PROJECT } from '../../support/paths.js';

// `rules validate` as a user runs it: the bundled reference set by default, a reference file
// of one's own, --json and the exit codes, a daemon's migration endpoint (--url), publishing
// to a daemon (--publish) and the dashboard that shows what was published (in Chromium).

const SHARED = path.join(PROJECT, '..', 'shared', 'validation', 'policyengine-snap-2026-01.json');
const KEY = 'validate-test-key-with-three-scopes-000001';
const READ_ONLY = 'validate-test-key-reading-rules-only-00001';
const MIGRATE_ONLY = 'validate-test-key-migration-only-0000000001';
const work = mkdtempSync(path.join(tmpdir(), 'rules-validate-'));

interface Reference {
  households: { id: string; set: string; state: string; policyengine: Record<string, unknown> }[];
  [key: string]: unknown;
}
const bundled = JSON.parse(readFileSync(path.join(PROJECT, 'fixtures', 'validation', 'policyengine-snap-2026-01.json'), 'utf8')) as Reference;

/** A reference file holding some of the bundled households (optionally with values changed). */
function reference(name: string, pick: (h: Reference['households'][number]) => boolean, change?: (h: Reference['households'][number]) => void): string {
  const households = structuredClone(bundled.households.filter(pick));
  households.forEach((h) => change?.(h));
  const file = path.join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...bundled, households }));
  return file;
}

const validate = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [CLI, 'validate', '--data-dir', path.join(work, 'data'), ...args], { cwd: work, env: cleanEnv(env), extendEnv: false, reject: false });

const firstClean = ['CO', 'NY', 'CA'].map((state) => bundled.households.find((h) => h.set === 'clean' && h.state === state)!.id);
const clean3 = reference('clean', (h) => firstClean.includes(h.id));

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('in-process', () => {
  test('the bundled reference set: per-variable rows, every difference explained, exit 1', async () => {
    const run = await validate(['--json']);
    expect(run.exitCode).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toMatchObject({ households: 90, main: 'snap', reference: { engine: 'policyengine-us', version: '1.817.0', period: '2026-01' } });
    expect(out.summary.by_set).toEqual([
      { set: 'clean', cases: 60, matching: 60 },
      { set: 'general', cases: 30, matching: expect.any(Number) },
    ]);
    const snap = out.rows.find((r: { variable: string }) => r.variable === 'snap');
    expect(snap).toMatchObject({ status: 'parity_diff', cases: 90, uncovered: 0, ours: 'snap_allotment', tolerance: 2 });
    expect(snap.matching + snap.different).toBe(90);
    for (const c of out.cases.filter((x: { status: string }) => x.status === 'differ')) {
      expect(c.explanation.departures.length > 0 || c.explanation.rule, c.id).toBeTruthy();
    }
    expect(out.cases.every((c: { latency_ms: number }) => typeof c.latency_ms === 'number')).toBe(true);
    expect(out.run.model_versions).toMatchObject({ rules: expect.any(String), runtimes: expect.arrayContaining([expect.stringMatching(/^us-co\//)]), reference: { engine: 'policyengine-us' } });
  });

  test('households that agree on every variable: exit 0 and a readable table', async () => {
    const run = await validate(['--reference', clean3]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^variable\s+cases\s+match\s+differ\s+uncovered\s+match rate$/m);
    expect(run.stdout).toMatch(/^snap\s+3\s+3\s+0\s+0\s+100\.0 %$/m);
    expect(run.stdout).toMatch(/snap within \$2: clean 3\/3 \(100\.0 %\)/);
  });

  test('a recorded value we do not reproduce: exit 1, the difference and the rule behind our value', async () => {
    const file = reference('changed', (h) => h.id === 'pe-c0001', (h) => (h.policyengine.snap_standard_deduction = 123));
    const run = await validate(['--reference', file, '--json']);
    expect(run.exitCode).toBe(1);
    const [c] = JSON.parse(run.stdout).cases;
    expect(c.differences).toEqual([{ variable: 'snap_standard_deduction', ours: 299, reference: 123, delta: 176 }]);
    expect(c.explanation).toEqual({ departures: [], variable: 'snap_standard_deduction', rule: 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction', source: '7 USC 2014(e)(1); 7 CFR 273.9(d)(1)' });
  });

  test('--tolerance widens what matches', async () => {
    const file = reference('cents', (h) => h.id === 'pe-c0001', (h) => (h.policyengine.snap = Number(h.policyengine.snap) + 2.5));
    expect((await validate(['--reference', file])).exitCode).toBe(1);
    expect((await validate(['--reference', file, '--tolerance', '3.5'])).exitCode).toBe(0);
  });

  test.each([
    [['--reference', '/nonexistent/ref.json'], /--reference \/nonexistent\/ref\.json: no such file/],
    [['--reference', PROJECT], /is a folder, not a JSON file/],
    [['--tolerance', 'lots'], /--tolerance must be a number/],
    [['--url', 'http://127.0.0.1:9'], /--url needs --key/],
    [['--publish', 'http://127.0.0.1:9'], /--publish needs --key/],
    [['--compiled', work, '--url', 'http://x', '--key', 'k'], /either --compiled or --url/],
    [['--frobnicate'], /unknown option/],
    [['--data-dir', '/proc/rules-validate'], /^rules: --data-dir \/proc\/rules-validate: cannot create \/proc\/rules-validate/],
  ])('usage error %j: one line, exit 2', async (args, message) => {
    const run = await validate(args);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('against a daemon', () => {
  let daemon: Served;
  let browser: Browser;
  beforeAll(async () => {
    daemon = await serve({
      args: ['--store', 'memory'],
      keys: [
        { id: 'validator', key: KEY, scopes: ['compat:external', 'admin:analytics', 'rules:read'] },
        { id: 'reader', key: READ_ONLY, scopes: ['rules:read'] },
        { id: 'migrator', key: MIGRATE_ONLY, scopes: ['compat:external'] },
      ],
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  test('--url calculates on the migration endpoint with the same answers as in-process', async () => {
    const local = JSON.parse((await validate(['--reference', clean3, '--json'])).stdout);
    const remote = await validate(['--reference', clean3, '--url', daemon.url, '--key', KEY, '--json']);
    expect(remote.exitCode, remote.stderr).toBe(0);
    const out = JSON.parse(remote.stdout);
    expect(out.cases.map((c: { values: unknown }) => c.values)).toEqual(local.cases.map((c: { values: unknown }) => c.values));
    expect(out.run.base_url).toBe(daemon.url);
  });

  test('--url with a key that may not read rule graphs: the differences come without their rule, and a warning says why', async () => {
    const file = reference('changed-remote', (h) => h.id === 'pe-c0001', (h) => (h.policyengine.snap_standard_deduction = 123));
    const run = await validate(['--reference', file, '--url', daemon.url, '--key', MIGRATE_ONLY, '--json']);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).cases[0].explanation).toMatchObject({ variable: 'snap_standard_deduction', rule: null });
    expect(run.stderr).toMatch(/^rules validate: warning: .* did not give the rule graph of us-co\/co-snap \(403: insufficient_scope: [^)]*rules:read[^)]*\): differences in its outputs are reported without the rule behind them$/m);
  });

  test('--url with a key that may not use the migration endpoint: exit 2 naming the scope', async () => {
    const run = await validate(['--reference', clean3, '--url', daemon.url, '--key', READ_ONLY]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/compat:external/);
  });

  test('--publish records runs that the API and the dashboard show, with drift against the previous run', async () => {
    const first = await validate(['--publish', daemon.url, '--key', KEY, '--json'], { RULES_API_KEY: '' });
    expect(first.exitCode).toBe(1); // the general households differ by design
    const published = JSON.parse(first.stdout).summary.published;
    expect(published).toMatchObject({ id: expect.stringMatching(/^run_/), url: daemon.url });

    const list = await fetch(`${daemon.url}/v1/admin/validation/runs`, { headers: { 'x-api-key': KEY } }).then((r) => r.json());
    expect(list.data.runs).toHaveLength(1);
    expect(list.data.runs[0]).toMatchObject({ id: published.id, kind: 'policyengine-us', totals: { variables: 17, uncovered: 0 } });
    expect(list.data.runs[0].avg_case_latency_ms).toEqual(expect.any(Number));

    // a run whose snap values differ from ours, then ours again: the second run reports the drift
    const record = await fetch(`${daemon.url}/v1/admin/validation/runs/${published.id}`, { headers: { 'x-api-key': KEY } }).then((r) => r.json());
    const snapAt = record.data.rows.findIndex((r: { variable: string }) => r.variable === 'snap');
    const moved = { ...record.data, cases: record.data.cases.map((c: { values: unknown[] }, i: number) => (i === 0 ? { ...c, values: c.values.map((v, k) => (k === snapAt ? 1 : v)) } : c)) };
    const posted = await fetch(`${daemon.url}/v1/admin/validation/runs`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ kind: moved.kind, rows: moved.rows, cases: moved.cases, model_versions: moved.model_versions }) });
    expect(posted.status).toBe(201);
    const second = await validate(['--publish', daemon.url, '--key', KEY, '--json']);
    const drift = JSON.parse(second.stdout).rows.filter((r: { status: string }) => r.status === 'drift_diff');
    expect(drift).toEqual([expect.objectContaining({ variable: 'snap', different: 1, changed: [{ case: record.data.cases[0].id, previous: 1, current: expect.any(Number) }] })]);

    // the dashboard: the three runs as a trend, and the newest one's per-variable statuses
    const page = await browser.page();
    await page.goto(`${daemon.url}/docs/validation`);
    await page.fill('#api-key', KEY);
    await page.click('#key-form button[type=submit]');
    await page.locator('#runs tbody tr').nth(2).waitFor();
    expect(await page.locator('svg.chart g.run').count()).toBe(3);
    const newest = JSON.parse(second.stdout).summary.published.id;
    await page.locator(`#runs tr[data-run-id="${newest}"] button`).click();
    await page.locator('#run-section:not([hidden])').waitFor();
    const rows = await page.locator('#rows tbody tr').allTextContents();
    expect(rows.find((r) => r.startsWith('snapparity_diff'))).toMatch(/snapparity_diff90\d+\d+0\d+\.\d %snap_allotment2.*pe-g\d+: ours \d+, reference [\d.]+ \([+-][\d.]+\)/);
    expect(rows.find((r) => r.startsWith('snapdrift_diff'))).toMatch(/: ours \d+, before 1/);
    expect(await page.locator('#rows .badge').allTextContents()).toContain('parity_match');
    await page.close();
  });
});

describe.runIf(HAVE_CORPUS)('the shared reference set', () => {
  test('all 450 households: every clean one within $2, every difference explained', async () => {
    const run = await validate(['--reference', SHARED, '--json']);
    const out = JSON.parse(run.stdout);
    expect(out.summary.by_set.find((s: { set: string }) => s.set === 'clean')).toEqual({ set: 'clean', cases: 300, matching: 300 });
    const unexplained = out.cases.filter((c: { status: string; explanation?: { departures: string[]; rule: string | null } }) => c.status === 'differ' && !c.explanation?.departures.length && !c.explanation?.rule);
    expect(unexplained).toEqual([]);
  });
});
