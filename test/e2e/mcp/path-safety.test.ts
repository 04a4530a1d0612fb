import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectAdapter, errorOf, KEYS, sendJson, startDaemon, stubApi, textOf, type Daemon, type StubApi } from './harness.js';

// Path parameters of the adapter's tools against a real daemon, with a key whose `*` scope would
// let a request that escaped its endpoint read /v1/admin/keys: every traversal is refused as a
// structured tool error before any request, and legitimate ids with `/` and `#` still work.

const TRAVERSALS = [
  '..',
  '.',
  '../admin/keys',
  '../../v1/admin/keys',
  'us/../../admin/keys',
  '%2e%2e',
  '%2E%2E/admin/keys',
  '..%2fadmin%2fkeys',
  '%2e%2e%2f%2e%2e%2fadmin%2fkeys',
  '%252e%252e/admin/keys',
  'us%2f..%2f..%2fadmin',
  '/v1/admin/keys',
  'a//b',
  '..\\admin\\keys',
  './admin',
];

/** Every tool with a path parameter, and its arguments with `value` in that parameter. */
const TOOLS: [string, (value: string) => Record<string, string>][] = [
  ['get_rule', (v) => ({ rule_id: v })],
  ['get_rule_sources', (v) => ({ rule_id: v })],
  ['get_rule_dependencies', (v) => ({ rule_id: v })],
  ['get_calculation_job', (v) => ({ job_id: v })],
  ['get_runtime_package (jurisdiction)', (v) => ({ jurisdiction: v, program_id: 'snap' })],
  ['get_runtime_package (program_id)', (v) => ({ jurisdiction: 'us', program_id: v })],
];
const toolName = (label: string) => label.split(' ')[0];

let daemon: Daemon;
let client: Client;

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connectAdapter({ SERVICE_API_BASE_URL: daemon.url, SERVICE_API_KEY: KEYS.all });
});

afterAll(async () => {
  await client?.close();
  await daemon?.stop();
});

describe('traversal through a path parameter', () => {
  it.each(TOOLS)('%s refuses every traversal input with a tool error, and reads nothing else', async (label, args) => {
    for (const value of TRAVERSALS) {
      const result = await callTool(client, toolName(label), args(value));
      const what = `${label} ${JSON.stringify(value)}: ${textOf(result).slice(0, 300)}`;
      expect(result.isError, what).toBe(true);
      // nothing of the key listing (or any other endpoint) came back
      expect(textOf(result), what).not.toMatch(/"keys"|"prefix"|"scopes"/);
      const structured = result.structuredContent as { error?: Record<string, unknown> } | undefined;
      if (structured?.error) {
        // refused by the adapter, not answered by the API
        expect(structured.error.http_status, what).toBeUndefined();
        expect(String(structured.error.message), what).toMatch(/the request was not sent/);
        expect(Object.keys(args(value))).toContain(structured.error.argument);
      } else {
        // the program id's declared pattern refuses it before the tool runs
        expect(label, what).toBe('get_runtime_package (program_id)');
        expect(textOf(result), what).toMatch(/invalid arguments/i);
      }
    }
  });

  it('names the argument and the reason', async () => {
    const error = errorOf(await callTool(client, 'get_rule', { rule_id: '../admin/keys' }));
    expect(error).toEqual({ argument: 'rule_id', message: 'rule_id: must not contain a `..` segment, encoded or not (it would leave the tool\'s endpoint), got "../admin/keys"; the request was not sent' });
    const encoded = errorOf(await callTool(client, 'get_calculation_job', { job_id: 'x%2F..%2Fadmin' }));
    expect(encoded).toMatchObject({ argument: 'job_id', message: expect.stringContaining('must be one path segment') });
  });

  it('the connection keeps serving, and legitimate ids with `/`, `#`, `:` and `.` still reach their endpoint', async () => {
    const rule = await callTool(client, 'get_rule', { rule_id: 'us:statutes/7/2017/a#snap_allotment' });
    expect(rule.isError, textOf(rule)).toBeFalsy();
    expect(rule.structuredContent).toMatchObject({ data: { rule: { id: 'us:statutes/7/2017/a#snap_allotment' } } });
    const dotted = await callTool(client, 'get_rule_sources', { rule_id: 'us-co:regulations/10-ccr-2506-1/section-4.407.31#snap_utility_allowance' });
    expect(dotted.isError, textOf(dotted)).toBeFalsy();
    const byPath = await callTool(client, 'get_rule_dependencies', { rule_id: 'us/statutes/7/2017/a/snap_allotment' });
    expect(byPath.isError, textOf(byPath)).toBeFalsy();
    const pkg = await callTool(client, 'get_runtime_package', { jurisdiction: 'us-co', program_id: 'co-snap' });
    expect(pkg.structuredContent).toMatchObject({ data: { package: { program_id: 'co-snap' } } });
    // an unknown job is the API's 404, not a refusal
    expect(errorOf(await callTool(client, 'get_calculation_job', { job_id: 'no-such-job' }))).toMatchObject({ http_status: 404 });
  });
});

describe('refused before any request', () => {
  let stub: StubApi;
  let stubbed: Client;
  beforeAll(async () => {
    stub = await stubApi((_request, response) => sendJson(response, 200, { status: 'ok', data: {}, meta: {} }));
    stubbed = await connectAdapter({ SERVICE_API_BASE_URL: stub.url, SERVICE_API_KEY: KEYS.all });
  });
  afterAll(async () => {
    await stubbed?.close();
    await stub?.close();
  });

  it('no traversal input makes the adapter send anything', async () => {
    for (const [label, args] of TOOLS) for (const value of TRAVERSALS) await callTool(stubbed, toolName(label), args(value));
    expect(stub.requests).toEqual([]);
    // and a legitimate id is sent encoded once, segment by segment
    await callTool(stubbed, 'get_rule_sources', { rule_id: 'us:statutes/7/2017/a#snap_allotment' });
    expect(stub.requests.map((r) => r.url)).toEqual(['/v1/rules/us%3Astatutes/7/2017/a%23snap_allotment/sources']);
  });
});
