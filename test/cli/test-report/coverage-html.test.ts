import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCoverageHtml } from '../../../cli/test-report/coverage-html.js';
import { type Browser, launchBrowser } from '../../support/browser.js';
import { removeTempTrees } from '../../compiler/demo.js';
import { measured } from './coverage-fixture.js';

// The html coverage pages in headless Chromium: from the totals down to a module's YAML, line by
// line, with nothing loaded from anywhere else.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  removeTempTrees();
});

describe('the html coverage report', () => {
  it('links the totals to each jurisdiction and module, and shows what no case exercised on the YAML', async () => {
    const report = measured();
    const dir = mkdtempSync(path.join(tmpdir(), 'rules-coverage-html-'));
    writeCoverageHtml(report, dir);
    const page = await browser.page();
    await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
    expect(await page.title()).toBe('rules test coverage');
    const total = await page.locator('tr', { has: page.locator('th', { hasText: 'all' }) }).innerText();
    expect(total).toContain(`${report.total.rules.covered}/${report.total.rules.total}`);
    await page.getByRole('link', { name: 'us', exact: true }).click();
    expect(await page.title()).toBe('us: coverage');
    await page.getByRole('link', { name: 'statutes/demo/a' }).click();
    expect(await page.title()).toBe('us:statutes/demo/a');

    // the else no case took: a missed line with an untaken-branch marker; the if taken once
    const elseRow = page.locator('table.src tr', { has: page.locator('td.code', { hasText: /^\s*else:$/ }) });
    expect(await elseRow.getAttribute('class')).toBe('miss');
    expect(await elseRow.locator('.br .f').count()).toBe(1);
    const ifRow = page.locator('table.src tr', { has: page.locator('td.code', { hasText: 'if amount > 100' }) });
    expect(await ifRow.getAttribute('class')).toBe('hit');
    // the rule no case asked for: its branches never reached
    expect(await page.locator('.br .u').count()).toBe(2);
    expect(await page.locator('tr', { has: page.getByRole('link', { name: 'amount_due' }) }).innerText()).toMatch(/derived\s+1\s+1/);
    expect(browser.requests.every((url) => url.startsWith('file://'))).toBe(true);
  }, 60_000);
});
