import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

// Headless Debian Chromium driven by playwright-core (no downloaded browser), with a fresh
// profile, and a log of every request the pages make.

export const SCREENSHOTS = path.join(tmpdir(), 'rules-pages-screenshots');

export interface Browser {
  context: BrowserContext;
  /** Every URL requested by any page of this browser. */
  requests: string[];
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'rules-pages-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    requests,
    page: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
