import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, connectAdapter, errorOf, META, sendJson, stubApi, textOf, type StubApi } from './harness.js';

// How the adapter talks HTTP, against a local stub API: headers and paths, an API that is down,
// one that is too slow, and rate limits (retried once when short). After each failure the same
// connection keeps working.

const OK = { status: 'ok', data: { programs: [] }, meta: META };
const rateLimited = (seconds: number) => ({
  status: 'error',
  error: { code: 'rate_limited', message: `rate limit exceeded; retry in ${seconds} s` },
  meta: META,
  data: { retry_after_seconds: seconds },
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(handle: Parameters<typeof stubApi>[0]): Promise<StubApi> {
  const api = await stubApi(handle);
  cleanups.push(() => api.close());
  return api;
}

async function adapter(env: Record<string, string>): Promise<Client> {
  const client = await connectAdapter(env);
  cleanups.push(() => client.close());
  return client;
}

describe('rules mcp HTTP behaviour', () => {
  it('sends the key as a bearer token, strips trailing slashes and encodes rule ids segment by segment', async () => {
    const api = await stub((_request, response) => sendJson(response, 200, OK));
    const client = await adapter({ SERVICE_API_BASE_URL: `${api.url}//`, SERVICE_API_KEY: 'secret-key-1' });
    await callTool(client, 'get_rule_sources', { rule_id: 'us:statutes/7/2017/a#snap_allotment' });
    await callTool(client, 'get_runtime_package', { jurisdiction: 'us co', program_id: 'co-snap' });
    await callTool(client, 'run_parity_cases');
    expect(api.requests).toEqual([
      { method: 'GET', url: '/v1/rules/us%3Astatutes/7/2017/a%23snap_allotment/sources', authorization: 'Bearer secret-key-1' },
      { method: 'GET', url: '/v1/runtime/packages/us%20co/co-snap', authorization: 'Bearer secret-key-1' },
      { method: 'POST', url: '/v1/parity/run', authorization: 'Bearer secret-key-1' },
    ]);
  });

  it('an API that is down gives an error naming the URL and the cause; the connection recovers', async () => {
    const api = await stub((_request, response) => sendJson(response, 200, OK));
    await api.close();
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'k' });

    const failed = await callTool(client, 'list_programs');
    expect(failed.isError).toBe(true);
    const url = `${api.url}/v1/programs`;
    expect(textOf(failed)).toContain(url);
    expect(textOf(failed)).toContain('ECONNREFUSED');
    expect(errorOf(failed)).toMatchObject({ url, cause: expect.stringContaining('ECONNREFUSED') });

    await api.listen(); // the same port, now answering
    const next = await callTool(client, 'list_programs');
    expect(next.isError).toBeFalsy();
    expect(next.structuredContent).toEqual(OK);
  });

  it('a slow endpoint times out with an error naming the URL and the timeout; later calls work', async () => {
    const api = await stub((request, response) => {
      if (request.url === '/v1/capabilities') setTimeout(() => sendJson(response, 200, OK), 3000);
      else sendJson(response, 200, OK);
    });
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'k', SERVICE_API_TIMEOUT_MS: '300' });

    const started = Date.now();
    const failed = await callTool(client, 'get_capabilities');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain(`${api.url}/v1/capabilities`);
    expect(textOf(failed)).toMatch(/timed out.*300 ms/);
    expect(errorOf(failed)).toMatchObject({ url: `${api.url}/v1/capabilities`, timeout_ms: 300 });

    expect((await callTool(client, 'list_programs')).structuredContent).toEqual(OK);
  });

  it('a 429 with retry-after 1 is retried once after waiting, then succeeds', async () => {
    let calls = 0;
    const api = await stub((_request, response) => {
      calls += 1;
      if (calls === 1) sendJson(response, 429, rateLimited(1), { 'retry-after': '1' });
      else sendJson(response, 200, OK);
    });
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'k' });

    const started = Date.now();
    const result = await callTool(client, 'list_programs');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(OK);
    expect(api.requests).toHaveLength(2);
  });

  it('a 429 that persists is retried only once, then reported with retry_after', async () => {
    const api = await stub((_request, response) => sendJson(response, 429, rateLimited(1), { 'retry-after': '1' }));
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'k' });

    const result = await callTool(client, 'list_programs');
    expect(api.requests).toHaveLength(2);
    expect(errorOf(result)).toMatchObject({ http_status: 429, retry_after: 1, api_response: rateLimited(1) });
  });

  it('a 429 with retry-after 30 is not retried: structured error with retry_after 30; later calls work', async () => {
    const api = await stub((request, response) => {
      if (request.url === '/v1/programs') sendJson(response, 429, rateLimited(30), { 'retry-after': '30' });
      else sendJson(response, 200, OK);
    });
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'k' });

    const started = Date.now();
    const result = await callTool(client, 'list_programs');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toEqual({
      message: expect.stringContaining('rate_limited'),
      http_status: 429,
      api_response: rateLimited(30),
      retry_after: 30,
    });
    expect(api.requests).toHaveLength(1);

    expect((await callTool(client, 'get_capabilities')).structuredContent).toEqual(OK);
  });
});

describe('rules mcp JSON-RPC', () => {
  // Found by fuzzing (test/e2e/fuzz/mcp-tools.test.ts): `arguments: 0` came back as an internal
  // error (-32603), as if the adapter had failed, where the client sent invalid params.
  it('refuses a request whose params break the protocol as invalid params (-32602) naming the field; the connection stays usable', async () => {
    const api = await stub((_request, response) => sendJson(response, 200, OK));
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'secret-key-1' });
    const refused = await client.request({ method: 'tools/call', params: { name: 'list_programs', arguments: 0 } as never }, CallToolResultSchema).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/invalid params for tools\/call: params\.arguments: /) });
    expect(api.requests).toEqual([]);
    expect((await callTool(client, 'get_capabilities')).structuredContent).toEqual(OK);
  });

  it('refuses a resource uri that is no URI as invalid params (-32602), and an unknown one as not found (-32602)', async () => {
    const api = await stub((_request, response) => sendJson(response, 200, OK));
    const client = await adapter({ SERVICE_API_BASE_URL: api.url, SERVICE_API_KEY: 'secret-key-1' });
    const read = (uri: string) => client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema).catch((err: unknown) => err);
    expect(await read('not a uri')).toMatchObject({ code: -32602, message: expect.stringContaining('invalid params for resources/read: params.uri: not a URI: "not a uri"') });
    expect(await read('rules://nothing-here')).toMatchObject({ code: -32602, message: expect.stringMatching(/not found/) });
    expect(api.requests).toEqual([]);
    expect(await read('rules://capabilities')).toMatchObject({ contents: [{ uri: 'rules://capabilities' }] });
  });
});
