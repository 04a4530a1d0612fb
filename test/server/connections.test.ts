import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../../server/config.js';
import { ConnectionGuard, descriptorWarning, serverOptions } from '../../server/connections.js';
import { proxyTrust } from '../../server/proxy-trust.js';
import { sleep } from '../support/lab.js';

// The connection limits on a real listening server: timeouts of the headers, of a pause in the
// body and of the whole request (408 in the envelope), the caps on open connections per client
// and in all, and one log line per client and minute.

const LIMITS: ConnectionLimits = { headersTimeoutMs: 400, bodyTimeoutMs: 300, requestTimeoutMs: 900, keepAliveTimeoutMs: 5_000, maxConnections: 40, maxConnectionsPerClient: 4 };

interface Server {
  app: FastifyInstance;
  port: number;
  logs: { msg: string; client?: string }[];
}

let server: Server | undefined;
afterEach(async () => {
  server?.app.server.closeAllConnections(); // a failed test may leave connections a closing server no longer times out
  await server?.app.close();
  server = undefined;
});

async function listen(limits: Partial<ConnectionLimits> = {}, trust: string[] | false = false): Promise<Server> {
  const all = { ...LIMITS, ...limits };
  const logs: Server['logs'] = [];
  const stream = new Writable({ write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk))), done()) });
  const guard = new ConnectionGuard(all, proxyTrust(trust), 'local');
  const app = Fastify({ ...serverOptions(all), logger: { level: 'warn', stream }, clientErrorHandler: (err, socket) => guard.clientError(err, socket) });
  guard.attach(app);
  app.post('/echo', async (request) => ({ got: request.body }));
  app.get('/hello', async () => ({ hello: true }));
  app.post('/slow', async () => (await sleep(all.bodyTimeoutMs * 2), { slow: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  server = { app, port: typeof address === 'object' && address ? address.port : 0, logs };
  return server;
}

/** A raw connection from `from`, with everything it receives and when it closed. */
function open(port: number, from = '127.0.0.1') {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  let received = '';
  socket.setEncoding('utf8').on('data', (d: string) => (received += d));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, ready, closed, received: () => received };
}

const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, sleep(ms).then(() => 'still open' as const)]);
const drip = (socket: Socket, every: number) => setInterval(() => socket.writable && socket.write('x'), every);

