import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../../lib/index.js';
import { generateHouseholds } from '../../../bench/households.mjs';
import { launchBrowser, SCREENSHOTS, type Browser } from '../../support/browser.js';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules diff --report out.html` opened from disk in headless Chromium, as a reviewer opens it:
// no error, nothing loaded but the page itself, the histogram and the root-cause table drawn.

const dir = mkdtempSync(path.join(tmpdir(), 'rules-diff-report-'));
const report = path.join(dir, 'report.html');
let browser: Browser;

beforeAll(async () => {
  const root = path.join(dir, 'rulespec');
  cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
  const co = compile().packages.find((p) => p.program_id === 'co-snap')!;
  // a name that must be escaped, in a --by column
  const lines = generateHouseholds(co, 2000, 3).map((h, k) => JSON.stringify({ ...h, county: k % 2 ? 'Denver' : '<b>Adams</b>' }));
  writeFileSync(path.join(dir, 'households.jsonl'), lines.join('\n') + '\n');
  const table = 'us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction_table';
  const res = await execa('node', [CLI, 'diff', 'us-co/co-snap', '--root', root, '--set', `${table}[3]=300`, '--set', `${table}[4]=260`, '--input', 'households.jsonl', '--by', 'county', '--report', report], { cwd: dir, reject: false });
  expect(res.exitCode, res.stderr).toBe(0);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the HTML report of rules diff', () => {
  it('is one self-contained page: no script, no external asset', () => {
    const html = readFileSync(report, 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
    expect(html).toContain('&lt;b&gt;Adams&lt;/b&gt;');
  });

  it('opens without errors and shows the histogram, the root-cause table and the breakdown', async () => {
    const page = await browser.page();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    const url = pathToFileURL(report).href;
    await page.goto(url);
    expect(errors).toEqual([]);
    expect(browser.requests).toEqual([url]);
    expect(await page.title()).toBe('rules diff us-co/co-snap');
    const bars = page.locator('#histogram rect');
    expect(await bars.count()).toBeGreaterThan(0);
    const box = await page.locator('#histogram').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(50);
    const rows = page.locator('#root-cause-table tbody tr');
    expect(await rows.count()).toBe(1);
    const cause = await rows.first().innerText();
    expect(cause).toContain('snap_standard_deduction');
    expect(cause).toContain('us:policies/usda/snap/fy-2026/deductions#snap_standard_deduction');
    expect(cause).toContain('7 USC 2014(e)(1); 7 CFR 273.9(d)(1)');
    expect(cause).toMatch(/snap_standard_deduction_table: \{3: 209, 4: 223\} → \{3: 300, 4: 260\}/);
    expect(await page.locator('#root-cause-chart rect').count()).toBe(1);
    const counties = await page.locator('section.by tbody tr td:first-child').allInnerTexts();
    expect(counties.sort()).toEqual(['<b>Adams</b>', 'Denver']);
    expect(await page.locator('#rule-changes tbody tr').innerText()).toContain('snap_standard_deduction_table');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'diff-report.png'), fullPage: true });
  }, 60_000);
});
