import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOTS, type Browser } from '../../support/browser.js';
import { startDaemon, type RunningDaemon } from './daemon.js';

// GET /docs against a real daemon, in headless Chromium.

describe('GET /docs', () => {
  let daemon: RunningDaemon;
  let browser: Browser;

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('is public, uncached, self-contained HTML with no script', async () => {
    const res = await fetch(`${daemon.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    const links = [...html.matchAll(/\b(?:href|src)="([^"]*)"/g)].map((m) => m[1]);
    expect(links.filter((l) => !/^(#|\/(?!\/)|data:)/.test(l))).toEqual([]);
  });

  it('documents every path, operation and schema of /v1/openapi.json, only from the daemon', async () => {
    const doc = (await (await fetch(`${daemon.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    const page = await browser.page();
    const res = await page.goto(`${daemon.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toContain('Rules API');
    await expect(page.locator('h1').textContent()).resolves.toBe('Rules API');

    // the description's Markdown subset
    await expect(page.locator('.intro strong').first().textContent()).resolves.toBe('Envelopes.');
    expect(await page.locator('.intro code').count()).toBeGreaterThan(5);
    expect(await page.locator('.intro').textContent()).not.toContain('**');

    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    const shownPaths = await page.locator('section.op h3 code.path').allTextContents();
    expect(shownPaths).toHaveLength(operations);
    expect(new Set(shownPaths)).toEqual(new Set(Object.keys(doc.paths)));
    expect(shownPaths).toEqual(expect.arrayContaining(['/docs', '/docs/validation', '/v1/admin/validation/runs']));
    expect(await page.locator('nav.toc a[href^="#op-"]').count()).toBe(operations);

    // schemas: one section per component, every in-page link lands somewhere
    await expect(page.locator('h2#schemas').textContent()).resolves.toBe('Schemas');
    const schemaTitles = await page.locator('section.schema h3').allTextContents();
    expect(schemaTitles).toEqual(Object.keys(doc.components.schemas));
    const targets = await page.$$eval('a[href^="#"]', (as) => [...new Set(as.map((a) => a.getAttribute('href')!.slice(1)))]);
    const missing = await page.evaluate((ids) => ids.filter((id) => !document.getElementById(id)), targets);
    expect(missing).toEqual([]);
    expect(await page.locator('#schema-SearchRequest table.props').textContent()).toMatch(/query.*string.*required.*min length 2/s);
    expect(await page.locator('#schema-ReadyResponse table.props').textContent()).toContain('"degraded"');

    // one operation in full: scope, units, body reference, example, every error status with codes
    const calculate = page.locator('#op-postV1Calculate');
    await expect(calculate.locator('.access').textContent()).resolves.toMatch(/scope calculate:run · 10 compute units/);
    expect(await calculate.locator('a[href="#schema-CalculateRequest"]').count()).toBeGreaterThan(0);
    expect(await calculate.locator('details.example pre').first().textContent()).toContain('"program_id"');
    const errors = await calculate.locator('table.errors tbody tr').allTextContents();
    for (const [status, code] of [['400', 'invalid_household'], ['401', 'unauthorized'], ['403', 'insufficient_scope'], ['422', 'unsupported_program'], ['429', 'auth_throttled'], ['502', 'runtime_error'], ['503', 'auth_not_configured']]) {
      expect(errors.some((row) => row.includes(code)), `${status} ${code}`).toBe(true);
    }
    await expect(page.locator('#op-getDocs .access').textContent()).resolves.toBe('Public · no key needed');

    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-top.png') });
    for (const [id, file] of [['op-postV1Calculate', 'docs-calculate.png'], ['op-getV1RulesRuleId', 'docs-rule.png'], ['schema-RuntimePackageFile', 'docs-schema.png']]) {
      await page.evaluate((target) => document.getElementById(target)!.scrollIntoView({ block: 'start' }), id);
      await page.screenshot({ path: path.join(SCREENSHOTS, file) });
    }({ path: path.join(SCREENSHOTS, 'docs-schema.png') });

    const origin = new URL(daemon.url).origin;
    expect(browser.requests.length).toBeGreaterThan(0);
    expect(browser.requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    await page.close();
  });
});
