import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectAdapter, KEYS, startDaemon, textOf, type Daemon } from './harness.js';

// Every tool, called with a key holding `*`, against a real daemon: each returns the API's success
// envelope, as pretty JSON text and as the identical structuredContent.

interface SampleRequest {
  program_id: string;
  jurisdiction: string;
  sample_request: Record<string, unknown>;
}

let daemon: Daemon;
let client: Client;
let samples: SampleRequest[];

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connectAdapter({ SERVICE_API_BASE_URL: daemon.url, SERVICE_API_KEY: KEYS.all });
  samples = (dataOf(await succeeds('get_capabilities')) as { runtime: { sample_requests: SampleRequest[] } }).runtime.sample_requests;
  expect(samples.length).toBeGreaterThan(0);
});

afterAll(async () => {
  await client?.close();
  await daemon?.stop();
});

async function succeeds(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = await callTool(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ status: 'ok', meta: { api_version: '0.1.0' } });
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  expect(textOf(result)).toBe(JSON.stringify(result.structuredContent, null, 2));
  return result;
}

const dataOf = (result: CallToolResult) => (result.structuredContent as { data: unknown }).data;

describe('rules mcp tools against the daemon (scope *)', () => {
  it('get_capabilities returns the manifest with endpoints and sample requests', async () => {
    const data = dataOf(await succeeds('get_capabilities')) as { endpoints: Record<string, string>; runtime: { package_count: number } };
    expect(data.endpoints.parity_run).toBe('/v1/parity/run');
    expect(data.runtime.package_count).toBe(samples.length);
  });

  it('list_programs and list_runtime_packages return their lists', async () => {
    expect((dataOf(await succeeds('list_programs')) as { programs: unknown[] }).programs.length).toBeGreaterThan(0);
    const packages = (dataOf(await succeeds('list_runtime_packages')) as { packages: { program_id: string; jurisdiction: string }[] }).packages;
    expect(packages.map((p) => `${p.jurisdiction}/${p.program_id}`)).toEqual(samples.map((s) => `${s.jurisdiction}/${s.program_id}`));
  });

  it('get_runtime_package returns one package detail', async () => {
    const { jurisdiction, program_id } = samples[0];
    const data = dataOf(await succeeds('get_runtime_package', { jurisdiction, program_id })) as { package: { jurisdiction: string; program_id: string; entities: unknown[] } };
    expect(data.package).toMatchObject({ jurisdiction, program_id });
    expect(data.package.entities.length).toBeGreaterThan(0);
  });

  it('search_rules, then get_rule, get_rule_sources and get_rule_dependencies by the id found (with # and /)', async () => {
    const search = dataOf(await succeeds('search_rules', { query: 'snap allotment', limit: 5 })) as { query: string; results: { id: string; citation_path: string }[] };
    expect(search.query).toBe('snap allotment');
    expect(search.results.length).toBeGreaterThan(0);
    expect(search.results.length).toBeLessThanOrEqual(5);
    const { id, citation_path } = search.results[0];
    expect(id).toMatch(/#/);
    expect(id).toMatch(/\//);

    expect(dataOf(await succeeds('get_rule', { rule_id: id }))).toMatchObject({ rule: { id } });
    // a citation path addresses the same rule
    expect(dataOf(await succeeds('get_rule', { rule_id: citation_path }))).toMatchObject({ rule: { id } });
    const sources = dataOf(await succeeds('get_rule_sources', { rule_id: id })) as { rule: { id: string }; sources: unknown[] };
    expect(sources.rule.id).toBe(id);
    expect(sources.sources.length).toBeGreaterThan(0);
    const dependencies = dataOf(await succeeds('get_rule_dependencies', { rule_id: id })) as { rule: { id: string }; dependencies: string[]; dependents: string[] };
    expect(dependencies.rule.id).toBe(id);
    expect(Array.isArray(dependencies.dependencies)).toBe(true);
  });

  it('calculate_household runs a sample request and returns outputs with a trace', async () => {
    const request = samples[0].sample_request;
    const data = dataOf(await succeeds('calculate_household', request)) as { engine: string; outputs: Record<string, unknown>; trace: unknown[] };
    expect(data.engine).toBe('rules');
    expect(Object.keys(data.outputs).sort()).toEqual([...(request.variables as string[])].sort());
    expect(data.trace.length).toBeGreaterThan(0);
  });

  it('calculate_household explains as the API does, and refuses assumptions as a tool error carrying the list', async () => {
    // one person earning 5,200 in Colorado: ineligible (gross limit 1,696, 7 CFR 273.9(a)(1))
    const request = { program_id: 'co-snap', jurisdiction: 'us-co', household: { period: '2026-03', facts: { earned_income: 5200 }, people: { a: { age: 35 } } }, variables: ['snap_income_eligible'], explain: true };
    const data = dataOf(await succeeds('calculate_household', request)) as { explanation: { outputs: { deciding: { name: string }[] }[] }; assumptions: unknown[] };
    const direct = await fetch(`${daemon.url}/v1/calculate`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.all}`, 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(data.explanation).toEqual(((await direct.json()) as { data: { explanation: unknown } }).data.explanation);
    expect(data.explanation.outputs[0].deciding.map((d) => d.name)).toContain('snap_passes_gross_income_test');
    const refused = await callTool(client, 'calculate_household', { ...request, explain: false, assumptions: 'refuse' });
    expect(refused.isError).toBe(true);
    const error = (refused.structuredContent as { error: { http_status: number; api_response: { error: { code: string; assumptions: unknown[] } } } }).error;
    expect(error.http_status).toBe(400);
    expect(error.api_response.error.code).toBe('invalid_household');
    expect(error.api_response.error.assumptions).toEqual(data.assumptions);
  });

  it('calculate_batch runs every sample request', async () => {
    const data = dataOf(await succeeds('calculate_batch', { requests: samples.map((s) => s.sample_request) })) as { summary: unknown; results: { status: string }[] };
    expect(data.summary).toEqual({ total: samples.length, succeeded: samples.length, failed: 0 });
    expect(data.results.every((r) => r.status === 'ok')).toBe(true);
  });

  it('submit_calculation_job, then get_calculation_job until it succeeds', async () => {
    const submitted = await succeeds('submit_calculation_job', { requests: samples.map((s) => s.sample_request) });
    const { job_id, total } = dataOf(submitted) as { job_id: string; total: number };
    expect(total).toBe(samples.length);
    let job: { status: string; results?: { status: string }[] } = { status: 'pending' };
    for (let wait = 100; job.status !== 'succeeded' && job.status !== 'failed'; wait = Math.min(wait * 2, 1000)) {
      job = dataOf(await succeeds('get_calculation_job', { job_id })) as typeof job;
      if (job.status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, wait));
    }
    expect(job.status).toBe('succeeded');
    expect(job.results).toHaveLength(samples.length);
  });

  it('list_parity_cases returns the canonical cases', async () => {
    const data = dataOf(await succeeds('list_parity_cases')) as { cases: { id: string }[] };
    expect(data.cases.length).toBeGreaterThan(0);
  });

  it('run_parity_cases runs them (POST /v1/parity/run, no arguments)', async () => {
    const data = dataOf(await succeeds('run_parity_cases')) as { summary: { total: number }; results: unknown[]; skipped_cases: unknown[] };
    expect(data.summary.total).toBeGreaterThan(0);
    expect(Array.isArray(data.results)).toBe(true);
    expect(Array.isArray(data.skipped_cases)).toBe(true);
  });

  it('rejects arguments outside the declared limits before calling the API', async () => {
    for (const [name, args] of [
      ['search_rules', { query: 'x' }],
      ['search_rules', { query: 'snap', limit: 51 }],
      ['calculate_batch', { requests: [] }],
      ['calculate_batch', { requests: Array.from({ length: 26 }, () => samples[0].sample_request) }],
      ['calculate_household', { program_id: 'snap', jurisdiction: 'us' }],
      // closed schemas: an argument a tool does not define is refused, not ignored
      ['get_rule', { rule_id: 'us:statutes/7/2017/a#snap_allotment', as_of: '2024-01-01' }],
      ['list_programs', { jurisdiction: 'us' }],
      ['calculate_household', { program_id: 'snap', jurisdiction: 'us', household: {}, variabels: ['snap_allotment'] }],
      ['calculate_batch', { requests: [{ program_id: 'snap', jurisdiction: 'us', household: {}, extra: true }] }],
      ['get_runtime_package', { jurisdiction: 'us-co', program_id: 'us-co/snap' }],
    ] as const) {
      const result = await callTool(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(textOf(result)).toMatch(/invalid arguments/i);
    }
  });
});
