import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ignoredSettings, loadConfig, LOG_LEVELS, type ServeFlags, type ServerConfig } from '../../server/config.js';
import { DataDirBusyError } from '../../server/data-dir-lock.js';
import { type Daemon, startDaemon } from '../../server/start.js';
import { redactUrl } from '../../server/store/redis.js';
import { SchemaVersionError } from '../../server/store/sqlite.js';
import { StoreUnavailableError } from '../../server/store/store.js';
import { UsageError } from '../exit-codes.js';
import { readableLogStream } from '../log-format.js';
import { collect } from '../options.js';
import { ensureWritableFolder, isOsError, osReason, requireFolder } from '../os-errors.js';
import { requireCompiledOutput } from '../local-catalog.js';
import { untilStopSignal } from '../stop-signal.js';

// `rules serve`: the /v1 API daemon.

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the Rules API (/v1) from compiled rule packages')
    .option('--host <host>', 'address to listen on (RULES_HOST)', undefined)
    .option('--port <port>', 'port; 0 picks a free one (RULES_PORT)', undefined)
    .option('--data-dir <dir>', 'where the store and compiled output live (RULES_DATA_DIR)', undefined)
    .option('--compiled <dir>', 'serve this compiled output instead of compiling (RULES_COMPILED)', undefined)
    .option('--root <dir>', 'encoding root to compile and compose graphs from; repeatable (RULES_ROOT, path-list)', collect)
    .option('--runtime <mode>', 'compiled | fixture (RULES_RUNTIME)', undefined)
    .option('--store <kind>', 'sqlite | memory | redis (RULES_STORE)', undefined)
    .option('--watch', 'recompile and hot-reload packages when encodings change (RULES_WATCH=1)')
    .option('--log-level <level>', `${LOG_LEVELS.join(' | ')}; info logs one line per request (RULES_LOG_LEVEL)`, undefined)
    .addHelpText(
      'after',
      `
Defaults: 127.0.0.1:8080, data dir .rules, compiled runtime over the bundled encodings, SQLite store.
Logs go to stdout at --log-level info: one line per request, readable on a terminal, JSON lines
otherwise (RULES_LOG_FORMAT=readable|json|auto).
Other settings: RULES_ENVIRONMENT (local|dev|staging|production), RULES_API_KEYS (JSON array of
{id, key | key_sha256, scopes, rate_limit?, owner?, expires_at?}; raw keys of 32+ characters),
RULES_TRUST_PROXY (a hop count, or proxy addresses and CIDR ranges: whose x-forwarded-for hops are
believed), RULES_CORS_ORIGINS (comma-separated allowlist), RULES_CALCULATE_TIMEOUT_MS,
RULES_JOB_CONCURRENCY, RULES_MAX_PENDING_JOBS_PER_KEY (default 10 unfinished jobs per key),
RULES_TRIAL_DAILY_CAP, RULES_TRIAL_CLIENT_DAILY_CAP, RULES_SHUTDOWN_GRACE_MS
(default 10000: how long SIGTERM waits for requests in flight), RULES_INSTANCE_ID (default host-pid).
Connections: RULES_HEADERS_TIMEOUT_MS (10000), RULES_BODY_TIMEOUT_MS (10000, longest pause in a
body), RULES_REQUEST_TIMEOUT_MS (30000), RULES_KEEP_ALIVE_TIMEOUT_MS (72000), RULES_MAX_CONNECTIONS
(8192), RULES_MAX_CONNECTIONS_PER_CLIENT (128).
With --store redis, several daemons share keys, counters, jobs and analytics:
RULES_REDIS_URL (default redis://127.0.0.1:6379; rediss:// for TLS, a password as
redis://:PASSWORD@host:6379), RULES_REDIS_PREFIX (key prefix of this deployment, default rules:).`,
    )
    .action(async (flags: ServeFlags) => {
      let config;
      try {
        config = loadConfig(flags);
      } catch (err) {
        if (err instanceof ConfigError) throw new UsageError(err.message);
        throw err;
      }
      checkFolders(config);
      const say = (m: string) => process.stderr.write(`rules serve: ${m}\n`);
      for (const name of ignoredSettings(config)) say(`warning: ${name} is set but the store is ${config.store}, not redis: ignored`);
      let daemon: Daemon;
      try {
        daemon = await startDaemon(config, { logger: loggerOptions(config), log: say });
      } catch (err) {
        throw startFailure(err, config);
      }
      const catalog = daemon.ctx.catalog();
      if (!catalog.packages.length && config.roots.length && !config.compiled && config.runtime === 'compiled') {
        await daemon.stop();
        const failed = catalog.manifest.failures.length;
        throw new UsageError(`--root ${config.roots.join(', ')}: no program compiled (${failed ? `${failed} failed, see above` : 'program specs go under <root>/programs/<jurisdiction>/<program>/<period>.yaml'})`);
      }
      const stopRequested = untilStopSignal(); // before the banner announces the address
      say(`listening on ${daemon.url}`);
      say(`runtime ${catalog.mode}: ${catalog.packages.length} packages (${catalog.packages.map((p) => `${p.jurisdiction}/${p.program_id}`).slice(0, 6).join(', ')}${catalog.packages.length > 6 ? ', …' : ''}); ${catalog.rules.length} rules indexed`);
      say(`store ${storeBanner(config)}; instance ${config.instanceId}; environment ${config.environment}`);
      say(`get a trial key: curl -s -X POST ${daemon.url}/v1/keys/trial`);
      say(`API reference: ${daemon.url}/docs`);
      await stopRequested;
      say(`shutting down: finishing requests and running job entries (at most ${config.shutdownGraceMs} ms for requests, RULES_SHUTDOWN_GRACE_MS)`);
      const { graceExpired } = await daemon.stop();
      if (graceExpired) say('the grace period ended: connections still in flight were closed');
      say('stopped; pending job entries resume at the next start');
    });
}

