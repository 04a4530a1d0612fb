import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PROGRAM_ID_PATTERN } from '../compiler/4-package/program-id.js';
import { apiPath, PathArgumentError } from './api-path.js';
import type { ApiClient, ApiOutcome, ApiRequest } from './http.js';

// The 14 tools of the Rules API's stdio adapter. Each forwards one request and returns the API
// envelope as it came: pretty JSON in content[0].text and the same object in structuredContent.
// Argument limits mirror the API's, so most mistakes are caught before a request is spent.

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** Successes carry the envelope; failures carry `{error}` and `isError`, so the connection stays usable. */
export function toolResult(outcome: ApiOutcome): CallToolResult {
  const structured = outcome.ok ? outcome.envelope : { error: outcome.error };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
    ...(outcome.ok ? {} : { isError: true }),
  };
}

const ruleId = z
  .string()
  .min(1)
  .describe('A stable rule id such as `us:statutes/7/2017/a#snap_allotment`, or a citation path such as `us/statutes/7/2017/a/snap_allotment` (as returned by search_rules)');
const programId = z
  .string()
  .regex(PROGRAM_ID_PATTERN)
  .describe('Program id from list_runtime_packages, a URL slug such as `snap` or `co-snap`');
const jurisdiction = z.string().min(1).max(120).describe('Jurisdiction from list_runtime_packages, e.g. `us` or `us-co`');
const household = z
  .record(z.string(), z.unknown())
  .describe(
    "Free-form household object. Conventions (all optional; omitted inputs take package defaults): `entities` (entity, then the entity id the package detail gives, then input: the form of get_runtime_package's sample_request), `facts` (flat inputs such as household_size), `people` (person id -> inputs), `spm_units` (unit id -> unit inputs), `period` (`YYYY-MM`), `relations` (advanced). Input names are exactly those get_runtime_package lists; an unknown input is rejected (400 invalid_household), an unknown key is reported in warnings.",
  );
const variables = z.array(z.string().max(200)).max(100).describe("Output variables to compute (at most 100); default: the package's default_outputs");
const assumptions = z
  .enum(['allow', 'refuse'])
  .describe(
    '`allow` (default): answer, listing in `data.assumptions` every input the answer read that the household does not give (with the default used and the `field` to give it under). `refuse`: answer 400 invalid_household with that list in `error.assumptions` instead, to ask exactly those questions and try again.',
  );
const explain = z.boolean().describe('Add `data.explanation`: for each output the tree of rules, dated figures and inputs it came from, and for a false or zero output the tests that decided it, with citations.');
/** One calculation, as calculate_household takes it. */
const calculateRequest = z.object({ program_id: programId, jurisdiction, household, variables: variables.optional(), assumptions: assumptions.optional(), explain: explain.optional() }).strict();
const calculateRequests = (max: number) =>
  z
    .array(calculateRequest)
    .min(1)
    .max(max)
    .describe(`1-${max} calculations {program_id, jurisdiction, household, variables?}, each shaped like calculate_household's arguments; the API checks every entry before running any`);
/** Closed input schemas: an argument the tool does not define is refused, not ignored. */
const closed = <T extends z.ZodRawShape>(shape: T) => z.object(shape).strict();
const NO_ARGUMENTS = closed({});

