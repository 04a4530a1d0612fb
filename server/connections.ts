import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ConnectionLimits } from './config.js';
import { API_VERSION, type Environment } from './envelope.js';
import { heldBack, LogThrottle } from './log-throttle.js';

// What one client may cost the daemon in connections and time, so that no unauthenticated client
// can hold it: the request line and headers, the body (no long pause in it) and the whole request
// each have a time limit, an idle connection between requests is closed, and open connections
// are capped in all and per client address (a trusted proxy's connections carry many clients
// and are held to the total only). A client cut off is logged once per minute, naming its address.

/** The options Fastify passes to Node's HTTP server for these limits. */
export function serverOptions(limits: ConnectionLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & { http: object } {
  return {
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // how often Node looks for requests past their limits: a quarter of the shortest, at most 1 s
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: 0, // no idle limit while a handler works: the time limits above are the client's
  };
}

/** A complete HTTP error answer in the API's envelope, written straight to a socket. */
function rawAnswer(status: number, reason: string, message: string, environment: Environment): string {
  const id = randomUUID();
  const body = JSON.stringify({ status: 'error', error: { code: 'invalid_request', message }, meta: { request_id: id, api_version: API_VERSION, environment } });
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\nx-request-id: ${id}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

type Warn = (fields: object, message: string) => void;

export class ConnectionGuard {
  private readonly open = new Map<string, number>();
  private readonly throttle = new LogThrottle();
  private warn: Warn = () => undefined;

  constructor(
    private readonly limits: ConnectionLimits,
    /** Whether a socket's peer is a trusted proxy (hop 0 of proxy-trust.ts). */
    private readonly isProxy: (address: string, hop: number) => boolean,
    private readonly environment: Environment,
  ) {}

  /** Fastify's `clientErrorHandler`: requests Node's HTTP parser ends before they reach a route. */
  clientError(err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const { headersTimeoutMs: headers, requestTimeoutMs: request } = this.limits;
      this.report(`timeout:${socket.remoteAddress}`, socket.remoteAddress, `closed a connection from ${socket.remoteAddress}: its request did not arrive in time (headers within ${headers} ms, RULES_HEADERS_TIMEOUT_MS; the whole request within ${request} ms, RULES_REQUEST_TIMEOUT_MS)`);
      this.answer(socket, 408, 'Request Timeout', `the request did not arrive in time: the headers must arrive within ${headers} ms and the whole request within ${request} ms`);
      return;
    }
    this.answer(socket, 400, 'Bad Request', `the HTTP request is malformed (${err.code ?? 'parse error'})`);
  }

  /** Install the limits on the app's server; `app.log` names the clients cut off. */
  attach(app: FastifyInstance): void {
    this.warn = (fields, message) => app.log.warn(fields, message);
    const server = app.server;
    server.maxConnections = this.limits.maxConnections;
    server.on('drop', (peer?: { remoteAddress?: string }) =>
      this.report('total', peer?.remoteAddress, `refused a connection from ${peer?.remoteAddress ?? 'a client'}: the daemon holds its ${this.limits.maxConnections} open connections (RULES_MAX_CONNECTIONS)`),
    );
    server.on('connection', (socket: Socket) => this.admit(socket));
    // a body that stops arriving is cut after the pause limit; once it is in, the handler's own
    // time limits apply (the calculation timeout), not this one
    // (requests injected without a socket, in tests, have no time to lose)
    app.addHook('onRequest', async (request) => {
      const raw = request.raw;
      if (raw.complete || !(raw.socket instanceof Socket)) return;
      raw.setTimeout(this.limits.bodyTimeoutMs, () => {
        this.report(`body:${request.ip}`, request.ip, `closed a connection from ${request.ip}: its request body paused for more than ${this.limits.bodyTimeoutMs} ms (RULES_BODY_TIMEOUT_MS)`);
        this.answer(raw.socket, 408, 'Request Timeout', `the request body paused for more than ${this.limits.bodyTimeoutMs} ms`);
      });
    });
    app.addHook('preValidation', async (request) => {
      if (request.raw.socket instanceof Socket) request.raw.socket.setTimeout(0);
    });
  }

  /** Count a new connection against its client's share, or close it when the share is used up. */
  private admit(socket: Socket): void {
    const address = socket.remoteAddress;
    if (!address || this.isProxy(address, 0)) return;
    const count = this.open.get(address) ?? 0;
    if (count >= this.limits.maxConnectionsPerClient) {
      this.report(`share:${address}`, address, `client ${address} holds its ${this.limits.maxConnectionsPerClient} open connections (RULES_MAX_CONNECTIONS_PER_CLIENT): its further connections are closed`);
      socket.destroy();
      return;
    }
    this.open.set(address, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left > 0) this.open.set(address, left);
      else this.open.delete(address);
    });
  }

  private report(subject: string, client: string | undefined, message: string): void {
    const held = this.throttle.admit(subject);
    if (held !== null) this.warn({ client, held_back: held }, `${message}${heldBack(held)}`);
  }

  private answer(socket: Socket | undefined, status: number, reason: string, message: string): void {
    if (!socket || socket.destroyed) return;
    if (socket.writable) socket.end(rawAnswer(status, reason, message, this.environment));
    // a client that reads nothing must not keep the socket open by not draining the answer
    setTimeout(() => socket.destroy(), 1_000).unref();
  }
}

/**
 * A warning when the connection cap is not below what the process may open (Linux: the soft
 * `ulimit -n`): past that, accepting fails for everyone before the cap protects anyone.
 */
export function descriptorWarning(limits: ConnectionLimits, limitsFile = '/proc/self/limits'): string | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined; // not Linux: nothing to compare with
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  // the store, the compiled packages and Node itself need descriptors too
  const reserve = 256;
  if (soft && limits.maxConnections + reserve > Number(soft)) {
    return `RULES_MAX_CONNECTIONS (${limits.maxConnections}) leaves fewer than ${reserve} of this process's ${soft} file descriptors (ulimit -n) for everything else: lower it or raise the limit`;
  }
  return undefined;
}
