import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/paths.js';

// Start-up configuration errors stop `rules mcp` before it speaks the protocol: exit 2, reason on stderr.

const startAdapter = (env: Record<string, string>) => execa(process.execPath, [CLI, 'mcp'], { env, extendEnv: false, input: '', reject: false });

describe('rules mcp configuration', () => {
  it.each(['abc', '0', '-5'])('SERVICE_API_TIMEOUT_MS=%s exits 2 with a clear message', async (value) => {
    const result = await startAdapter({ SERVICE_API_TIMEOUT_MS: value });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`SERVICE_API_TIMEOUT_MS must be a positive number of milliseconds (default 30000), got "${value}"`);
    expect(result.stdout).toBe('');
  });

  it('an invalid SERVICE_API_BASE_URL exits 2', async () => {
    const result = await startAdapter({ SERVICE_API_BASE_URL: 'not a url' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('SERVICE_API_BASE_URL must be an http(s) URL');
  });

  it('starts without a key and stops when its input closes', async () => {
    const result = await startAdapter({ SERVICE_API_TIMEOUT_MS: '1500' });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('rules mcp: forwarding to http://127.0.0.1:8080 (without an API key, timeout 1500 ms)');
  });
});
