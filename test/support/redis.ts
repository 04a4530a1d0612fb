import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

// A real redis-server (Debian's, installed by CI) on a free port in a temporary folder, for every
// test of the Redis store. `stop()` kills it and removes the folder; `restart()` starts it again
// on the same port and folder (with append-only persistence, what was written survives).

const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export interface RedisServer {
  port: number;
  url: string;
  dir: string;
  /** Kill the server (SIGKILL: an outage, not a clean shutdown) and wait for it to exit. */
  kill(): Promise<void>;
  /** Start it again on the same port and folder. */
  restart(): Promise<void>;
  /** Kill it and remove its folder. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Append-only file with fsync on every write (`appendfsync always`). */
  appendOnly?: boolean;
  /** Require this password (`requirepass`). */
  password?: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves once something accepts connections on `port`. */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'warning'];
  args.push(...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
  if (options.password) args.push('--requirepass', options.password);
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await waitForPort(port, child, () => output);
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await launch();
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    dir,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
