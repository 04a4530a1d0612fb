import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOTS, type Browser } from '../../support/browser.js';
import { call, OPS_KEY, READER_KEY, startDaemon, type RunningDaemon } from './daemon.js';

// GET /docs/validation against a real daemon, in headless Chromium: the dashboard loads the runs
// client-side from /v1/admin/validation/runs with the key typed in. The tests run in order: the
// list is empty until the third one publishes two runs through the API.

const HOSTILE = '<img src=x onerror="document.title=1">';

const RUN_A = {
  kind: 'parity',
  api_version: '0.1.0',
  model_versions: { rules: '0.1.0' },
  rows: [
    { variable: 'snap_allotment', status: 'parity_match', expected: 536, actual: 536 },
    { variable: 'snap_net_income', status: 'parity_diff', expected: 810, actual: 812, delta: 2 },
    { variable: HOSTILE, status: 'uncovered', note: '<b>not bold</b>' },
  ],
  cases: [{ id: 'case-1', latency_ms: 14 }],
};
const RUN_B = {
  kind: 'drift',
  rows: [
    { variable: 'snap_gross_income', status: 'drift_diff', previous: 1500, current: 1490 },
    { variable: 'snap_income_eligible', status: 'parity_match' },
    { variable: 'snap_shelter_deduction', status: 'covered' },
  ],
};

describe('GET /docs/validation', () => {
  let daemon: RunningDaemon;
  let browser: Browser;
  const runIds: string[] = [];

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  async function openWithKey(key: string, remember = false): Promise<Page> {
    const page = await browser.page();
    const res = await page.goto(`${daemon.url}/docs/validation`);
    expect(res?.status()).toBe(200);
    await page.fill('#api-key', key);
    if (remember) await page.check('#remember');
    await page.click('#key-form button[type=submit]');
    return page;
  }

  /** The status line once it says something other than "Loading…". */
  async function message(page: Page): Promise<{ text: string; kind: string }> {
    await page.waitForFunction(() => {
      const m = document.getElementById('message');
      return m && !m.hidden && !/^Loading/.test(m.textContent ?? '');
    });
    const m = page.locator('#message');
    return { text: (await m.textContent()) ?? '', kind: (await m.getAttribute('class')) ?? '' };
  }

  it('is a public, uncached HTML page with a password field', async () => {
    const res = await fetch(`${daemon.url}/docs/validation`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).toContain('type="password"');
    expect(html).not.toContain('innerHTML');
  });

  it('says when no run has been recorded', async () => {
    const page = await openWithKey(OPS_KEY);
    expect((await message(page)).text).toMatch(/No validation runs have been recorded yet/);
    expect(await page.locator('#runs-section').isHidden()).toBe(true);
    await page.close();
  });

  it('shows both published runs, a chart mark for each, and the rows of the chosen run', async () => {
    for (const run of [RUN_A, RUN_B]) {
      const res = await call(`${daemon.url}/v1/admin/validation/runs`, OPS_KEY, { method: 'POST', body: run });
      expect(res.status).toBe(201);
      runIds.push(res.body.data.id);
    }
    const page = await openWithKey(OPS_KEY);
    await page.locator('#runs tbody tr').nth(1).waitFor();
    expect(await page.locator('#runs tbody tr').count()).toBe(2);
    const table = await page.locator('#runs').textContent();
    expect(table).toContain('parity');
    expect(table).toContain('drift');
    expect(await page.locator('#runs thead').textContent()).toMatch(/Recorded at.*Kind.*Contract hash.*API version.*Parity match.*Parity diff.*Drift diff.*Uncovered.*Avg case latency/);

    // the chart: one group per run, with its stacked marks
    for (const id of runIds) {
      const group = page.locator(`svg.chart g.run[data-run-id="${id}"]`);
      expect(await group.count()).toBe(1);
      expect(await group.locator('rect.mark').count()).toBeGreaterThanOrEqual(2);
    }
    // run A's parity_diff row says nothing of explanations: nothing proved it, so it is unexplained
    expect(await page.locator(`svg.chart g.run[data-run-id="${runIds[0]}"] rect.mark`).evaluateAll((rs) => rs.map((r) => r.getAttribute('data-series')))).toEqual(['unexplained', 'matched', 'uncovered']);

    // choosing run A from the table
    await page.locator(`#runs tr[data-run-id="${runIds[0]}"] button`).click();
    await page.locator('#run-section:not([hidden])').waitFor();
    await expect(page.locator('#run-title').textContent()).resolves.toBe(`Run ${runIds[0]}`);
    expect(await page.locator('#rows thead th').allTextContents()).toEqual(['variable', 'status', 'expected', 'actual', 'delta', 'note']);
    const rows = await page.locator('#rows tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/snap_net_income.*parity_diff · unexplained.*810.*812.*2/);
    expect(await page.locator('#run-counts').textContent()).toBe('unexplained: 1matched: 1uncovered: 1');
    expect(await page.locator('#cases-summary').textContent()).toBe('0 of 1 households did not match outright; 1 matched.');
    // data is text, never markup
    expect(rows[2]).toContain(HOSTILE);
    expect(rows[2]).toContain('<b>not bold</b>');
    expect(await page.locator('#rows img, #rows b').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'validation-run.png'), fullPage: true });

    // choosing run B from the chart
    await page.locator(`svg.chart g.run[data-run-id="${runIds[1]}"]`).click();
    await page.waitForFunction((id) => document.getElementById('run-title')?.textContent === `Run ${id}`, runIds[1]);
    expect(await page.locator('#rows thead th').allTextContents()).toEqual(['variable', 'status', 'previous', 'current']);
    expect(await page.locator('#rows tbody .badge').allTextContents()).toEqual(['drift_diff', 'parity_match', 'covered']);

    const origin = new URL(daemon.url).origin;
    expect(browser.requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    await page.close();
  });

  it('keeps the key in sessionStorage only when asked to', async () => {
    const page = await openWithKey(OPS_KEY);
    await page.locator('#runs tbody tr').first().waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.check('#remember');
    await page.click('#key-form button[type=submit]');
    await page.locator('#runs tbody tr').first().waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([OPS_KEY]);
    await page.reload();
    await page.locator('#runs tbody tr').nth(1).waitFor(); // loaded without submitting
    await page.click('#forget');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.close();
  });

  it('names the missing scope for a key without admin:analytics', async () => {
    const page = await openWithKey(READER_KEY);
    const { text, kind } = await message(page);
    expect(text).toMatch(/missing scope admin:analytics/i);
    expect(kind).toContain('error');
    expect(await page.locator('#runs-section').isHidden()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'validation-403.png') });
    await page.close();
  });

  it('says a bogus key was not accepted (401)', async () => {
    const page = await openWithKey('not-a-real-key-000000');
    expect((await message(page)).text).toMatch(/Key not accepted \(401 unauthorized\)/);
    expect(await page.locator('#runs-section').isHidden()).toBe(true);
    await page.close();
  });

  it('reports a network error', async () => {
    const page = await browser.page();
    await page.route('**/v1/admin/validation/runs', (route) => route.abort('internetdisconnected'));
    await page.goto(`${daemon.url}/docs/validation`);
    await page.fill('#api-key', OPS_KEY);
    await page.click('#key-form button[type=submit]');
    expect((await message(page)).text).toMatch(/^Network error: the API could not be reached/);
    await page.close();
  });
});
