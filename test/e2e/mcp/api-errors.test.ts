import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectAdapter, errorOf, KEYS, startDaemon, textOf, type Daemon } from './harness.js';

// API rejections from a real daemon arrive as tool results (isError) carrying a structured error,
// and the connection keeps serving afterwards.

let daemon: Daemon;

beforeAll(async () => {
  daemon = await startDaemon();
});

afterAll(async () => {
  await daemon?.stop();
});

describe('rules mcp API rejections', () => {
  it('a key without the scope gets a structured 403 insufficient_scope; the next call works', async () => {
    const client = await connectAdapter({ SERVICE_API_BASE_URL: daemon.url, SERVICE_API_KEY: KEYS.reader });
    try {
      const rejected = await callTool(client, 'get_rule_sources', { rule_id: 'us:statutes/7/2017/a#snap_allotment' });
      expect(rejected.isError).toBe(true);
      const error = errorOf(rejected);
      expect(error).toMatchObject({
        http_status: 403,
        api_response: { status: 'error', error: { code: 'insufficient_scope' }, meta: { api_version: '0.1.0' } },
      });
      expect(error.message).toContain('sources:read');
      expect(error).not.toHaveProperty('retry_after');
      expect(JSON.parse(textOf(rejected))).toEqual(rejected.structuredContent);

      const next = await callTool(client, 'get_rule', { rule_id: 'us:statutes/7/2017/a#snap_allotment' });
      expect(next.isError).toBeFalsy();
      expect(next.structuredContent).toMatchObject({ status: 'ok', data: { rule: { id: 'us:statutes/7/2017/a#snap_allotment' } } });
    } finally {
      await client.close();
    }
  });

  it('without a key it starts, and protected tools get a structured 401 unauthorized', async () => {
    const client = await connectAdapter({ SERVICE_API_BASE_URL: daemon.url });
    try {
      for (const name of ['get_capabilities', 'list_parity_cases']) {
        const rejected = await callTool(client, name);
        expect(rejected.isError).toBe(true);
        expect(errorOf(rejected)).toMatchObject({ http_status: 401, api_response: { status: 'error', error: { code: 'unauthorized' } } });
        expect(errorOf(rejected).message).toMatch(/SERVICE_API_KEY/);
      }
      expect((await client.listTools()).tools).toHaveLength(14);
    } finally {
      await client.close();
    }
  });

  it('API validation errors (400) come back structured, with the API message', async () => {
    const client = await connectAdapter({ SERVICE_API_BASE_URL: daemon.url, SERVICE_API_KEY: KEYS.all });
    try {
      const rejected = await callTool(client, 'calculate_household', { program_id: 'snap', jurisdiction: 'us', household: { facts: { household_size: -3 } } });
      expect(rejected.isError).toBe(true);
      expect(errorOf(rejected)).toMatchObject({ http_status: 400, api_response: { error: { code: 'invalid_household' } } });
      expect(errorOf(rejected).message).toContain('household.facts.household_size');

      // a batch item the adapter's typed schema refuses never reaches the API
      const untyped = await callTool(client, 'calculate_batch', { requests: [{ program_id: 'snap' }] });
      expect(untyped.isError).toBe(true);
      expect(textOf(untyped)).toMatch(/invalid arguments/i);
      expect(textOf(untyped)).toMatch(/jurisdiction|household/);

      const unknown = await callTool(client, 'get_rule', { rule_id: 'us:nowhere/1#nothing' });
      expect(errorOf(unknown)).toMatchObject({ http_status: 404, api_response: { error: { code: 'not_found' } } });

      expect((await callTool(client, 'list_programs')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
