import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, serve, type Served } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';

// Operator keys (RULES_API_KEYS) as an operator meets them: short ones stop `rules serve` and
// `rules keys` at start-up, and listings show a fingerprint of the hash, never key characters.

const OPS_KEY = 'operator-keys-test-ops-key-000000001'; // 36 characters
const HASHED_KEY = 'operator-keys-test-hashed-key-00000001';
const sha256 = (raw: string) => createHash('sha256').update(raw).digest('hex');
const fingerprint = (raw: string) => `sha256:${sha256(raw).slice(0, 8)}`;
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'rules-operator-keys-'));
const KEYS = JSON.stringify([
  { id: 'ops', key: OPS_KEY, scopes: ['admin:keys'] },
  { id: 'hashed', key_sha256: sha256(HASHED_KEY), scopes: ['rules:read'] },
]);

const rules = (args: string[], env: Record<string, string>) => execa(process.execPath, [CLI, ...args], { reject: false, env: cleanEnv(env), extendEnv: false, timeout: 60_000 });

describe('operator keys shorter than 32 characters are refused at start-up', () => {
  const short = (key: string) => JSON.stringify([{ id: 'ops', key: OPS_KEY, scopes: ['*'] }, { id: 'weak', key, scopes: ['*'] }]);

  test.each([
    ['rules serve', ['serve', '--port', '0']],
    ['rules keys list', ['keys', 'list']],
  ])('%s: one line naming the key and the minimum, exit 2', async (_name, args) => {
    const res = await rules([...args, '--data-dir', tempDir()], { RULES_API_KEYS: short('short') });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe('rules: RULES_API_KEYS[1].key is 5 characters; operator keys need at least 32 (e.g. `openssl rand -hex 32`)');
  });

  test('31 characters are refused, 32 accepted', async () => {
    const refused = await rules(['keys', 'list', '--data-dir', tempDir()], { RULES_API_KEYS: short('k'.repeat(31)) });
    expect(refused.stderr).toMatch(/^rules: RULES_API_KEYS\[1\]\.key is 31 characters/);
    expect(refused.exitCode).toBe(2);
    const dir = tempDir();
    expect((await rules(['keys', 'issue', '--id', 'first', '--scope', '*', '--data-dir', dir], {})).exitCode).toBe(0);
    const accepted = await rules(['keys', 'list', '--data-dir', dir], { RULES_API_KEYS: short('k'.repeat(32)) });
    expect(accepted.stderr).toBe('');
    expect(accepted.exitCode).toBe(0);
  });

  test('a key with surrounding whitespace could never be presented: refused', async () => {
    const res = await rules(['serve', '--port', '0', '--data-dir', tempDir()], { RULES_API_KEYS: short(` ${'k'.repeat(40)}`) });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe('rules: RULES_API_KEYS[1].key starts or ends with whitespace, so no request could present it');
  });
});

describe('listings show operator keys by a fingerprint of their hash', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve({ env: { RULES_API_KEYS: KEYS } });
  });
  afterAll(async () => {
    expect(await served?.stop()).toBe(0);
  });

  test('GET /v1/admin/keys: `sha256:` and 8 hex digits, for `key` and `key_sha256` alike', async () => {
    const res = await fetch(`${served.url}/v1/admin/keys`, { headers: { 'x-api-key': OPS_KEY } });
    expect(res.status).toBe(200);
    const keys = ((await res.json()) as { data: { keys: { id: string; prefix?: string }[] } }).data.keys;
    expect(keys.map((k) => [k.id, k.prefix])).toEqual([
      ['ops', fingerprint(OPS_KEY)],
      ['hashed', fingerprint(HASHED_KEY)],
    ]);
    expect(JSON.stringify(keys)).not.toContain(OPS_KEY.slice(0, 4));
  });

  test('the OpenAPI document says what the prefix is', async () => {
    const doc = (await (await fetch(`${served.url}/v1/openapi.json`)).json()) as { components: { schemas: Record<string, any> } };
    expect(doc.components.schemas.ApiKeyMetadata.properties.prefix.description).toMatch(/Operator keys \(RULES_API_KEYS\): `sha256:` and the first 8 hex digits/);
  });

  test('rules keys list shows the same fingerprint', async () => {
    const res = await rules(['keys', 'list', '--data-dir', served.dataDir, '--json'], { RULES_API_KEYS: KEYS });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).keys.find((k: { id: string }) => k.id === 'ops').prefix).toBe(fingerprint(OPS_KEY));
  });
});
