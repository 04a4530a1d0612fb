import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { launchBrowser, SCREENSHOTS, type Browser } from '../../support/browser.js';
import { CLI, HAVE_CORPUS, PROJECT } from '../../support/paths.js';
import { snapCorpusOutput, unseenRoot } from '../../support/corpus.js';

// `rules validate` as a user runs it: the bundled reference set by default, a reference file
// of one's own, --json and the exit codes, every difference put to its counterfactual proof
// (and an encoding with a bug injected, whose differences no departure explains), a daemon's
// migration endpoint (--url), publishing to a daemon (--publish) and the dashboard that shows
// what was published (in Chromium).

const SHARED = path.join(PROJECT, '..', 'shared', 'validation', 'policyengine-snap-2026-01.json');
const UNSEEN = path.join(PROJECT, '..', 'shared', 'validation', 'policyengine-snap-2026-01-multistate.json');
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

/**
 * The bundled encodings compiled with one bug injected: Colorado's heating and cooling standard
 * utility allowance (10 CCR 2506-1 4.407.31) at 590 instead of 594.
 */
async function compiledWithBug(): Promise<string> {
  const root = path.join(work, 'buggy');
  cpSync(path.join(PROJECT, 'rulespec'), path.join(root, 'rulespec'), { recursive: true });
  const file = path.join(root, 'rulespec', 'us-co', 'regulations', '10-ccr-2506-1', 'section-4.407.31.yaml');
  const text = readFileSync(file, 'utf8');
  expect(text.match(/formula: '594'/g)).toHaveLength(1);
  writeFileSync(file, text.replace("formula: '594'", "formula: '590'"));
  const out = path.join(root, 'compiled');
  const compiled = await execa(process.execPath, [CLI, 'compile', '--root', path.join(root, 'rulespec'), '--out', out, '--no-cache'], { cwd: work, env: cleanEnv(), extendEnv: false, reject: false });
  expect(compiled.exitCode, compiled.stderr).toBe(0);
  return out;
}
let buggy: Promise<string> | undefined;