export function registerTools(server: McpServer, api: ApiClient): void {
  const forward = async (request: ApiRequest) => toolResult(await api.call(request));
  /** A GET of a path built from arguments: refused as a tool error when an argument would leave the endpoint. */
  const getPath = async (template: string, values: Record<string, string>, slashed: string[] = []) => {
    let path: string;
    try {
      path = apiPath(template, values, slashed);
    } catch (err) {
      if (err instanceof PathArgumentError) return toolResult({ ok: false, error: { message: err.message, argument: err.argument } });
      throw err;
    }
    return forward({ method: 'GET', path });
  };

  server.registerTool(
    'get_capabilities',
    {
      title: 'API capabilities',
      description:
        'Start here. Returns the capabilities manifest: API version, environment, endpoint paths, rule repository status, the calculation runtime with its executable packages, and one ready-to-run `sample_request` per package (usable as calculate_household arguments). Needs scope rules:read.',
      inputSchema: NO_ARGUMENTS,
      annotations: READ_ONLY,
    },
    async () => forward({ method: 'GET', path: '/v1/capabilities' }),
  );

  server.registerTool(
    'list_programs',
    {
      title: 'List programs',
      description: 'Returns `data.programs`: every program with indexed rules (id, name, jurisdiction, description, rule_count, status available/partial/planned). Needs scope rules:read.',
      inputSchema: NO_ARGUMENTS,
      annotations: READ_ONLY,
    },
    async () => forward({ method: 'GET', path: '/v1/programs' }),
  );

  server.registerTool(
    'list_runtime_packages',
    {
      title: 'List runtime packages',
      description:
        'Returns `data.packages`: the program/jurisdiction pairs the calculation runtime can execute, each with runtime_id, mode (fixture/compiled), status and default_outputs. Use these program_id/jurisdiction values for calculations. Needs scope rules:read.',
      inputSchema: NO_ARGUMENTS,
      annotations: READ_ONLY,
    },
    async () => forward({ method: 'GET', path: '/v1/runtime/packages' }),
  );

  server.registerTool(
    'get_runtime_package',
    {
      title: 'Runtime package detail',
      description:
        'Returns `data.package`: one executable package with its input schema (entities and their inputs with dtype and default), outputs, output and household aliases, default_period and a sample_request. Read this to know which household inputs a calculation accepts. 404 for an unknown package. Needs scope rules:read.',
      inputSchema: closed({ jurisdiction, program_id: programId }),
      annotations: READ_ONLY,
    },
    async (args) => getPath('/v1/runtime/packages/{jurisdiction}/{program_id}', args),
  );

  server.registerTool(
    'search_rules',
    {
      title: 'Search rules',
      description:
        'Full-text search over encoded and source-linked rules: every whitespace-separated word of 2+ characters must match a rule id, citation path, name, summary or symbols. Returns `data.query` and `data.results` (rule summaries with id, citation_path, name, jurisdiction, program_id, status, source_count); pass an id to get_rule. Needs scope rules:read.',
      inputSchema: closed({
        query: z.string().min(2).max(500).describe('Search words, 2-500 characters, e.g. `snap allotment`'),
        jurisdiction: z.string().max(120).optional().describe('Only rules of this jurisdiction (exact match), e.g. `us-co`'),
        program_id: z.string().max(120).optional().describe('Only rules of this program (exact match), e.g. `snap` or `co-snap`'),
        limit: z.number().int().min(1).max(50).default(20).describe('Maximum results, 1-50 (default 20)'),
      }),
      annotations: READ_ONLY,
    },
    async (args) => forward({ method: 'POST', path: '/v1/search', body: args }),
  );

  server.registerTool(
    'get_rule',
    {
      title: 'Get a rule',
      description:
        'Returns `data.rule`: one rule with its plain-language summary, symbols, dependencies and dependents (rule ids), version and provenance (repository, path, source release). 404 for an unknown id. Needs scope rules:read.',
      inputSchema: closed({ rule_id: ruleId }),
      annotations: READ_ONLY,
    },
    async (args) => getPath('/v1/rules/{rule_id}', args, ['rule_id']),
  );

  server.registerTool(
    'get_rule_sources',
    {
      title: 'Legal sources of a rule',
      description:
        'Returns `data.rule` (summary) and `data.sources`: the legal source references behind a rule (label, citation_path, url, quote, source_type official/derived/repository). Use it to cite the law. 404 for an unknown id. Needs scope sources:read.',
      inputSchema: closed({ rule_id: ruleId }),
      annotations: READ_ONLY,
    },
    async (args) => getPath('/v1/rules/{rule_id}/sources', args, ['rule_id']),
  );

  server.registerTool(
    'get_rule_dependencies',
    {
      title: 'Dependencies of a rule',
      description:
        'Returns `data.rule` (summary), `data.dependencies` (rule ids this rule uses) and `data.dependents` (rule ids that use it). 404 for an unknown id. Needs scope graphs:read.',
      inputSchema: closed({ rule_id: ruleId }),
      annotations: READ_ONLY,
    },
    async (args) => getPath('/v1/rules/{rule_id}/dependencies', args, ['rule_id']),
  );

  server.registerTool(
    'calculate_household',
    {
      title: 'Calculate a household',
      description:
        'Runs one calculation. Returns `data.outputs` (requested variable -> value), `data.trace` (per variable: rule_id, value and legal sources), `data.assumptions` (inputs the answer read that the household does not give, at their defaults), `data.runtime`, `data.warnings` (any warning means the result is not an authoritative eligibility determination) and with `explain: true` `data.explanation`. With `assumptions: "refuse"` an answer resting on assumptions is 400 invalid_household listing them in `error.assumptions`. Errors: 400 invalid_request/invalid_household, 422 unsupported_program, 502 runtime_error. Needs scope calculate:run.',
      inputSchema: calculateRequest,
      annotations: READ_ONLY,
    },
    async (args) => forward({ method: 'POST', path: '/v1/calculate', body: args }),
  );

  server.registerTool(
    'calculate_batch',
    {
      title: 'Calculate a batch',
      description:
        'Runs 1-25 calculations concurrently and waits for all. Returns `data.summary` {total, succeeded, failed} and `data.results`, positional: each {status: ok, result} or {status: error, error: {code, message}}. One invalid entry fails the whole call with 400 `requests[i]: …`. For up to 50, use submit_calculation_job. Needs scope calculate:run.',
      inputSchema: closed({ requests: calculateRequests(25) }),
      annotations: READ_ONLY,
    },
    async (args) => forward({ method: 'POST', path: '/v1/calculate/batch', body: args }),
  );

  server.registerTool(
    'submit_calculation_job',
    {
      title: 'Submit a calculation job',
      description:
        'Starts a detached job of 1-50 calculations and returns at once with `data.job_id`, status, total and status_url. Poll get_calculation_job with the job_id (about 0.5 s, doubling to 5 s) until status is succeeded or failed. Jobs are visible only to the same API key and kept 24 hours. Needs scope calculate:run.',
      inputSchema: closed({ requests: calculateRequests(50) }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => forward({ method: 'POST', path: '/v1/jobs/calculate', body: args }),
  );

  server.registerTool(
    'get_calculation_job',
    {
      title: 'Calculation job status',
      description:
        'Returns the job record: status (pending/running/succeeded/failed), total, completed, timestamps, and once succeeded `results` (positional, as in calculate_batch); `error` when failed. 404 for unknown jobs and for jobs of another key. Needs scope calculate:run.',
      inputSchema: closed({ job_id: z.string().min(1).describe('job_id returned by submit_calculation_job') }),
      annotations: READ_ONLY,
    },
    async (args) => getPath('/v1/jobs/{job_id}', args),
  );

  server.registerTool(
    'list_parity_cases',
    {
      title: 'List parity cases',
      description:
        'Returns `data.cases`: the canonical parity cases (id, program_id, jurisdiction, runtime_supported, the request, expected outputs, tolerance, notes). Needs scope admin:parity.',
      inputSchema: NO_ARGUMENTS,
      annotations: READ_ONLY,
    },
    async () => forward({ method: 'GET', path: '/v1/parity/cases' }),
  );

  server.registerTool(
    'run_parity_cases',
    {
      title: 'Run parity cases',
      description:
        'Runs every runtime-supported parity case against the active runtime. Returns `data.summary` {total, matching, different, errored, skipped}, `data.results` (per case: status matching/different/errored, outputs vs expected_outputs, comparison, trace) and `data.skipped_cases` with reasons. Needs scope admin:parity.',
      inputSchema: NO_ARGUMENTS,
      annotations: READ_ONLY,
    },
    async () => forward({ method: 'POST', path: '/v1/parity/run' }),
  );
}
