import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { cleanEnv, request, serve } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';

// One daemon per SQLite data dir: a second start on it is exit 2 naming the first; the lock
// dies with its process (kill -9 included); `rules keys` keeps working beside a running daemon.

const KEY = { id: 'ops', key: 'data-dir-lock-test-key-0000000000000000001', scopes: ['*'] };

describe('one daemon per SQLite data dir', () => {
  test('the second start is exit 2 naming the running one; rules keys works beside it; after kill -9 a new one starts', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-lock-'));
    const first = await serve({ dataDir, keys: [KEY] });
    const pid = first.process.pid!;

    const second = await execa(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], { reject: false, env: cleanEnv(), extendEnv: false, timeout: 60_000 });
    expect(second.exitCode).toBe(2);
    expect(second.stderr.trim()).toBe(
      `rules: the data dir ${dataDir} is in use by another rules serve (pid ${pid}, listening on ${first.url}, started ${second.stderr.match(/started (\S+)\)/)?.[1]}); stop it, or give this one another --data-dir`,
    );
    expect(second.stderr).toMatch(/started \d{4}-\d\d-\d\dT/);

    // the store itself stays open to the keys command
    const keys = (...args: string[]) => execa(process.execPath, [CLI, 'keys', ...args, '--data-dir', dataDir, '--json'], { reject: false, env: cleanEnv(), extendEnv: false });
    expect((await keys('issue', '--id', 'beside', '--scope', 'rules:read')).exitCode).toBe(0);
    const listed = await keys('list');
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain('"beside"');
    expect((await request(first, 'GET', '/v1/ready')).status).toBe(200);

    expect(await first.stop('SIGKILL')).toBeUndefined();
    const next = await serve({ dataDir, keys: [KEY] });
    try {
      expect((await request(next, 'GET', '/v1/ready')).status).toBe(200);
    } finally {
      expect(await next.stop()).toBe(0);
    }
    // a stopped daemon leaves the data dir free at once
    const after = await serve({ dataDir, keys: [KEY] });
    expect(await after.stop()).toBe(0);
  });

  test('daemons on the memory store do not lock the data dir', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-lock-memory-'));
    const a = await serve({ dataDir, args: ['--store', 'memory'] });
    const b = await serve({ dataDir, args: ['--store', 'memory'] });
    expect(await b.stop()).toBe(0);
    expect(await a.stop()).toBe(0);
  });
});