interface CaseJson {
  id: string;
  status: string;
  proof?: {
    class: string;
    attributed: string[];
    proved_by: string[];
    attempts: { departures: string[]; differences: { variable: string }[] }[];
    finding?: { rule: string; variable: string; ours: unknown; reference: unknown; departures: string[] };
    diagnosis?: string;
  };
  first_difference?: { variable: string; rule: string | null; source: string | null };
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('in-process', () => {
  test('the bundled reference set: per-variable rows, every difference proved by its counterfactual, exit 0', async () => {
    const run = await validate(['--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toMatchObject({ households: 90, different: 19, explained: 19, unexplained: 0, main: 'snap', reference: { engine: 'policyengine-us', version: '1.817.0', period: '2026-01' } });
    expect(out.summary.by_set).toEqual([
      { set: 'clean', cases: 60, matching: 60 },
      { set: 'general', cases: 30, matching: expect.any(Number) },
    ]);
    const snap = out.rows.find((r: { variable: string }) => r.variable === 'snap');
    expect(snap).toMatchObject({ status: 'parity_diff', cases: 90, uncovered: 0, ours: 'snap_allotment', tolerance: 2, unexplained: 0 });
    expect(snap.matching + snap.explained).toBe(90);
    for (const c of out.cases.filter((x: CaseJson) => x.status === 'differ') as CaseJson[]) {
      expect(c.proof!.class, c.id).toBe('explained');
      expect(c.proof!.attempts.some((a) => a.differences.length === 0 && a.departures.join() === c.proof!.proved_by.join()), c.id).toBe(true);
    }
    // counts per departure; the time limit applied with our own package input, said so
    const timeLimit = out.departures.find((d: { id: string }) => d.id === 'time-limit-applied-at-once');
    expect(timeLimit).toMatchObject({ explained: 3, unexplained: 0, counterfactual: { via: 'household', own_inputs: ['snap_time_limit_exhausted'], applied: expect.stringMatching(/our package input, set directly because the reference engine's wire format has no variable for it/) } });
    expect(out.departures.find((d: { id: string }) => d.id === 'benefit-not-rounded').counterfactual).toMatchObject({ via: 'recompute', applied: expect.stringMatching(/^recomputed from our own intermediates/) });
    // the published run carries the counts per departure with the reference engine's version
    expect(out.run.model_versions.reference.departures).toContainEqual({ id: 'time-limit-applied-at-once', explained: 3, unexplained: 0 });
    expect(out.run.cases.find((c: { id: string }) => c.id === 'pe-g0005')).toMatchObject({ status: 'differ', class: 'explained', proved_by: ['always-standard-utility-allowance', 'time-limit-applied-at-once'] });
    expect(out.cases.every((c: { latency_ms: number }) => typeof c.latency_ms === 'number')).toBe(true);
    expect(out.run.model_versions).toMatchObject({ rules: expect.any(String), runtimes: expect.arrayContaining([expect.stringMatching(/^us-co\//)]), reference: { engine: 'policyengine-us' } });
  });

  test('households that agree on every variable: exit 0 and a readable table', async () => {
    const run = await validate(['--reference', clean3]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^variable\s+cases\s+match\s+explained\s+findings\s+unexplained\s+uncovered\s+match rate$/m);
    expect(run.stdout).toMatch(/^snap\s+3\s+3\s+0\s+0\s+0\s+0\s+100\.0 %$/m);
    expect(run.stdout).toMatch(/snap within \$2: clean 3\/3 \(100\.0 %\)/);
  });

  test('a recorded value we do not reproduce: exit 1, a corpus finding naming the rule that computes it, its source and both values', async () => {
    const file = reference('changed', (h) => ['pe-c0001', 'pe-g0019'].includes(h.id), (h) => h.id === 'pe-c0001' && (h.policyengine.snap_standard_deduction = 123));
    const run = await validate(['--reference', file, '--json']);
    expect(run.exitCode).toBe(1);
    const [c] = JSON.parse(run.stdout).cases.filter((x: CaseJson) => x.id === 'pe-c0001');
    expect(c.differences).toEqual([{ variable: 'snap_standard_deduction', ours: 299, reference: 123, delta: 176 }]);
    expect(c.proof).toMatchObject({ class: 'finding', attributed: [], proved_by: [], attempts: [] });
    const source = expect.stringMatching(/^7 USC 2014\(e\)\(1\); 7 CFR 273\.9\(d\)\(1\)/);
    expect(c.proof.finding).toMatchObject({ variable: 'snap_standard_deduction', rule: 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction', source, ours: 299, reference: 123, departures: [] });
    expect(c.first_difference).toEqual({ variable: 'snap_standard_deduction', rule: 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction', source });
    expect(c.reference).toMatchObject({ snap_standard_deduction: 123, snap: expect.any(Number) });

    const human = (await validate(['--reference', file])).stdout;
    // the finding comes before the explained household, with the rule and both values
    expect(human.indexOf('Corpus findings: 1 households')).toBeGreaterThan(-1);
    expect(human.indexOf('Corpus findings: 1 households')).toBeLessThan(human.indexOf('Explained: 1 households'));
    expect(human).toMatch(/^ {2}pe-c0001 \(CO, clean\) {2}snap_standard_deduction: ours 299, policyengine-us 123$/m);
    expect(human).toMatch(/^ {6}first in us:policies\/usda\/snap\/fy-2026\/deductions#snap_standard_deduction \(7 USC 2014\(e\)\(1\)/m);
    expect(human).toMatch(/^2 households differ: 1 explained, 1 corpus findings, none unexplained$/m);
  });

  test('--tolerance 0 shows the rounding gaps under $2 and proves each by benefit-not-rounded', async () => {
    const file = reference('rounding', (h) => h.id === 'pe-c0023' || h.id === 'pe-c0015');
    expect((await validate(['--reference', file])).exitCode).toBe(0);
    const run = await validate(['--reference', file, '--tolerance', '0', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const cases = JSON.parse(run.stdout).cases as (CaseJson & { differences: { variable: string; delta: number }[] })[];
    expect(cases.map((c) => [c.id, c.differences.map((d) => `${d.variable} ${d.delta}`), c.proof?.proved_by])).toEqual([
      ['pe-c0023', ['snap -1'], ['benefit-not-rounded']],
      ['pe-c0015', ['snap -1.1'], ['benefit-not-rounded']],
    ]);
  });

  test('an encoding with a bug injected: the departure it would have been put down to does not land, and the difference is located in the rule with the bug', async () => {
    const compiled = await (buggy ??= compiledWithBug());
    const run = await validate(['--compiled', compiled, '--state', 'co', '--json']);
    expect(run.exitCode).toBe(1);
    const out = JSON.parse(run.stdout);
    const cases = out.cases as CaseJson[];
    // pe-g0019 lacks a heating cost: the always-standard allowance is tried and leaves 590 against 594
    const g19 = cases.find((c) => c.id === 'pe-g0019')!;
    expect(g19.proof).toMatchObject({ class: 'finding', attributed: ['always-standard-utility-allowance'], proved_by: [] });
    expect(g19.proof!.attempts[0].differences.map((d) => d.variable)).toEqual(['snap_utility_allowance']);
    expect(g19.proof!.finding).toMatchObject({ rule: 'us-co:regulations/10-ccr-2506-1/section-4.407.31#snap_utility_allowance', ours: 590, reference: 594, departures: ['always-standard-utility-allowance'] });
    expect(g19.first_difference).toMatchObject({ variable: 'snap_utility_allowance', rule: 'us-co:regulations/10-ccr-2506-1/section-4.407.31#snap_utility_allowance' });
    // a clean household that pays for heating differs by 4 and no departure concerns it
    expect(cases.filter((c) => c.proof?.class === 'explained')).toEqual([]);
    expect(out.summary.findings).toBeGreaterThan(20);
    expect(out.summary.unexplained).toBe(0);
    // every finding is in the rule with the bug
    expect(new Set(cases.filter((c) => c.proof?.class === 'finding').map((c) => c.proof!.finding!.rule))).toEqual(new Set(['us-co:regulations/10-ccr-2506-1/section-4.407.31#snap_utility_allowance']));
    expect(out.departures.find((d: { id: string }) => d.id === 'always-standard-utility-allowance')).toMatchObject({ explained: 0, unexplained: expect.any(Number) });
  });

  test('--state picks households; a state no household is in is a usage error', async () => {
    const run = await validate(['--state', 'NY', '--json']);
    expect(JSON.parse(run.stdout).cases.every((c: { state: string }) => c.state === 'NY')).toBe(true);
    const none = await validate(['--state', 'TX']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/--state TX: no household of the references is in that state/);
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
    [['--compiled', work, '--url', 'http://x', '--key', 'k'], /use one of --compiled, --root and --url/],
    [['--root', '/nonexistent/corpus'], /--root \/nonexistent\/corpus/],
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

  test('--url calculates and proves on the migration endpoint with the same answers as in-process, naming the runtimes', async () => {
    // pe-g0005: one adult past the time limit in New York, proved with our own input over the wire
    const file = reference('url', (h) => firstClean.includes(h.id) || h.id === 'pe-g0005' || h.id === 'pe-g0019');
    const local = JSON.parse((await validate(['--reference', file, '--json'])).stdout);
    const remote = await validate(['--reference', file, '--url', daemon.url, '--key', KEY, '--json']);
    expect(remote.exitCode, remote.stderr).toBe(0);
    const out = JSON.parse(remote.stdout);
    expect(out.cases.map((c: { values: unknown }) => c.values)).toEqual(local.cases.map((c: { values: unknown }) => c.values));
    expect(out.cases.map((c: CaseJson) => c.proof)).toEqual(local.cases.map((c: CaseJson) => c.proof));
    expect(out.cases.find((c: CaseJson) => c.id === 'pe-g0005').proof.proved_by).toEqual(['always-standard-utility-allowance', 'time-limit-applied-at-once']);
    expect(out.summary.runtimes).toEqual(local.summary.runtimes);
    expect(out.summary.runtimes).toEqual([expect.stringMatching(/^us-ca\/ca-snap@/), expect.stringMatching(/^us-co\/co-snap@/), expect.stringMatching(/^us-ny\/ny-snap@/)]);
    expect(out.run.model_versions.runtimes).toEqual(out.summary.runtimes);
    expect(out.run.base_url).toBe(daemon.url);
  });

  test('--url with a key that may not read rule graphs: the differences come without their rule, and a warning says why', async () => {
    const file = reference('changed-remote', (h) => h.id === 'pe-c0001', (h) => (h.policyengine.snap_standard_deduction = 123));
    const run = await validate(['--reference', file, '--url', daemon.url, '--key', MIGRATE_ONLY, '--json']);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).cases[0].first_difference).toMatchObject({ variable: 'snap_standard_deduction', rule: null });
    expect(run.stderr).toMatch(/^rules validate: warning: .* did not give the rule graph of us-co\/co-snap \(403: insufficient_scope: [^)]*rules:read[^)]*\): differences in its outputs are reported without the rule behind them$/m);
  });

  test('--url with a key that may not use the migration endpoint: exit 2 naming the scope', async () => {
    const run = await validate(['--reference', clean3, '--url', daemon.url, '--key', READ_ONLY]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/compat:external/);
  });

  test('--publish records runs that the API and the dashboard show, with drift against the previous run', async () => {
    const first = await validate(['--publish', daemon.url, '--key', KEY, '--json'], { RULES_API_KEY: '' });
    expect(first.exitCode).toBe(0); // the general households differ by design, each difference proved
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
    expect(rows.find((r) => r.startsWith('snapparity_diff'))).toMatch(/snapparity_diff · explained90\d+\d+\d+00\d+\.\d %snap_allotment2.*pe-g\d+: ours \d+, reference [\d.]+ \([+-][\d.]+\) · [a-z-]+/);
    expect(rows.find((r) => r.startsWith('snapdrift_diff'))).toMatch(/: ours \d+, before 1/);
    expect(await page.locator('#rows .badge').allTextContents()).toContain('parity_match');
    await page.close();
  });

  /** The visible elements drawn in one of the dashboard's colours (red: var(--bad), a corpus finding's: var(--finding)) under `selector`. */
  const colouredIn = (page: Page, selector: string, colour: string) =>
    page.evaluate(([sel, variable]) => {
      const probe = document.createElement('span');
      probe.style.color = `var(${variable})`;
      document.body.append(probe);
      const wanted = getComputedStyle(probe).color;
      probe.remove();
      return [...document.querySelectorAll(sel)]
        .filter((n) => n.getClientRects().length > 0)
        .filter((n) => {
          const s = getComputedStyle(n);
          return [s.color, s.fill, s.backgroundColor, s.boxShadow].some((v) => v.includes(wanted));
        })
        .map((n) => n.getAttribute('data-series') ?? n.textContent ?? n.tagName);
    }, [selector, colour] as const);
  const redIn = (page: Page, selector: string) => colouredIn(page, selector, '--bad');
  const findingIn = (page: Page, selector: string) => colouredIn(page, selector, '--finding');

  test('the dashboard: a run whose differences are all explained shows no red and no finding; one with a bug injected shows its corpus findings, in the rule with the bug', async () => {
    const healthy = JSON.parse((await validate(['--publish', daemon.url, '--key', KEY, '--kind', 'proofs', '--json'])).stdout);
    expect(healthy.summary).toMatchObject({ explained: 19, unexplained: 0 });
    const broken = await validate(['--compiled', await (buggy ??= compiledWithBug()), '--state', 'CO', '--publish', daemon.url, '--key', KEY, '--kind', 'proofs', '--json']);
    expect(broken.exitCode).toBe(1);
    const brokenOut = JSON.parse(broken.stdout);

    const page = await browser.page();
    await page.goto(`${daemon.url}/docs/validation`);
    await page.fill('#api-key', KEY);
    await page.click('#key-form button[type=submit]');
    const healthyId = healthy.summary.published.id;
    const brokenId = brokenOut.summary.published.id;
    await page.locator(`#runs tr[data-run-id="${brokenId}"]`).waitFor();

    // the chart: the healthy run's bar has no unexplained (red) or finding part; the broken one's has findings, nothing red
    expect(await redIn(page, `svg.chart g.run[data-run-id="${healthyId}"] rect.mark`)).toEqual([]);
    expect(await findingIn(page, `svg.chart g.run[data-run-id="${healthyId}"] rect.mark`)).toEqual([]);
    expect(await findingIn(page, `svg.chart g.run[data-run-id="${brokenId}"] rect.mark`)).toEqual(['finding']);
    expect(await redIn(page, `svg.chart g.run[data-run-id="${brokenId}"] rect.mark`)).toEqual([]);
    const cell = async (id: string, column: number) => page.locator(`#runs tr[data-run-id="${id}"] td`).nth(column).textContent();
    expect(await cell(healthyId, 9)).toBe('0');
    expect(Number(await cell(brokenId, 9))).toBeGreaterThan(0);
    expect(await cell(brokenId, 10)).toBe('0');

    await page.locator(`#runs tr[data-run-id="${healthyId}"] button`).click();
    await page.waitForFunction((id) => document.getElementById('run-title')?.textContent === `Run ${id}` && !document.getElementById('run-section')?.hidden, healthyId);
    expect(await redIn(page, '#run-section *')).toEqual([]);
    expect(await page.locator('#run-counts').textContent()).toMatch(/explained: \d+/);
    expect(await page.locator('#run-departures').textContent()).toContain('time-limit-applied-at-once: explained 3');
    expect(await page.locator('#cases tbody tr').first().textContent()).toMatch(/explainedproved by /);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'validation-explained.png'), fullPage: true });

    await page.locator(`#runs tr[data-run-id="${brokenId}"] button`).click();
    await page.waitForFunction((id) => document.getElementById('run-title')?.textContent === `Run ${id}` && !document.getElementById('run-section')?.hidden, brokenId);
    expect((await findingIn(page, '#run-section *')).length).toBeGreaterThan(0);
    expect(await page.locator('#run-departures').textContent()).toMatch(/always-standard-utility-allowance: explained 0 tried on \d+ not explained/);
    expect(await page.locator('#rows tbody tr.row-finding').first().textContent()).toMatch(/parity_diff · finding/);
    const households = await page.locator('#cases tbody tr').allTextContents();
    expect(households.length).toBe(brokenOut.summary.different);
    expect(households[0]).toMatch(/finding.*first differs in us-co:regulations\/10-ccr-2506-1\/section-4\.407\.31#snap_utility_allowance .*: snap_utility_allowance ours 590, reference 594/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'validation-findings.png'), fullPage: true });
    await page.locator('#chart-section').screenshot({ path: path.join(SCREENSHOTS, 'validation-chart.png') });
    await page.locator('#cases-table').screenshot({ path: path.join(SCREENSHOTS, 'validation-cases.png') });
    await page.close();
  });
});

describe.runIf(HAVE_CORPUS)('the shared reference sets', () => {
  test.each([['2', 92], ['0', 212]])('all 450 households at --tolerance %s: every one of the %d differences proved', async (tolerance, different) => {
    const run = await validate(['--reference', SHARED, '--tolerance', tolerance, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toMatchObject({ households: 450, different, explained: different, unexplained: 0 });
    expect(out.summary.by_set.find((s: { set: string }) => s.set === 'clean')).toMatchObject({ set: 'clean', cases: 300 });
  });

  test('households no one fitted the departures to (Colorado, New York and California of the multistate set): every difference proved', async () => {
    for (const tolerance of ['2', '0']) {
      const run = await validate(['--reference', UNSEEN, '--state', 'CO', '--state', 'NY', '--state', 'CA', '--tolerance', tolerance, '--json']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).summary).toMatchObject({ households: 150, unexplained: 0 });
    }
    // the other states have no package: not compared, said so, exit 1
    const all = await validate(['--reference', UNSEEN]);
    expect(all.exitCode).toBe(1);
    expect(all.stdout).toMatch(/250 households not compared: no executable package for the program in the household's state \(AZ 50, AL 50, MA 50, GA 50, FL 50; --state picks the states to validate\)/);
  });
});

describe.runIf(HAVE_CORPUS)('a served corpus (the public US corpus, and a state no table knows)', () => {
  const one = { age: { '2026': 35 }, employment_income: { '2026': 14_400 }, weekly_hours_worked_before_lsr: { '2026': 40 } };
  /** Two households of Wyoming, whose program no table knows; the second with a net income the law does not give. */
  function wyoming(): string {
    const situation = { people: { a: one }, spm_units: { spm: { members: ['a'], housing_cost: { '2026': 8_400 } } }, households: { hh: { members: ['a'], state_code: { '2026': 'WY' } } } };
    // wages 1,200 a month, rent 700: net income 1,200 - 240 - 209 = 751 before shelter, less the
    // excess shelter 700 - 375.5 = 324.5 rounded to 325 (7 CFR 273.10(e)(1)(i)(H)): 426; allotment floor(298 - 127.8) = 170
    const households = [
      { id: 'wy-0001', state: 'WY', set: 'general', situation, policyengine: { snap: 170, snap_net_income: 426 } },
      { id: 'wy-0002', state: 'WY', set: 'general', situation, policyengine: { snap: 177.8, snap_net_income: 400 } },
    ];
    const file = path.join(work, 'wyoming.json');
    writeFileSync(file, JSON.stringify({ engine: 'policyengine-us', engine_version: '1.817.0', period: '2026-01', households }));
    return file;
  }

  test('--root: the state package of a root compiled for the run, mapped by the federal table alone; a difference is a corpus finding, written for the maintainer with --findings', async () => {
    const findings = path.join(work, 'wyoming-findings.md');
    const run = await validate(['--root', unseenRoot(), '--reference', wyoming(), '--findings', findings, '--json']);
    expect(run.exitCode, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toMatchObject({ households: 2, matching: 1, different: 1, explained: 0, findings: 1, unexplained: 0, errored: 0 });
    expect(out.summary.by_state).toEqual([{ state: 'WY', households: 2, matching: 1, explained: 0, findings: 1, unexplained: 0, errored: 0, uncovered: 0, packages: ['us-wy/wy-snap'] }]);
    const c = out.cases.find((x: CaseJson) => x.id === 'wy-0002');
    expect(c.proof.finding).toMatchObject({ variable: 'snap_net_income', rule: 'us:regulations/7-cfr/273/10#snap_net_monthly_income', source: '7 CFR 273.10(e)(1)(i)', ours: 426, reference: 400 });
    const md = readFileSync(findings, 'utf8');
    expect(md).toContain('## Wyoming (WY) — us-wy/wy-snap');
    expect(md).toContain('### `us:regulations/7-cfr/273/10#snap_net_monthly_income` (1 household)');
    expect(md).toContain('- Source: 7 CFR 273.10(e)(1)(i)');
    expect(md).toMatch(/^\| wy-0002 \| 426 \| 400 \| — \| — \|/m);
    const human = await validate(['--root', unseenRoot(), '--reference', wyoming(), '--findings', findings]);
    expect(human.stdout).toMatch(/^Corpus findings: 1 households differ/m);
    expect(human.stdout).toContain(`1 corpus findings written to ${findings}`);
  });

  test('the shared corpus\'s eight states: none fails, at least 60 % within $2, every difference explained, a corpus finding with its rule and source, or unexplained with why', async () => {
    const findings = path.join(work, 'corpus-findings.md');
    const run = await validate(['--compiled', snapCorpusOutput(), '--reference', UNSEEN, '--findings', findings, '--json']);
    expect(run.exitCode, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toMatchObject({ households: 400, errored: 0, by_set: [{ set: 'general', cases: 400 }] });
    expect(out.summary.by_set[0].matching).toBeGreaterThanOrEqual(240);
    expect(out.summary.by_state.map((s: { state: string; packages: string[] }) => [s.state, s.packages])).toEqual(
      ['AZ', 'AL', 'MA', 'GA', 'FL', 'CO', 'NY', 'CA'].map((state) => [state, [`us-${state.toLowerCase()}/${state.toLowerCase()}-snap`]]),
    );
    for (const c of out.cases.filter((x: CaseJson) => x.status === 'differ') as CaseJson[]) {
      if (c.proof!.class === 'finding') expect(c.proof!.finding, c.id).toMatchObject({ rule: expect.stringMatching(/#/), source: expect.any(String) });
      else if (c.proof!.class === 'unexplained') expect(c.proof!.diagnosis, c.id).toEqual(expect.any(String));
      else expect(c.proof!.class).toBe('explained');
    }
    const md = readFileSync(findings, 'utf8');
    expect(md).toContain('## Georgia (GA) — us-ga/ga-snap');
    expect(md).toContain('## Colorado (CO) — us-co/co-snap');
    // Georgia's benefit composition leaves its own utility allowance out of the shelter costs
    expect(md).toContain('### `us:regulations/7-cfr/273/10#snap_excess_shelter_deduction_for_net_income`');
  });
});