/** Where the store lives, for the start-up banner (never a Redis password). */
function storeBanner(config: ServerConfig): string {
  if (config.store === 'sqlite') return `sqlite (${config.dataDir}/rules.db)`;
  if (config.redis) return `redis (${redactUrl(config.redis.url)}, prefix ${config.redis.prefix})`;
  return 'memory (not durable)';
}

/** The folders the flags name, checked before anything starts: one line and exit 2 each. */
function checkFolders(config: ServerConfig): void {
  if (config.compiled && config.runtime === 'fixture') throw new UsageError('--compiled serves compiled packages; it cannot be combined with --runtime fixture');
  ensureWritableFolder(config.dataDir, '--data-dir');
  for (const root of config.roots) requireFolder(root, '--root');
  if (config.compiled) requireCompiledOutput(config.compiled);
}

/** What stopped the daemon from starting, as one line when it is the machine's or the store's doing. */
function startFailure(err: unknown, config: ServerConfig): unknown {
  if (err instanceof StoreUnavailableError || err instanceof SchemaVersionError || err instanceof DataDirBusyError) return new UsageError(err.message);
  if (!isOsError(err)) return err;
  const where = `cannot listen on ${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') return new UsageError(`${where}: the port is in use (EADDRINUSE); stop what uses it or choose another --port (0 picks a free one)`);
  if (err.code === 'EACCES' && err.syscall === 'listen') return new UsageError(`${where}: permission denied (EACCES); ports below 1024 need privileges, choose another --port`);
  if (err.code === 'EADDRNOTAVAIL') return new UsageError(`${where}: --host ${config.host} is not an address of this machine (EADDRNOTAVAIL)`);
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return new UsageError(`--host ${config.host} does not resolve to an address (${err.code})`);
  return new UsageError(`could not start: ${err.path ? `${err.path}: ` : ''}${osReason(err)}`);
}

/** Pino options: the level, keys never logged, and one readable line per record on a terminal. */
function loggerOptions(config: ServerConfig): object {
  const readable = config.logFormat === 'readable' || (config.logFormat === 'auto' && Boolean(process.stdout.isTTY));
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
    ...(readable ? { stream: readableLogStream(process.stdout) } : {}),
  };
}
