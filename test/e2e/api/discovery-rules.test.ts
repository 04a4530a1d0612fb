import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auth, KEYS, testApp, type TestApp } from '../../support/app.js';
import { API_VERSION, expectError, expectOk, GENEROUS_KEYS, LAB, labOutput } from '../../support/lab.js';

// Rules API, "Endpoints › Discovery and rules": capabilities, programs, runtime packages and
// their graphs, composed graphs, search, and rules with their sources and dependencies.

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ RULES_API_KEYS: GENEROUS_KEYS });
});
afterAll(async () => {
  await t.app.close();
});

const get = async (url: string, key = KEYS.all) => t.app.inject({ method: 'GET', url, headers: auth(key) });
const search = async (payload: unknown) => t.app.inject({ method: 'POST', url: '/v1/search', headers: auth(KEYS.read), payload: payload as object });
const enc = (id: string) => id.replace(/#/g, '%23');

const DEP_STATUS = ['ready', 'degraded', 'unavailable'];
const RULE_ID = 'us:statutes/7/2017/a#snap_allotment';
const RULE_PATH = 'us/statutes/7/2017/a/snap_allotment';
const LEGAL_ID = /^[a-z][a-z0-9-]*:[a-z0-9][^#\s]*(#[^#\s]+)?$/;

const SUMMARY_KEYS = ['id', 'citation_path', 'name', 'jurisdiction', 'program_id', 'document_class', 'status', 'source_count'];
const PACKAGE_SUMMARY_KEYS = ['program_id', 'jurisdiction', 'runtime_id', 'mode', 'status', 'default_outputs'];

function expectRuleSummary(r: Record<string, unknown>) {
  for (const k of SUMMARY_KEYS.filter((k) => k !== 'source_count' && k !== 'status')) expect(typeof r[k], k).toBe('string');
  expect(['encoded', 'source-linked', 'planned']).toContain(r.status);
  expect(Number.isInteger(r.source_count)).toBe(true);
  expect(r.citation_path).toContain('/');
}

function expectPackageSummary(p: Record<string, unknown>) {
  for (const k of ['program_id', 'jurisdiction', 'runtime_id']) expect(typeof p[k], k).toBe('string');
  expect(['fixture', 'compiled']).toContain(p.mode);
  expect(['ready', 'unavailable']).toContain(p.status);
  expect(Array.isArray(p.default_outputs)).toBe(true);
  for (const k of ['output_count', 'entity_count', 'input_count']) if (p[k] !== undefined) expect(Number.isInteger(p[k]), k).toBe(true);
}

function expectProgramGraph(g: Record<string, unknown[]>) {
  for (const k of ['rules', 'inputs', 'relations', 'ownOutputs', 'terminalOutputs']) expect(Array.isArray(g[k]), k).toBe(true);
  for (const r of g.rules as Record<string, unknown>[]) {
    for (const k of ['legalId', 'name', 'fileLegalId']) expect(typeof r[k], k).toBe('string');
    expect(r.legalId).toMatch(LEGAL_ID);
    expect(r.fileLegalId).not.toContain('#');
    expect(['derived', 'parameter']).toContain(r.kind);
    for (const k of ['entity', 'dtype', 'period', 'unit', 'source', 'sourceUrl', 'formula']) expect(r[k] === null || typeof r[k] === 'string', `${k} of ${r.legalId}`).toBe(true);
    for (const k of ['ruleDeps', 'inputDeps', 'relationDeps']) expect(Array.isArray(r[k]) && (r[k] as unknown[]).every((x) => typeof x === 'string'), k).toBe(true);
  }
  for (const i of g.inputs as Record<string, unknown>[]) {
    for (const k of ['legalId', 'name', 'fileLegalId', 'entity']) expect(typeof i[k], k).toBe('string');
    if (i.relationLegalId !== undefined) expect(typeof i.relationLegalId).toBe('string');
  }
  // relations too are named `jurisdiction:bucket/path#name`, inside the file that declares (or, for
  // one no module declares, first aggregates over) them, and every reference to one names one listed
  const relationIds = new Set<unknown>();
  for (const r of g.relations as Record<string, unknown>[]) {
    for (const k of ['legalId', 'name', 'fileLegalId']) expect(typeof r[k], k).toBe('string');
    expect(r.legalId).toMatch(LEGAL_ID);
    expect(r.fileLegalId).toMatch(LEGAL_ID);
    expect(r.legalId).toBe(`${r.fileLegalId}#relation.${r.name}`);
    expect(Array.isArray(r.memberInputIds)).toBe(true);
    relationIds.add(r.legalId);
  }
  expect(relationIds.size).toBe(g.relations.length);
  for (const r of g.rules as { relationDeps: string[] }[]) for (const rel of r.relationDeps) expect(relationIds.has(rel), rel).toBe(true);
  for (const i of g.inputs as { relationLegalId?: string }[]) if (i.relationLegalId) expect(relationIds.has(i.relationLegalId), i.relationLegalId).toBe(true);
  // terminal outputs: outputs nothing else consumes
  const consumed = new Set((g.rules as { ruleDeps: string[] }[]).flatMap((r) => r.ruleDeps));
  for (const out of g.terminalOutputs as string[]) expect(consumed.has(out), out).toBe(false);
}

describe('GET /v1/capabilities', () => {
  let caps: any;
  beforeAll(async () => {
    caps = expectOk(await get('/v1/capabilities', KEYS.read));
  });

  test('api_version, environment, openapi_url and the endpoint paths', async () => {
    expect(caps.api_version).toBe(API_VERSION);
    expect(caps.environment).toBe('local');
    expect(typeof caps.openapi_url).toBe('string');
    const doc = await t.app.inject({ method: 'GET', url: caps.openapi_url });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toMatch(/^3\.1/);
    for (const k of ['programs', 'search', 'rules', 'calculate', 'runtime_packages', 'parity_cases', 'parity_run']) {
      expect(typeof caps.endpoints[k], k).toBe('string');
      expect(caps.endpoints[k]).toMatch(/^\/v1\//);
    }
  });

  test('repository: source, status and program_count matching /v1/programs', async () => {
    expect(typeof caps.repository.source).toBe('string');
    expect(DEP_STATUS).toContain(caps.repository.status);
    const programs = expectOk(await get('/v1/programs')).programs;
    expect(caps.repository.program_count).toBe(programs.length);
  });

  test('runtime: package summaries and one sample_request per package', async () => {
    const rt = caps.runtime;
    expect(typeof rt.name).toBe('string');
    expect(DEP_STATUS).toContain(rt.status);
    if (rt.detail !== undefined) expect(typeof rt.detail).toBe('string');
    expect(rt.package_count).toBe(rt.packages.length);
    expect(rt.packages.length).toBeGreaterThanOrEqual(4);
    rt.packages.forEach(expectPackageSummary);
    const ids = (xs: { program_id: string; jurisdiction: string }[]) => xs.map((p) => `${p.jurisdiction}/${p.program_id}`).sort();
    expect(ids(rt.sample_requests)).toEqual(ids(rt.packages));
    const listed = expectOk(await get('/v1/runtime/packages')).packages;
    expect(ids(rt.packages)).toEqual(ids(listed));
  });

  test('each sample_request computes through POST /v1/calculate', async () => {
    for (const s of caps.runtime.sample_requests) {
      expect(s.sample_request.program_id).toBe(s.program_id);
      expect(s.sample_request.jurisdiction).toBe(s.jurisdiction);
      const data = expectOk(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: s.sample_request }));
      expect(data.program_id).toBe(s.program_id);
      expect(data.jurisdiction).toBe(s.jurisdiction);
      expect(Object.keys(data.outputs).length).toBeGreaterThan(0);
    }
  });
});

describe('GET /v1/programs', () => {
  test('ProgramSummary[]', async () => {
    const programs = expectOk(await get('/v1/programs', KEYS.read)).programs;
    expect(programs.length).toBeGreaterThan(0);
    for (const p of programs) {
      for (const k of ['id', 'name', 'jurisdiction', 'description']) expect(typeof p[k], k).toBe('string');
      expect(Number.isInteger(p.rule_count)).toBe(true);
      expect(['available', 'partial', 'planned']).toContain(p.status);
    }
    expect(programs.map((p: { jurisdiction: string }) => p.jurisdiction)).toEqual(expect.arrayContaining(['us', 'us-co', 'us-ny', 'us-ca']));
  });
});

describe('runtime packages', () => {
  test('GET /v1/runtime/packages: RuntimePackageSummary[] with compiled mode', async () => {
    const packages = expectOk(await get('/v1/runtime/packages', KEYS.read)).packages;
    expect(packages.map((p: { jurisdiction: string; program_id: string }) => `${p.jurisdiction}/${p.program_id}`).sort()).toEqual(['us-ca/ca-snap', 'us-co/co-snap', 'us-ny/ny-snap', 'us/snap']);
    for (const p of packages) {
      expectPackageSummary(p);
      expect(p.mode).toBe('compiled');
    }
  });

  test('GET /v1/runtime/packages/{jurisdiction}/{program_id}: RuntimePackageDetail', async () => {
    const pkg = expectOk(await get('/v1/runtime/packages/us/snap', KEYS.read)).package;
    expectPackageSummary(pkg);
    expect(pkg).toMatchObject({ program_id: 'snap', jurisdiction: 'us' });
    for (const k of PACKAGE_SUMMARY_KEYS) expect(pkg).toHaveProperty(k);
    expect(pkg.default_period).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
    for (const o of pkg.outputs) {
      expect(typeof o.name).toBe('string');
      if (o.legal_id !== undefined) expect(o.legal_id).toMatch(LEGAL_ID);
      if (o.alias_for !== undefined) expect(pkg.outputs.map((x: { name: string }) => x.name)).toContain(o.alias_for);
    }
    for (const name of pkg.default_outputs) expect(pkg.outputs.map((x: { name: string }) => x.name)).toContain(name);
    expect(pkg.entities.length).toBeGreaterThan(0);
    for (const e of pkg.entities) {
      expect(typeof e.entity).toBe('string');
      expect(typeof e.id_template).toBe('string');
      if (e.count !== undefined) expect(Number.isInteger(e.count)).toBe(true);
      if (e.count_from !== undefined) expect(typeof e.count_from).toBe('string');
      for (const i of e.inputs) {
        expect(typeof i.name).toBe('string');
        expect(typeof i.dtype).toBe('string');
      }
      for (const r of e.relations ?? []) {
        expect(typeof r.name).toBe('string');
        expect(Array.isArray(r.tuple)).toBe(true);
      }
    }
    const inputs = new Set(pkg.entities.flatMap((e: { inputs: { name: string }[] }) => e.inputs.map((i) => i.name)));
    for (const [alias, canonical] of Object.entries(pkg.household_aliases)) expect(inputs.has(canonical), `${alias} → ${canonical}`).toBe(true);
    const outputs = new Set(pkg.outputs.map((o: { name: string }) => o.name));
    for (const [alias, canonical] of Object.entries(pkg.output_aliases)) expect(outputs.has(canonical), `${alias} → ${canonical}`).toBe(true);
    expect(pkg.sample_request).toMatchObject({ program_id: 'snap', jurisdiction: 'us' });
    expect(typeof pkg.sample_request.household).toBe('object');
  });

  test('the detail sample_request computes, and aliases are accepted as documented', async () => {
    const pkg = expectOk(await get('/v1/runtime/packages/us-co/co-snap')).package;
    expectOk(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: pkg.sample_request }));
    const [alias, canonical] = Object.entries(pkg.output_aliases)[0] as [string, string];
    const data = expectOk(await t.app.inject({ method: 'POST', url: '/v1/calculate', headers: auth(KEYS.calc), payload: { ...pkg.sample_request, variables: [alias, canonical] } }));
    expect(data.outputs[alias]).toEqual(data.outputs[canonical]);
  });

  test.each(['/v1/runtime/packages/us/medicaid', '/v1/runtime/packages/us-tx/snap', '/v1/runtime/packages/snap/us'])('404 not_found for an unknown package: %s', async (url) => {
    expectError(await get(url, KEYS.read), 404, 'not_found');
  });

  test('GET …/graph: the ProgramGraph of the compiled package', async () => {
    const graph = expectOk(await get('/v1/runtime/packages/us/snap/graph', KEYS.read)).graph;
    expectProgramGraph(graph);
    expect(graph.rules.length).toBeGreaterThan(5);
    expect(graph.ownOutputs).toContain(RULE_ID);
    expect(graph.terminalOutputs).toContain(RULE_ID);
  });

  test.each(['/v1/runtime/packages/us/medicaid/graph', '/v1/runtime/packages/us-tx/snap/graph'])('404 not_found for the graph of an unknown package: %s', async (url) => {
    expectError(await get(url, KEYS.read), 404, 'not_found');
  });

  describe('program ids derived from program paths with slashes', () => {
    let lab: TestApp;
    beforeAll(async () => {
      lab = await testApp({}, { compiled: labOutput() });
    });
    afterAll(async () => {
      await lab.app.close();
    });
    const labGet = (url: string) => lab.app.inject({ method: 'GET', url, headers: auth(KEYS.read) });

    test('are slugs, listed, served in detail and graph, and 404 when truncated, extended or given as the path', async () => {
      const listed = expectOk(await labGet('/v1/runtime/packages')).packages.map((p: { program_id: string }) => p.program_id);
      expect(listed.sort()).toEqual([LAB.math, LAB.slow].sort());
      const pkg = expectOk(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/${LAB.math}`)).package;
      expect(pkg).toMatchObject({ program_id: LAB.math, jurisdiction: LAB.jurisdiction });
      expectProgramGraph(expectOk(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/${LAB.math}/graph`)).graph);
      expectError(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/zz`), 404, 'not_found');
      expectError(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/${LAB.math}/extra`), 404, 'not_found');
      expectError(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/lab/math`), 404, 'not_found');
      expectError(await labGet(`/v1/runtime/packages/${LAB.jurisdiction}/lab%2Fmath`), 404, 'not_found');
    });
  });
});

describe('GET /v1/graph/compose', () => {
  test('a rule focus: its dependency cone', async () => {
    const data = expectOk(await get(`/v1/graph/compose?focus=${enc(RULE_ID)}`, KEYS.read));
    expectProgramGraph(data.graph);
    expect(data.graph.rules.map((r: { legalId: string }) => r.legalId)).toContain(RULE_ID);
    expect(data.files).toContain('us:statutes/7/2017/a');
    expect(data.files.every((f: unknown) => typeof f === 'string')).toBe(true);
    expect(data.truncated).toBe(false);
  });

  test('a file focus: its import closure', async () => {
    const data = expectOk(await get('/v1/graph/compose?focus=us:statutes/7/2017/a', KEYS.read));
    expectProgramGraph(data.graph);
    expect(data.files).toContain('us:statutes/7/2017/a');
    expect(data.files.length).toBeGreaterThan(1);
    expect(typeof data.truncated).toBe('boolean');
    expect(data.graph.rules.some((r: { fileLegalId: string }) => r.fileLegalId === 'us:statutes/7/2017/a')).toBe(true);
  });

  test.each(['garbage', 'us statutes', '%23snap_allotment'])('400 invalid_request for an invalid focus: %s', async (focus) => {
    expectError(await get(`/v1/graph/compose?focus=${focus}`, KEYS.read), 400, 'invalid_request');
  });

  test('400 invalid_request without focus', async () => {
    expectError(await get('/v1/graph/compose', KEYS.read), 400, 'invalid_request');
    expectError(await get('/v1/graph/compose?focus=', KEYS.read), 400, 'invalid_request');
  });

  test.each(['us:statutes/9/9/9', 'us-tx:policies/none', 'us:statutes/9/9/9%23some_rule'])('404 not_found when no encoded file exists: %s', async (focus) => {
    expectError(await get(`/v1/graph/compose?focus=${focus}`, KEYS.read), 404, 'not_found');
  });

  test('503 when no encoding mirror is configured', async () => {
    const { app } = await testApp({}, { tree: null });
    const res = await app.inject({ method: 'GET', url: `/v1/graph/compose?focus=${enc(RULE_ID)}`, headers: auth(KEYS.read) });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.status).toBe('error');
    expect(['store_unavailable', 'not_ready']).toContain(body.error.code);
    await app.close();
  });
});

describe('POST /v1/search', () => {
  const ids = (data: { results: { id: string }[] }) => data.results.map((r) => r.id);

  test('SearchResults: the trimmed query and RuleSummary[]', async () => {
    const data = expectOk(await search({ query: '   snap allotment \t ' }));
    expect(data.query).toBe('snap allotment');
    expect(data.results.length).toBeGreaterThan(0);
    for (const r of data.results) {
      expectRuleSummary(r);
      expect(Object.keys(r)).toEqual(expect.arrayContaining(SUMMARY_KEYS));
    }
  });

  test('every token must match over id, citation path, name, summary or symbols', async () => {
    const data = expectOk(await search({ query: 'shelter deduction', limit: 50 }));
    expect(data.results.length).toBeGreaterThan(0);
    for (const r of data.results) {
      const rule = expectOk(await get(`/v1/rules/${enc(r.id)}`)).rule;
      const text = [rule.id, rule.citation_path, rule.name, rule.summary, ...rule.symbols].join(' ').toLowerCase();
      expect(text, r.id).toContain('shelter');
      expect(text, r.id).toContain('deduction');
    }
    expect(expectOk(await search({ query: 'snap zzqqxxnothing' })).results).toEqual([]);
  });

  test('tokens shorter than 2 characters are ignored', async () => {
    const plain = expectOk(await search({ query: 'snap allotment' }));
    const noisy = expectOk(await search({ query: 'snap x allotment q' }));
    expect(ids(noisy)).toEqual(ids(plain));
    expect(noisy.query).toBe('snap x allotment q');
  });

  test('a query with no token of 2+ characters constrains nothing: every rule matches, up to the limit', async () => {
    const res = expectOk(await search({ query: 'a b', limit: 5 }));
    expect(res.results).toHaveLength(5);
  });

  test('matching is case-insensitive', async () => {
    expect(ids(expectOk(await search({ query: 'SNAP Allotment' })))).toEqual(ids(expectOk(await search({ query: 'snap allotment' }))));
  });

  test.each([
    ['one character', { query: 'a' }],
    ['one character after trimming', { query: '  a  ' }],
    ['blank', { query: '     ' }],
    ['empty', { query: '' }],
    ['over 500 characters', { query: 'a'.repeat(501) }],
    ['missing', { limit: 5 }],
    ['not a string', { query: 42 }],
  ])('400 invalid_request for a query that is %s', async (_name, body) => {
    expectError(await search(body), 400, 'invalid_request');
  });

  test('a query of exactly 500 characters is accepted', async () => {
    const query = `${'snap '.repeat(99)}snaps`;
    expect(query.length).toBe(500);
    expectOk(await search({ query }));
  });

  test('limit: default 20, clamped to 1-50', async () => {
    expect(expectOk(await search({ query: 'snap' })).results).toHaveLength(20);
    expect(expectOk(await search({ query: 'snap', limit: 7 })).results).toHaveLength(7);
    expect(expectOk(await search({ query: 'snap', limit: 50 })).results).toHaveLength(50);
    expect(expectOk(await search({ query: 'snap', limit: 51 })).results).toHaveLength(50);
    expect(expectOk(await search({ query: 'snap', limit: 100000 })).results).toHaveLength(50);
    expect(expectOk(await search({ query: 'snap', limit: 0 })).results).toHaveLength(1);
    expect(expectOk(await search({ query: 'snap', limit: -12 })).results).toHaveLength(1);
  });

  test.each(['1e400', '-1e400'])('a non-finite limit (%s in raw JSON) is 400 invalid_request', async (raw) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/search', headers: { ...auth(KEYS.read), 'content-type': 'application/json' }, payload: `{"query": "snap", "limit": ${raw}}` });
    expectError(res, 400, 'invalid_request');
  });

  test('jurisdiction filters exactly', async () => {
    const co = expectOk(await search({ query: 'snap', jurisdiction: 'us-co', limit: 50 })).results;
    expect(co.length).toBeGreaterThan(0);
    expect(co.every((r: { jurisdiction: string }) => r.jurisdiction === 'us-co')).toBe(true);
    const us = expectOk(await search({ query: 'snap', jurisdiction: 'us', limit: 50 })).results;
    expect(us.length).toBeGreaterThan(0);
    expect(us.every((r: { jurisdiction: string }) => r.jurisdiction === 'us')).toBe(true);
    expect(expectOk(await search({ query: 'snap', jurisdiction: 'us-' })).results).toEqual([]);
    expect(expectOk(await search({ query: 'snap', jurisdiction: 'u' })).results).toEqual([]);
  });

  test('program_id filters exactly', async () => {
    const snap = expectOk(await search({ query: 'allotment', program_id: 'snap', limit: 50 })).results;
    expect(snap.length).toBeGreaterThan(0);
    expect(snap.every((r: { program_id: string }) => r.program_id === 'snap')).toBe(true);
    expect(expectOk(await search({ query: 'allotment', program_id: 'sna' })).results).toEqual([]);
    expect(expectOk(await search({ query: 'allotment', program_id: 'medicaid' })).results).toEqual([]);
  });

  test('jurisdiction and program_id: at most 120 characters', async () => {
    expectOk(await search({ query: 'snap', jurisdiction: 'j'.repeat(120), program_id: 'p'.repeat(120) }));
    expectError(await search({ query: 'snap', jurisdiction: 'j'.repeat(121) }), 400, 'invalid_request');
    expectError(await search({ query: 'snap', program_id: 'p'.repeat(121) }), 400, 'invalid_request');
  });
});

describe('rules', () => {
  function expectRuleDetail(rule: Record<string, unknown>) {
    expectRuleSummary(rule);
    expect(typeof rule.summary).toBe('string');
    for (const k of ['symbols', 'dependencies', 'dependents']) expect(Array.isArray(rule[k]) && (rule[k] as unknown[]).every((x) => typeof x === 'string'), k).toBe(true);
    expect(rule.version).toBe('current');
    const prov = rule.provenance as Record<string, unknown>;
    for (const k of ['rulespec_repo', 'rulespec_path', 'rulespec_branch', 'source_release']) expect(typeof prov[k], k).toBe('string');
  }

  test('GET /v1/rules/{stable id} with # sent as %23: RuleDetail', async () => {
    const rule = expectOk(await get(`/v1/rules/${enc(RULE_ID)}`, KEYS.read)).rule;
    expectRuleDetail(rule);
    expect(rule.id).toBe(RULE_ID);
    expect(rule.citation_path).toBe(RULE_PATH);
    expect(rule.symbols).toContain('snap_allotment');
  });

  test('GET /v1/rules/{citation path with slashes} is the same rule', async () => {
    const byId = expectOk(await get(`/v1/rules/${enc(RULE_ID)}`)).rule;
    expect(expectOk(await get(`/v1/rules/${RULE_PATH}`, KEYS.read)).rule).toEqual(byId);
    // and with the slashes percent-encoded
    expect(expectOk(await get(`/v1/rules/${encodeURIComponent(RULE_PATH)}`, KEYS.read)).rule).toEqual(byId);
  });

  test('every indexed rule is retrievable by id and citation path, with its sources and dependencies', async () => {
    const programs = expectOk(await get('/v1/programs')).programs as { jurisdiction: string; rule_count: number }[];
    const all: { id: string; citation_path: string }[] = [];
    for (const jurisdiction of new Set(programs.map((p) => p.jurisdiction))) {
      // every rule id contains its jurisdiction, so this query matches each of them
      all.push(...expectOk(await search({ query: jurisdiction, jurisdiction, limit: 50 })).results);
    }
    expect(all.length).toBeGreaterThanOrEqual(programs.reduce((n, p) => Math.max(n, p.rule_count), 0));
    const ids = new Set(all.map((r) => r.id));
    for (const r of all) {
      const byId = expectOk(await get(`/v1/rules/${enc(r.id)}`)).rule;
      expect(byId.id).toBe(r.id);
      expect(expectOk(await get(`/v1/rules/${r.citation_path}`)).rule.id).toBe(r.id);
      expect(expectOk(await get(`/v1/rules/${enc(r.id)}/sources`)).rule.id).toBe(r.id);
      expect(expectOk(await get(`/v1/rules/${r.citation_path}/dependencies`)).rule.id).toBe(r.id);
      // dependencies and dependents name rules that exist
      for (const other of [...byId.dependencies, ...byId.dependents]) {
        if (!ids.has(other)) expect((await get(`/v1/rules/${enc(other)}`)).statusCode, `${r.id} → ${other}`).toBe(200);
      }
    }
  });

  test('GET …/sources: {rule: RuleSummary, sources: SourceReference[]}', async () => {
    for (const url of [`/v1/rules/${enc(RULE_ID)}/sources`, `/v1/rules/${RULE_PATH}/sources`]) {
      const data = expectOk(await get(url));
      expect(Object.keys(data).sort()).toEqual(['rule', 'sources']);
      expectRuleSummary(data.rule);
      expect(data.rule.id).toBe(RULE_ID);
      expect(data.sources.length).toBeGreaterThan(0);
      expect(data.rule.source_count).toBe(data.sources.length);
      for (const s of data.sources) {
        for (const k of ['id', 'citation_path', 'label']) expect(typeof s[k], k).toBe('string');
        expect(s.url === null || typeof s.url === 'string').toBe(true);
        expect(s.quote === null || typeof s.quote === 'string').toBe(true);
        expect(['official', 'derived', 'repository']).toContain(s.source_type);
      }
    }
  });

  test('GET …/dependencies: {rule: RuleSummary, dependencies, dependents}, consistent in both directions', async () => {
    const data = expectOk(await get(`/v1/rules/${enc(RULE_ID)}/dependencies`));
    expect(Object.keys(data).sort()).toEqual(['dependencies', 'dependents', 'rule']);
    expectRuleSummary(data.rule);
    const detail = expectOk(await get(`/v1/rules/${enc(RULE_ID)}`)).rule;
    expect(data.dependencies).toEqual(detail.dependencies);
    expect(data.dependents).toEqual(detail.dependents);
    expect(data.dependencies.length).toBeGreaterThan(0);
    for (const dep of data.dependencies) {
      const other = expectOk(await get(`/v1/rules/${enc(dep)}/dependencies`)).dependents;
      expect(other, dep).toContain(RULE_ID);
    }
    for (const dependent of data.dependents) {
      expect(expectOk(await get(`/v1/rules/${enc(dependent)}/dependencies`)).dependencies, dependent).toContain(RULE_ID);
    }
    expect(expectOk(await get(`/v1/rules/${RULE_PATH}/dependencies`))).toEqual(data);
  });

  test.each(['us:statutes/9/9%23nothing', 'us/statutes/9/9/nothing', 'nothing', 'us:statutes/7/2017/a', `${enc(RULE_ID)}x`])('404 not_found for unknown rule %s, and its sources and dependencies', async (id) => {
    expectError(await get(`/v1/rules/${id}`), 404, 'not_found');
    expectError(await get(`/v1/rules/${id}/sources`), 404, 'not_found');
    expectError(await get(`/v1/rules/${id}/dependencies`), 404, 'not_found');
  });
});
