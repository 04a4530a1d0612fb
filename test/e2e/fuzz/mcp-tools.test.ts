import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { connectServer, createMcpServer } from '../../../mcp/server.js';
import type { TestApp } from '../../support/app.js';
import { FUZZ_KEYS, fuzzApp } from './api.js';
import { itFuzz } from './harness.js';
import { editedDocument, oddValue } from './mutate.js';
import { arbitraryOf } from './schema-arbitrary.js';

// MCP tool arguments: the adapter's own server (mcp/server.ts, the one `rules mcp` serves on
// stdio) driven by the real SDK client over the SDK's in-memory transport (stdio adds a process
// per connection and nothing to argument handling; test/e2e/mcp covers it), against a real API
// listening on loopback. Arguments come from each tool's advertised input schema, mutated, or of
// any shape. Every call answers: a result, or a refusal as invalid params (-32602); never an
// internal error (-32603) or a dropped connection; an API failure is a tool error carrying the
// API's status (never a 500) and its error envelope.

let api: TestApp;
let client: Client;
let tools: Tool[];
const samples: unknown[] = [];

beforeAll(async () => {
  api = await fuzzApp();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = api.app.server.address() as AddressInfo;
  const server = createMcpServer({ baseUrl: `http://127.0.0.1:${port}`, apiKey: FUZZ_KEYS.all, timeoutMs: 30_000 }, '0.0.0');
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'rules-fuzz', version: '0.0.0' });
  await Promise.all([connectServer(server, serverSide), client.connect(clientSide)]);
  ({ tools } = await client.listTools());
  for (const p of api.ctx.catalog().packages) samples.push(api.ctx.catalog().package(p.jurisdiction, p.program_id)!.pkg.sample_request);
});
afterAll(async () => {
  await client?.close();
  await api.app.close();
});

const call = () =>
  fc.integer({ min: 0, max: tools.length }).chain((i) => {
    const tool = tools[i];
    if (!tool) return fc.record({ name: fc.constantFrom('nope', '', 'get_rule '), args: fc.dictionary(fc.string(), oddValue, { maxKeys: 2 }) });
    const valid = arbitraryOf(tool.inputSchema as Record<string, unknown>);
    const calculation = tool.name === 'calculate_household' ? [{ weight: 4, arbitrary: fc.constantFrom(...samples).chain((s) => fc.oneof(fc.constant(s), editedDocument(s))) }] : [];
    const args = fc.oneof({ weight: 6, arbitrary: valid }, { weight: 3, arbitrary: valid.chain((v) => editedDocument(v)) }, { weight: 1, arbitrary: oddValue }, ...calculation);
    return fc.record({ name: fc.constant(tool.name), args });
  });

describe('fuzz: MCP tool arguments', () => {
  itFuzz('mcp-tools', { share: 0.05, small: 200 }, call, async ({ name, args }) => {
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
    } catch (err) {
      // arguments that are not an object are refused before any tool sees them
      expect((err as { code?: number }).code, String(err)).toBe(-32602);
      return;
    }
    const first = result.content[0];
    expect(first?.type).toBe('text');
    const text = first?.type === 'text' ? first.text : '';
    expect(text, 'an internal error').not.toMatch(/-32603/);
    if (!result.isError) {
      expect(result.structuredContent).toMatchObject({ status: 'ok', meta: { request_id: expect.any(String) } });
      return;
    }
    if (!result.structuredContent) return expect(text).toMatch(/^MCP error -32602: /); // refused by the tool's schema
    const error = (result.structuredContent as { error: { message: string; http_status?: number; api_response?: unknown } }).error;
    expect(error.message, JSON.stringify(error)).toEqual(expect.any(String));
    if (error.http_status !== undefined) {
      expect(error.http_status, error.message).not.toBe(500);
      expect(error.api_response).toMatchObject({ status: 'error', error: { code: expect.any(String) } });
    }
  });
});