describe('time limits', () => {
  test('headers that do not arrive in time: 408 in the envelope, the connection closed, a log line naming the client', async () => {
    const { port, logs } = await listen();
    const c = open(port);
    await c.ready;
    c.socket.write('GET /hello HTTP/1.1\r\n');
    const started = Date.now();
    expect(await within(c.closed, 3_000)).not.toBe('still open');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(c.received().split('\r\n\r\n')[1]!).error.code).toBe('invalid_request');
    expect(logs.map((l) => l.msg)).toEqual([expect.stringMatching(/closed a connection from 127\.0\.0\.1: its request did not arrive in time .*RULES_HEADERS_TIMEOUT_MS/)]);
  });

  test('a connection that sends nothing is closed by the headers limit', async () => {
    const { port } = await listen();
    const c = open(port);
    expect(await within(c.closed, 3_000)).not.toBe('still open');
  });

  test('a body that pauses longer than the body limit is cut; one that keeps coming is cut at the request limit', async () => {
    const { port, logs } = await listen();
    const paused = open(port);
    await paused.ready;
    paused.socket.write('POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
    const steady = open(port, '127.0.0.3');
    await steady.ready;
    steady.socket.write('POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n');
    const timer = drip(steady.socket, 100); // never pauses 300 ms, never finishes
    const started = Date.now();
    const [pausedAt, steadyAt] = await Promise.all([within(paused.closed, 3_000), within(steady.closed, 3_000)]);
    clearInterval(timer);
    expect(pausedAt).not.toBe('still open');
    expect((pausedAt as number) - started).toBeLessThan(800);
    expect(paused.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(paused.received()).toContain('the request body paused for more than 300 ms');
    expect(steadyAt).not.toBe('still open');
    expect((steadyAt as number) - started).toBeGreaterThan(700);
    expect(steady.received()).toMatch(/^HTTP\/1\.1 408 /);
    const messages = logs.map((l) => l.msg);
    expect(messages).toContainEqual(expect.stringMatching(/^closed a connection from 127\.0\.0\.1: its request body paused for more than 300 ms \(RULES_BODY_TIMEOUT_MS\)$/));
    expect(messages).toContainEqual(expect.stringMatching(/^closed a connection from 127\.0\.0\.3: its request did not arrive in time/));
  });

  test('a complete request is answered as usual, and a slow handler is not cut by the body limit', async () => {
    const { port } = await listen();
    const body = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await body.json()).toEqual({ got: { a: 1 } });
    const slow = await fetch(`http://127.0.0.1:${port}/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await slow.json()).toEqual({ slow: true });
  });
});

describe('connection caps', () => {
  test('a client over its share is cut off and logged once; other clients are served', async () => {
    const { port, logs } = await listen({ headersTimeoutMs: 5_000, requestTimeoutMs: 5_000 });
    const held = Array.from({ length: 4 }, () => open(port, '127.0.0.2'));
    await Promise.all(held.map((c) => c.ready));
    const extra = Array.from({ length: 6 }, () => open(port, '127.0.0.2'));
    for (const c of extra) expect(await within(c.closed, 2_000)).not.toBe('still open');
    for (const c of held) expect(c.socket.destroyed).toBe(false);
    const other = await fetch(`http://127.0.0.1:${port}/hello`);
    expect(other.status).toBe(200);
    const lines = logs.filter((l) => l.msg.includes('RULES_MAX_CONNECTIONS_PER_CLIENT'));
    expect(lines).toEqual([expect.objectContaining({ client: '127.0.0.2', msg: 'client 127.0.0.2 holds its 4 open connections (RULES_MAX_CONNECTIONS_PER_CLIENT): its further connections are closed' })]);
    // a connection closed gives the share back (once the server has seen it close)
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(100);
    const again = open(port, '127.0.0.2');
    await again.ready;
    expect(await within(again.closed, 200)).toBe('still open');
    again.socket.destroy();
    for (const c of held) c.socket.destroy();
  });

  test('a trusted proxy is held to the total only; the total cap refuses further connections and is logged', async () => {
    const { port, logs } = await listen({ maxConnections: 6, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000 }, ['127.0.0.2']);
    const viaProxy = Array.from({ length: 6 }, () => open(port, '127.0.0.2'));
    await Promise.all(viaProxy.map((c) => c.ready));
    await sleep(100);
    for (const c of viaProxy) expect(c.socket.destroyed).toBe(false);
    const refused = open(port, '127.0.0.3');
    expect(await within(refused.closed, 2_000)).not.toBe('still open');
    expect(logs.map((l) => l.msg)).toContainEqual(expect.stringMatching(/^refused a connection from 127\.0\.0\.3: the daemon holds its 6 open connections \(RULES_MAX_CONNECTIONS\)$/));
    for (const c of viaProxy) c.socket.destroy();
  });
});

describe('serverOptions', () => {
  test('hands the limits to Node, checking for expired requests at least every second', () => {
    const options = serverOptions(DEFAULT_CONNECTION_LIMITS);
    expect(options).toMatchObject({ requestTimeout: 30_000, keepAliveTimeout: 72_000, http: { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 } });
    expect(serverOptions(LIMITS).http).toMatchObject({ connectionsCheckingInterval: 100 });
  });
});

describe('descriptorWarning', () => {
  test('warns when the cap leaves too few descriptors, and says nothing where the limit is unknown', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/limits-`)}/limits`;
    writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            4096                 4096                 files\n');
    expect(descriptorWarning({ ...DEFAULT_CONNECTION_LIMITS, maxConnections: 4000 }, file)).toBe(
      "RULES_MAX_CONNECTIONS (4000) leaves fewer than 256 of this process's 4096 file descriptors (ulimit -n) for everything else: lower it or raise the limit",
    );
    expect(descriptorWarning({ ...DEFAULT_CONNECTION_LIMITS, maxConnections: 3000 }, file)).toBeUndefined();
    expect(descriptorWarning(DEFAULT_CONNECTION_LIMITS, `${file}.missing`)).toBeUndefined();
  });
});
