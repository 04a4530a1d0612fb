import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../../support/daemon.js';
import { CLI, PROJECT } from '../../support/paths.js';

// The commands that talk to a daemon, pointed at something that is not one (a proxy's error
// page, the wrong service): one line naming the URL and what came back, exit 2, no stack trace.

let server: Server;
let url: string;
const work = mkdtempSync(path.join(tmpdir(), 'rules-wrong-service-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

const rules = (args: string[]) => execa(process.execPath, [CLI, ...args], { cwd: work, env: cleanEnv(), extendEnv: false, reject: false });

function expectOneLine(res: { exitCode?: number; stderr: string }, pattern: RegExp): void {
  expect(res.exitCode, res.stderr).toBe(2);
  expect(res.stderr.trim().split('\n'), res.stderr).toHaveLength(1);
  expect(res.stderr).toMatch(pattern);
  expect(res.stderr).not.toMatch(/\bat .+:\d+:\d+/);
}

describe('a URL that answers with an HTML error page', () => {
  it('rules parity --url', async () => {
    expectOneLine(await rules(['parity', '--url', url, '--key', 'any-key']), new RegExp(`${url} answered 502 not a JSON answer \\(text/html\\)`));
  });

  it('rules validate --publish', async () => {
    // one household, so the run is quick; publishing first reads the earlier runs
    const reference = JSON.parse(readFileSync(path.join(PROJECT, 'fixtures', 'validation', 'policyengine-snap-2026-01.json'), 'utf8')) as { households: unknown[] };
    const file = path.join(work, 'one.json');
    writeFileSync(file, JSON.stringify({ ...reference, households: reference.households.slice(0, 1) }));
    const res = await rules(['validate', '--reference', file, '--publish', url, '--key', 'any-key', '--data-dir', path.join(work, 'data')]);
    expectOneLine(res, new RegExp(`--publish: reading earlier runs from ${url}: 502 not a JSON answer \\(text/html\\)`));
  });
});
