import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serve } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';

// `rules mcp` driven by the real SDK client over stdio, against a real `rules serve` daemon or a
// small local HTTP stub (for timeouts and rate limits the daemon cannot be made to produce on cue).

export const KEYS = {
  all: 'mcp-test-key-all-00000000000000000001',
  reader: 'mcp-test-key-reader-00000000000000000001',
};

const DAEMON_KEYS = JSON.stringify([
  { id: 'all', key: KEYS.all, scopes: ['*'] },
  { id: 'reader', key: KEYS.reader, scopes: ['rules:read'] },
]);

export interface Daemon {
  url: string;
  stop(): Promise<void>;
}

/** `rules serve` on a free port with an in-memory store. */
export async function startDaemon(): Promise<Daemon> {
  const served = await serve({ args: ['--store', 'memory'], env: { RULES_API_KEYS: DAEMON_KEYS } });
  return {
    url: served.url,
    async stop() {
      await served.stop();
    },
  };
}

/** An MCP client connected to a fresh `rules mcp` process with exactly this SERVICE_API_* environment. */
export async function connectAdapter(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'rules-mcp-test', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, stderr: 'pipe' }));
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of content[0], which every adapter result has. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${JSON.stringify(result.content)}`);
  return first.text;
}

/** `structuredContent.error` of a failed call. */
export function errorOf(result: CallToolResult): Record<string, unknown> {
  return (result.structuredContent as { error: Record<string, unknown> }).error;
}

export interface StubApi {
  url: string;
  port: number;
  /** Every request seen, in order. */
  requests: { method: string; url: string; authorization?: string }[];
  listen(port?: number): Promise<void>;
  close(): Promise<void>;
}

/** A local stand-in for the API; `handle` answers each request. */
export async function stubApi(handle: (request: IncomingMessage, response: ServerResponse) => void, port = 0): Promise<StubApi> {
  let server: Server | undefined;
  const stub: StubApi = {
    url: '',
    port,
    requests: [],
    async listen(onPort = stub.port) {
      server = createServer((request, response) => {
        stub.requests.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization });
        handle(request, response);
      });
      await new Promise<void>((resolve) => server!.listen(onPort, '127.0.0.1', resolve));
      stub.port = (server.address() as AddressInfo).port;
      stub.url = `http://127.0.0.1:${stub.port}`;
    },
    async close() {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    },
  };
  await stub.listen();
  return stub;
}

/** Answers like the API: a success or error envelope as JSON. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export const META = { request_id: 'stub', api_version: '0.1.0', environment: 'local' };
