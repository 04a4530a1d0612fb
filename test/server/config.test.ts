import { describe, expect, test } from 'vitest';
import { ConfigError, DEFAULT_CONNECTION_LIMITS, loadConfig } from '../../server/config.js';

describe('loadConfig: connection limits', () => {
  test('safe defaults', () => {
    expect(loadConfig({}, {}).connections).toEqual(DEFAULT_CONNECTION_LIMITS);
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, maxConnections: 8_192, maxConnectionsPerClient: 128 });
  });

  test('each from its environment setting', () => {
    const env = {
      RULES_HEADERS_TIMEOUT_MS: '1000',
      RULES_BODY_TIMEOUT_MS: '2000',
      RULES_REQUEST_TIMEOUT_MS: '3000',
      RULES_KEEP_ALIVE_TIMEOUT_MS: '4000',
      RULES_MAX_CONNECTIONS: '500',
      RULES_MAX_CONNECTIONS_PER_CLIENT: '20',
    };
    expect(loadConfig({}, env).connections).toEqual({ headersTimeoutMs: 1000, bodyTimeoutMs: 2000, requestTimeoutMs: 3000, keepAliveTimeoutMs: 4000, maxConnections: 500, maxConnectionsPerClient: 20 });
  });

  test.each([
    [{ RULES_BODY_TIMEOUT_MS: '0' }, /RULES_BODY_TIMEOUT_MS must be a whole number between 1 and 3600000, got "0"/],
    [{ RULES_REQUEST_TIMEOUT_MS: '1e9' }, /RULES_REQUEST_TIMEOUT_MS/],
    [{ RULES_MAX_CONNECTIONS: 'lots' }, /RULES_MAX_CONNECTIONS must be/],
    [{ RULES_CALCULATE_TIMEOUT_MS: '3000000000' }, /RULES_CALCULATE_TIMEOUT_MS must be a whole number between 1 and 3600000/],
    [{ RULES_SHUTDOWN_GRACE_MS: '1e12' }, /RULES_SHUTDOWN_GRACE_MS must be a whole number between 1 and 3600000/],
    [{ RULES_HEADERS_TIMEOUT_MS: '5000', RULES_REQUEST_TIMEOUT_MS: '4000' }, /RULES_HEADERS_TIMEOUT_MS \(5000\) must not exceed RULES_REQUEST_TIMEOUT_MS \(4000\)/],
    [{ RULES_MAX_CONNECTIONS: '10', RULES_MAX_CONNECTIONS_PER_CLIENT: '20' }, /RULES_MAX_CONNECTIONS_PER_CLIENT \(20\) must not exceed RULES_MAX_CONNECTIONS \(10\)/],
    [{ RULES_TRUST_PROXY: 'my-balancer' }, /RULES_TRUST_PROXY must be a hop count or a comma-separated list .*"my-balancer"/],
    [{ RULES_API_KEYS: JSON.stringify([{ id: 'ops', key: 'k'.repeat(40), scopes: ['*'], rate_limit: { requests: 1e300, window_seconds: 60 } }]) }, /RULES_API_KEYS\[0\]\.rate_limit must be \{requests: 1-1000000000, window_seconds: 1-86400\}/],
    [{ RULES_API_KEYS: JSON.stringify([{ id: 'ops', key: 'k'.repeat(40), scopes: ['*'], rate_limit: { requests: 10, window_seconds: 86_401 } }]) }, /RULES_API_KEYS\[0\]\.rate_limit must be/],
  ])('%j is a configuration error', (env, message) => {
    expect(() => loadConfig({}, env)).toThrow(ConfigError);
    expect(() => loadConfig({}, env)).toThrow(message);
  });

  test('RULES_TRUST_PROXY: 1 and true keep meaning one hop; a list is kept as given', () => {
    expect(loadConfig({}, { RULES_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({}, { RULES_TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({}, {}).trustProxy).toBe(false);
    expect(loadConfig({}, { RULES_TRUST_PROXY: '10.0.0.0/8,loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback']);
  });
});
