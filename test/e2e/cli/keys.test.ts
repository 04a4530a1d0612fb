import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../server/store/sqlite.js';
import { CLI } from '../../support/paths.js';
import { caller } from '../../support/admin.js';
import { testApp } from '../../support/app.js';

// `rules keys issue|list|revoke` as an operator runs it: a real process on a SQLite store.

const ENV_ADMIN_KEY = 'cli-test-env-admin-key-00000000000000000001';
const ENV_KEYS = JSON.stringify([{ id: 'env-admin', key: ENV_ADMIN_KEY, scopes: ['*'] }]);

const keys = (args: string[], env: Record<string, string> = {}) => execa('node', [CLI, 'keys', ...args], { reject: false, env: { NO_COLOR: '1', RULES_API_KEYS: '', ...env } });
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'rules-keys-cli-'));

describe('rules keys', () => {
  it('bootstraps an admin key that a daemon over the same data dir accepts', async () => {
    const dir = tempDir();
    const issued = await keys(['issue', '--id', 'ops-admin', '--scope', 'admin:keys', '--scope', 'admin:analytics', '--owner', 'ops', '--note', 'first key', '--rate-limit', '600/60', '--expires-at', '2099-01-01T00:00:00Z', '--data-dir', dir, '--json']);
    expect(issued.stderr).toBe('');
    expect(issued.exitCode).toBe(0);
    const out = JSON.parse(issued.stdout);
    expect(out.entry).toEqual({ id: 'ops-admin', prefix: out.key.slice(0, 12), scopes: ['admin:keys', 'admin:analytics'], status: 'active', created_at: out.entry.created_at, owner: 'ops', note: 'first key', expires_at: '2099-01-01T00:00:00.000Z', rate_limit: { requests: 600, window_seconds: 60 } });
    expect(out.durable).toBe(true);
    expect(readFileSync(path.join(dir, 'rules.db')).includes(Buffer.from(out.key))).toBe(false);

    const store = SqliteStore.open(path.join(dir, 'rules.db'));
    try {
      const { app } = await testApp({ RULES_API_KEYS: '' }, { store });
      const call = caller(app);
      const res = await call('GET', '/v1/admin/audit', { key: out.key });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(res.json().data.entries).toMatchObject([{ action: 'key.issued', target: 'ops-admin', actor: 'cli', client: null, request_id: expect.stringMatching(/^cli-/) }]);
    } finally {
      await store.close();
    }
  });

  it('prints the key once in text form and lists keys without key material', async () => {
    const dir = tempDir();
    const issued = await keys(['issue', '--id', 'reader-1', '--scope', 'rules:read', '--data-dir', dir]);
    expect(issued.exitCode).toBe(0);
    const raw = issued.stdout.split('\n').find((line) => line.startsWith('rk_live_'))!;
    expect(raw).toBeDefined();
    expect(issued.stdout).toMatch(/issued key reader-1 \(scopes: rules:read\)/);
    expect(issued.stdout).toMatch(/only once/);

    const text = await keys(['list', '--data-dir', dir], { RULES_API_KEYS: ENV_KEYS });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+SOURCE\s+STATUS/);
    expect(text.stdout).toMatch(/env-admin\s+environment\s+active\s+\*/);
    expect(text.stdout).toMatch(/reader-1\s+store\s+active\s+rules:read/);
    const json = await keys(['list', '--data-dir', dir, '--json'], { RULES_API_KEYS: ENV_KEYS });
    expect(JSON.parse(json.stdout).keys.map((k: { id: string; source: string }) => `${k.source}:${k.id}`)).toEqual(['environment:env-admin', 'store:reader-1']);
    for (const output of [text.stdout, json.stdout]) {
      expect(output).not.toContain(raw);
      expect(output).not.toContain(ENV_ADMIN_KEY);
    }
  });

  it('uses RULES_DATA_DIR when --data-dir is not given', async () => {
    const dir = tempDir();
    expect((await keys(['issue', '--id', 'from-env', '--scope', '*'], { RULES_DATA_DIR: dir })).exitCode).toBe(0);
    expect(JSON.parse((await keys(['list', '--json', '--data-dir', dir])).stdout).keys[0].id).toBe('from-env');
  });

  it('exits 1 on an id conflict with a store or environment key', async () => {
    const dir = tempDir();
    expect((await keys(['issue', '--id', 'taken', '--scope', '*', '--data-dir', dir])).exitCode).toBe(0);
    const again = await keys(['issue', '--id', 'taken', '--scope', 'rules:read', '--data-dir', dir]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stdout).toBe('');
    const env = await keys(['issue', '--id', 'env-admin', '--scope', 'rules:read', '--data-dir', dir], { RULES_API_KEYS: ENV_KEYS });
    expect(env.exitCode).toBe(1);
  });

  it.each([
    ['an invalid id', ['--id', 'Bad Id', '--scope', '*'], /^rules: --id: must match pattern/],
    ['a 2-character id', ['--id', 'ab', '--scope', '*'], /id/],
    ['an unknown scope', ['--id', 'valid-id', '--scope', 'everything'], /^rules: --scope: must be one of /],
    ['no scope', ['--id', 'valid-id'], /scope/],
    ['no id', ['--scope', '*'], /id/],
    ['a malformed rate limit', ['--id', 'valid-id', '--scope', '*', '--rate-limit', 'fast'], /rate-limit/],
    ['a zero rate limit', ['--id', 'valid-id', '--scope', '*', '--rate-limit', '0/60'], /^rules: --rate-limit \(requests\): must be >= 1$/m],
    ['an invalid expiry', ['--id', 'valid-id', '--scope', '*', '--expires-at', 'soon'], /^rules: --expires-at: must match format "date-time"$/m],
    ['a past expiry', ['--id', 'valid-id', '--scope', '*', '--expires-at', '2001-01-01T00:00:00Z'], /^rules: --expires-at: must lie in the future$/m],
    ['a long owner', ['--id', 'valid-id', '--scope', '*', '--owner', 'o'.repeat(121)], /^rules: --owner: must NOT have more than 120 characters$/m],
  ])('exits 2 on %s', async (_what, args, message) => {
    const dir = tempDir();
    const res = await keys(['issue', ...args, '--data-dir', dir]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/\b(body|key)\.[a-z_]/); // the CLI's flags, not the HTTP API's fields
    expect(res.stdout).toBe('');
  });

  it('exits 2 when RULES_API_KEYS is malformed or the store does not exist yet', async () => {
    const dir = tempDir();
    const bad = await keys(['issue', '--id', 'valid-id', '--scope', '*', '--data-dir', dir], { RULES_API_KEYS: '{not json' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/RULES_API_KEYS/);
    for (const args of [['list'], ['revoke', 'someone']]) {
      const res = await keys([...args, '--data-dir', path.join(dir, 'nowhere')]);
      expect(res.exitCode, args[0]).toBe(2);
      expect(res.stderr).toMatch(/no key store/);
    }
  });

  it('exits 2 rather than writing to SQLite when RULES_STORE names the Redis store', async () => {
    const dir = tempDir();
    const res = await keys(['issue', '--id', 'valid-id', '--scope', '*', '--data-dir', dir], { RULES_STORE: 'redis' });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/RULES_STORE is redis: .*POST \/v1\/admin\/keys/);
    expect(res.stdout).toBe('');
  });

  it('revokes store and environment keys, exits 1 for an unknown id, and audits with actor cli', async () => {
    const dir = tempDir();
    expect((await keys(['issue', '--id', 'keeper', '--scope', 'rules:read', '--data-dir', dir])).exitCode).toBe(0); // one key stays active
    const raw = JSON.parse((await keys(['issue', '--id', 'short-lived', '--scope', 'rules:read', '--data-dir', dir, '--json'])).stdout).key as string;
    const revoked = await keys(['revoke', 'short-lived', '--data-dir', dir, '--json']);
    expect(revoked.exitCode).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: 'short-lived', revoked: true, durable: true });
    const again = await keys(['revoke', 'short-lived', '--data-dir', dir]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/already revoked/);
    const unknown = await keys(['revoke', 'nobody', '--data-dir', dir]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no key with the id nobody/);
    const env = await keys(['revoke', 'env-admin', '--data-dir', dir], { RULES_API_KEYS: ENV_KEYS });
    expect(env.exitCode).toBe(0);
    expect(env.stdout).toMatch(/RULES_API_KEYS/);
    const listed = JSON.parse((await keys(['list', '--json', '--data-dir', dir], { RULES_API_KEYS: ENV_KEYS })).stdout).keys;
    expect(listed).toMatchObject([
      { id: 'env-admin', source: 'environment', status: 'revoked', runtime_revoked: true },
      { id: 'keeper', source: 'store', status: 'active', runtime_revoked: false },
      { id: 'short-lived', source: 'store', status: 'revoked', runtime_revoked: true },
    ]);

    const store = SqliteStore.open(path.join(dir, 'rules.db'));
    try {
      const { app } = await testApp({ RULES_API_KEYS: ENV_KEYS }, { store });
      const call = caller(app);
      expect((await call('GET', '/v1/programs', { key: raw })).statusCode).toBe(401);
      expect((await call('GET', '/v1/programs', { key: ENV_ADMIN_KEY })).statusCode).toBe(401);
      const audit = await store.audit(10);
      expect(audit.map((e) => `${e.action} ${e.target} ${e.actor}`)).toEqual(['key.revoked env-admin cli', 'key.revoked short-lived cli', 'key.issued short-lived cli', 'key.issued keeper cli']);
    } finally {
      await store.close();
    }
  });
});
