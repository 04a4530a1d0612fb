import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { KeyRegistry } from '../../server/auth/keys.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { ApiError } from '../../server/errors.js';
import type { AuditOrigin } from '../../server/keys/audit.js';
import { type IssueKeyRequest, issueKey, keyMetadata, revokeKey } from '../../server/keys/issue.js';
import { ajv, describeValidation } from '../../server/schemas.js';
import { openStore } from '../../server/start.js';
import { StoreUnavailableError, type Store } from '../../server/store/store.js';
import { EXIT_FAILURES, UsageError } from '../exit-codes.js';
import { collect } from '../options.js';
import { ensureWritableFolder, requireFolder } from '../os-errors.js';

// `rules keys issue|list|revoke`: manage API keys in the daemon's SQLite store directly, e.g. to
// bootstrap an operator's first admin key. Running daemons see a change within about 15 s.
// Exit 1 for an id conflict or an unknown id, 2 for usage errors.

interface StoreFlags {
  dataDir?: string;
  json?: boolean;
}

interface IssueFlags extends StoreFlags {
  id: string;
  scope: string[];
  owner?: string;
  note?: string;
  expiresAt?: string;
  rateLimit?: string;
}


/** Run `work` against the SQLite store of the data dir, with the environment keys beside it. */
async function withKeys<T>(flags: StoreFlags, mustExist: boolean, work: (store: Store, registry: KeyRegistry) => Promise<T>): Promise<T | undefined> {
  let config;
  try {
    config = loadConfig({ dataDir: flags.dataDir });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (config.store === 'redis') throw new UsageError('rules keys manages the SQLite store of a data dir, and RULES_STORE is redis: issue and revoke keys on a running daemon with POST /v1/admin/keys (an operator key in RULES_API_KEYS to start)');
  config = { ...config, store: 'sqlite' as const };
  const file = path.join(config.dataDir, 'rules.db');
  if (!mustExist) ensureWritableFolder(config.dataDir, '--data-dir');
  else if (existsSync(config.dataDir)) requireFolder(config.dataDir, '--data-dir');
  if (mustExist && !existsSync(file)) throw new UsageError(`no key store at ${file} (issue a key or start \`rules serve\` with this --data-dir first)`);
  let store: Store;
  try {
    store = await openStore(config);
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw new UsageError(err.message);
    throw err;
  }
  try {
    return await work(store, new KeyRegistry(config.apiKeys, store));
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'key_id_conflict' || err.code === 'not_found')) {
      process.stderr.write(`rules keys: ${err.message}\n`);
      process.exitCode = EXIT_FAILURES;
      return undefined;
    }
    if (err instanceof ApiError) throw new UsageError(inFlagTerms(err.message));
    if (err instanceof StoreUnavailableError) throw new UsageError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

/** The `rules keys issue` flag that fills each IssueKeyRequest field. */
const FLAG_OF: Record<string, string> = { id: '--id', scopes: '--scope', owner: '--owner', note: '--note', expires_at: '--expires-at', rate_limit: '--rate-limit' };

/** A message about a request field (`body.expires_at: …`, `key.rate_limit.requests: …`) in the
 *  CLI's own terms (`--expires-at: …`, `--rate-limit (requests): …`). */
function inFlagTerms(message: string): string {
  return message.replace(/^(?:body|key)\.([a-z_]+)((?:\[\d+\])?)(?:\.([a-z_.]+))?:/, (whole, field: string, _index: string, detail: string | undefined) =>
    FLAG_OF[field] ? `${FLAG_OF[field]}${detail ? ` (${detail})` : ''}:` : whole,
  );
}

const cliOrigin = (): AuditOrigin => ({ actor: 'cli', client: null, request_id: `cli-${randomUUID()}` });

/** The flags as an IssueKeyRequest, checked with the same schema as POST /v1/admin/keys. */
function issueRequest(flags: IssueFlags): IssueKeyRequest {
  let rateLimit: IssueKeyRequest['rate_limit'];
  if (flags.rateLimit !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(flags.rateLimit);
    if (!m) throw new UsageError(`--rate-limit must be REQUESTS/SECONDS (e.g. 120/60), got ${JSON.stringify(flags.rateLimit)}`);
    rateLimit = { requests: Number(m[1]), window_seconds: Number(m[2]) };
  }
  const request: IssueKeyRequest = { id: flags.id, scopes: flags.scope, owner: flags.owner, note: flags.note, expires_at: flags.expiresAt, rate_limit: rateLimit };
  const defined = Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined));
  const validate = ajv.getSchema('IssueKeyRequest')!;
  if (!validate(defined)) throw new UsageError(inFlagTerms(describeValidation(validate.errors, 'key')));
  return defined as unknown as IssueKeyRequest;
}

const print = (text: string) => process.stdout.write(`${text}\n`);

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("manage API keys in the daemon's SQLite store (--data-dir, RULES_DATA_DIR)");
  const dataDir = ['--data-dir <dir>', 'where the store lives (RULES_DATA_DIR; default .rules)'] as const;

  keys
    .command('issue')
    .description('issue a key and print it once (only its sha256 is stored)')
    .requiredOption('--id <id>', 'key id: 3-64 characters of a-z, 0-9, _ and -')
    .requiredOption('--scope <scope>', 'a scope, or * for every scope; repeatable', collect)
    .option('--owner <owner>', 'who holds the key (at most 120 characters)')
    .option('--note <note>', 'free text (at most 500 characters)')
    .option('--expires-at <date-time>', 'expiry, e.g. 2027-01-01T00:00:00Z')
    .option('--rate-limit <requests/seconds>', 'per-key rate limit, e.g. 600/60 (default 120/60)')
    .option(...dataDir)
    .option('--json', 'print the issued key as JSON')
    .action(async (flags: IssueFlags) => {
      const request = issueRequest(flags);
      await withKeys(flags, false, async (store, registry) => {
        const issued = await issueKey(store, registry, request, cliOrigin());
        if (flags.json) return print(JSON.stringify(issued, null, 2));
        print(`issued key ${issued.entry.id} (scopes: ${issued.entry.scopes.join(', ')})`);
        print(issued.key);
        print(issued.warning);
      });
    });

  keys
    .command('list')
    .description('list environment (RULES_API_KEYS) and store keys, without key material')
    .option(...dataDir)
    .option('--json', 'print the keys as JSON')
    .action(async (flags: StoreFlags) => {
      await withKeys(flags, true, async (_store, registry) => {
        const all = (await registry.all()).map(keyMetadata);
        if (flags.json) return print(JSON.stringify({ keys: all }, null, 2));
        if (!all.length) return print('no keys');
        print(table([['ID', 'SOURCE', 'STATUS', 'SCOPES', 'PREFIX', 'OWNER', 'EXPIRES'], ...all.map((k) => [k.id, k.source, k.status, k.scopes.join(','), k.prefix ?? '', k.owner ?? '', k.expires_at ?? ''])]));
      });
    });

  keys
    .command('revoke')
    .description('revoke a key (an environment key gets a runtime revocation)')
    .argument('<id>', 'key id')
    .option(...dataDir)
    .option('--json', 'print the result as JSON')
    .action(async (id: string, flags: StoreFlags) => {
      await withKeys(flags, true, async (store, registry) => {
        const result = await revokeKey(store, registry, id, cliOrigin());
        print(flags.json ? JSON.stringify(result, null, 2) : result.note);
      });
    });
}
