import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';

// `rules explore` run as scripts run it (no terminal): every refusal is one line on stderr and
// exit 2, flags first, then the daemon, then the missing terminal.

const KEY = 'explore-cli-test-key-with-all-scopes-1';
let served: Served;
beforeAll(async () => {
  served = await serve({ keys: [{ id: 'all', key: KEY, scopes: ['*'] }] });
});
afterAll(async () => {
  expect(await served?.stop()).toBe(0);
});

async function refused(args: string[], line: string | RegExp) {
  const res = await execa(process.execPath, [CLI, 'explore', ...args], { reject: false, env: cleanEnv(), extendEnv: false, stdin: 'ignore', timeout: 30_000 });
  expect(res.exitCode, res.stderr).toBe(2);
  expect(res.stdout).toBe('');
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr.trim()).toMatch(typeof line === 'string' ? new RegExp(`^rules: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : line);
}

describe('rules explore without a terminal, or with flags it cannot use', () => {
  it('needs a TTY', async () => {
    await refused([], 'explore needs an interactive terminal: stdin and stdout must be a TTY (for scripts use rules serve and the /v1 API, or rules mcp)');
    await refused(['--url', served.url, '--key', KEY], /^rules: explore needs an interactive terminal/);
  });

  it('refuses --json: the command is interactive', async () => {
    await refused(['--json'], '--json: explore is interactive and prints no JSON; for JSON use the /v1 API (rules serve) or rules mcp');
  });

  it('names a bad --compiled, --root, --url or --key in one line', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'rules-explore-empty-'));
    await refused(['--compiled', path.join(empty, 'nothing')], `--compiled ${path.join(empty, 'nothing')} does not exist`);
    await refused(['--compiled', empty], `--compiled ${empty} holds no compiled output (no manifest.json); build it with \`rules compile --out ${empty}\``);
    await refused(['--root', path.join(empty, 'nothing')], `--root ${path.join(empty, 'nothing')} does not exist`);
    await refused(['--url', 'ftp://example.org', '--key', KEY], '--url must be an http(s) URL such as http://127.0.0.1:8080, got "ftp://example.org"');
    await refused(['--url', served.url], '--url needs --key (an API key with rules:read, sources:read and calculate:run)');
    await refused(['--key', KEY], '--key is for --url');
    await refused(['--url', served.url, '--key', KEY, '--compiled', empty], '--url explores a daemon; it cannot be combined with --compiled or --root');
    await refused(['--url', 'http://127.0.0.1:9', '--key', KEY], /^rules: --url: cannot reach http:\/\/127\.0\.0\.1:9: /);
    await refused(['--url', served.url, '--key', 'not-a-key-of-this-daemon-00000000000'], /^rules: --key: GET \/v1\/runtime\/packages answered 401 unauthorized: /);
  });

  it('refuses an unknown flag as a usage error', async () => {
    const res = await execa(process.execPath, [CLI, 'explore', '--bogus'], { reject: false, env: cleanEnv(), extendEnv: false, stdin: 'ignore' });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: unknown option '--bogus'/);
  });

  it('is listed in rules --help', async () => {
    const res = await execa(process.execPath, [CLI, '--help'], { env: cleanEnv(), extendEnv: false });
    expect(res.stdout).toMatch(/explore \[options\]\s+explore programs, rules, households and/);
  });
});
