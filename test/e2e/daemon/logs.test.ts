import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { CLI, PROJECT } from '../../support/paths.js';

// The daemon's logs as a user meets them: one line per request at the default level, JSON lines
// when stdout is not a terminal, one readable line on a terminal, quiet with --log-level warn.

const READABLE_REQUEST = /^\d\d:\d\d:\d\d GET \/v1\/health 200 \d+ ms$/m;

/** Start a daemon, make one request, stop it, and return what it wrote to stdout. */
async function stdoutOfOneRequest(options: { args?: string[]; env?: Record<string, string> }): Promise<string> {
  const served: Served = await serve(options);
  await fetch(`${served.url}/v1/health`);
  expect(await served.stop()).toBe(0);
  return (await served.process).stdout as string;
}

describe('rules serve logs', () => {
  test('by default: one JSON line per request on stdout (method, url, status, time)', async () => {
    const out = await stdoutOfOneRequest({ env: { RULES_LOG_LEVEL: '' } });
    const records = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const requests = records.filter((r) => r.req);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/v1/health' }, res: { statusCode: 200 }, responseTime: expect.any(Number) });
    expect(records.some((r) => r.msg === 'incoming request')).toBe(false);
  });

  test('RULES_LOG_FORMAT=readable: one short line per request', async () => {
    const out = await stdoutOfOneRequest({ env: { RULES_LOG_LEVEL: 'info', RULES_LOG_FORMAT: 'readable' } });
    expect(out).toMatch(READABLE_REQUEST);
    expect(out).not.toContain('{');
    expect(out).not.toContain('\u001b['); // NO_COLOR
  });

  test('--log-level warn: no request lines (the flag wins over RULES_LOG_LEVEL)', async () => {
    const out = await stdoutOfOneRequest({ args: ['--log-level', 'warn'], env: { RULES_LOG_LEVEL: 'debug' } });
    expect(out).toBe('');
  });

  test.each([
    [['--log-level', 'loud'], {}, '--log-level / RULES_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [[], { RULES_LOG_LEVEL: 'verbose' }, '--log-level / RULES_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
    [[], { RULES_LOG_FORMAT: 'xml' }, 'RULES_LOG_FORMAT must be one of readable, json, auto, got "xml"'],
  ])('%j %j: exit 2 with one line', async (args, env, message) => {
    const res = await execa(process.execPath, [CLI, 'serve', '--port', '0', ...args], { reject: false, env: cleanEnv(env), extendEnv: false, timeout: 30_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe(`rules: ${message}`);
  });

  // util-linux `script` runs the daemon on a pseudo-terminal, as a user's shell would
  test.runIf(process.platform === 'linux' && existsSync('/usr/bin/script'))('on a terminal: readable lines without being asked', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rules-logs-tty-'));
    const child = execa('script', ['-qfec', `"${process.execPath}" "${CLI}" serve --port 0 --data-dir "${dataDir}"`, '/dev/null'], { cwd: PROJECT, reject: false, all: true, env: cleanEnv({ RULES_LOG_LEVEL: '' }), extendEnv: false });
    let out = '';
    child.all!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up banner:\n${out}`)), 60_000);
        child.all!.on('data', () => {
          const listening = /listening on (http:\/\/\S+)/.exec(out);
          if (listening && out.includes('API reference')) {
            clearTimeout(timer);
            resolve(listening[1]);
          }
        });
      });
      await fetch(`${url}/v1/health`);
      await expect.poll(() => out.replace(/\r/g, ''), { timeout: 5_000 }).toMatch(READABLE_REQUEST);
      expect(out).not.toContain('"level"');
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });
});
