import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ADMIN_SCHEMAS } from './admin-schemas.js';
import { CalculateRequestSchema, dateTime, int, nullableStr, OUTPUT_SCHEMAS, str, strings } from '../compiler/5-emit/schemas.js';

// Request and response schemas of the Rules API (JSON Schema 2020-12). The same objects
// validate requests (Ajv) and appear in the served OpenAPI document.

const environment = { enum: ['local', 'dev', 'staging', 'production'] } as const;
const depStatus = { enum: ['ready', 'degraded', 'unavailable'] } as const;
const jobStatus = { enum: ['pending', 'running', 'succeeded', 'failed'] } as const;

export const MetaSchema = {
  $id: 'Meta',
  type: 'object',
  required: ['request_id', 'api_version', 'environment'],
  properties: { request_id: str, api_version: str, environment },
} as const;

export const ErrorEnvelopeSchema = {
  $id: 'ErrorEnvelope',
  type: 'object',
  required: ['status', 'error', 'meta'],
  properties: {
    status: { const: 'error' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: str, message: str, assumptions: { type: 'array', items: { $ref: 'Assumption' }, description: 'On 400 `invalid_household` for a request with `assumptions: "refuse"`: the facts the answer would rest on.' } },
    },
    meta: { $ref: 'Meta' },
    data: {},
  },
} as const;

export const HealthResponseSchema = { $id: 'HealthResponse', type: 'object', required: ['service', 'live'], properties: { service: { const: 'rules-api' }, live: { type: 'boolean' } } } as const;

export const DependencyHealthSchema = {
  $id: 'DependencyHealth',
  type: 'object',
  required: ['name', 'status'],
  properties: { name: str, status: depStatus, detail: str },
} as const;

export const ReadyResponseSchema = {
  $id: 'ReadyResponse',
  type: 'object',
  required: ['ready', 'status', 'source', 'dependencies'],
  properties: { ready: { type: 'boolean' }, status: depStatus, source: str, dependencies: { type: 'array', items: { $ref: 'DependencyHealth' } } },
} as const;

export const VersionResponseSchema = { $id: 'VersionResponse', type: 'object', required: ['api_version', 'environment'], properties: { api_version: str, environment } } as const;

export const CapabilitiesResponseSchema = {
  $id: 'CapabilitiesResponse',
  type: 'object',
  required: ['api_version', 'environment', 'openapi_url', 'endpoints', 'repository', 'runtime'],
  properties: {
    api_version: str,
    environment,
    openapi_url: str,
    endpoints: {
      type: 'object',
      required: ['programs', 'search', 'rules', 'calculate', 'runtime_packages', 'parity_cases', 'parity_run'],
      properties: { programs: str, search: str, rules: str, calculate: str, runtime_packages: str, parity_cases: str, parity_run: str },
    },
    repository: { type: 'object', required: ['source', 'status', 'program_count'], properties: { source: str, status: depStatus, program_count: int } },
    runtime: {
      type: 'object',
      required: ['name', 'status', 'package_count', 'packages', 'sample_requests'],
      properties: {
        name: str,
        status: depStatus,
        detail: str,
        package_count: int,
        packages: { type: 'array', items: { $ref: 'RuntimePackageSummary' } },
        sample_requests: {
          type: 'array',
          items: { type: 'object', required: ['program_id', 'jurisdiction', 'sample_request'], properties: { program_id: str, jurisdiction: str, sample_request: { $ref: 'CalculateRequest' } } },
        },
      },
    },
  },
} as const;

export const SearchRequestSchema = {
  $id: 'SearchRequest',
  type: 'object',
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 2, maxLength: 500, description: 'Whitespace-separated tokens; every token of 2+ characters must match.' },
    jurisdiction: { type: 'string', maxLength: 120, description: 'Exact match.' },
    program_id: { type: 'string', maxLength: 120, description: 'Exact match.' },
    limit: { type: 'number', description: 'Clamped to 1-50; default 20; must be finite.' },
  },
} as const;

export const SearchResultsSchema = {
  $id: 'SearchResults',
  type: 'object',
  required: ['query', 'results'],
  properties: { query: str, results: { type: 'array', items: { $ref: 'RuleSummary' } } },
} as const;

export const TraceEntrySchema = {
  $id: 'TraceEntry',
  type: 'object',
  required: ['rule_id', 'variable', 'value', 'sources'],
  properties: { rule_id: str, variable: str, value: {}, sources: strings, entity: str },
} as const;

export const AssumptionSchema = {
  $id: 'Assumption',
  type: 'object',
  description:
    'A fact the answer rests on that the household did not give: an input a requested output read (absent, or given as null) that took its package default, or the period (`input: "period"`, the package default period). `input`, `entity` and `entity_id` are as the package detail names them, so the value can be sent back under `household.entities[entity][entity_id][input]` (`field`).',
  required: ['input', 'legal_id', 'entity', 'entity_id', 'value', 'reason', 'field'],
  properties: {
    input: str,
    legal_id: nullableStr,
    entity: nullableStr,
    entity_id: nullableStr,
    value: { description: 'The value the calculation used (the package default).' },
    reason: { enum: ['not_given', 'null', 'invalid'], description: '`not_given`: absent; `null`: given as null; `invalid`: a period that is not a YYYY-MM month.' },
    field: { type: 'string', description: 'Where to give it: `household.entities.<entity>.<entity_id>.<input>`, or `household.period`.' },
  },
} as const;

const inForce = {
  type: 'object',
  required: ['from', 'to'],
  properties: { from: { type: ['string', 'null'], format: 'date' }, to: { type: ['string', 'null'], format: 'date' } },
  description: 'The dates the version used is in force (null: open-ended).',
} as const;
const citation = { ...strings, description: 'Legal sources (citation, then its URL when known).' } as const;
const side = { type: 'object', required: ['expression', 'value'], properties: { expression: str, value: {} } } as const;
const comparison = {
  type: 'object',
  required: ['test', 'left', 'op', 'right', 'holds'],
  properties: { test: str, left: side, op: { enum: ['<', '<=', '>', '>=', '==', '!='] }, right: side, holds: { type: ['boolean', 'null'] } },
} as const;

export const ExplanationSchema = {
  $id: 'Explanation',
  type: 'object',
  description:
    'Why each output came out as it did for this household (`"explain": true`). Each output has the tree of what it was computed from: rule nodes (the formula of the version in force, the dated figures it read, the `if` branches it took, the comparisons it decided with both sides, its citation) down to input nodes (`given`, with the field, or `assumed`). A rule read by several others appears under each. For an output that is false, zero or undetermined, `deciding` lists the tests that made it so. Versioned by `explanation_version`.',
  required: ['explanation_version', 'period', 'outputs'],
  properties: {
    explanation_version: { const: 1 },
    period: str,
    outputs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['output', 'entity', 'entity_id', 'value', 'node'],
        properties: {
          output: { type: 'string', description: 'The output as requested (an alias stays an alias).' },
          entity: str,
          entity_id: str,
          value: { description: 'Equals `outputs[output]` (or `outputs[output][entity_id]` for an output of another entity).' },
          node: { $ref: 'ExplanationNode' },
          deciding: { type: 'array', items: { $ref: 'DecidingTest' } },
        },
      },
    },
  },
} as const;

export const ExplanationNodeSchema = {
  $id: 'ExplanationNode',
  description: 'A node of an explanation tree, by `kind`: `rule`, `input` or `parameter` (a parameter requested as an output).',
  oneOf: [{ $ref: 'ExplanationRuleNode' }, { $ref: 'ExplanationInputNode' }, { $ref: 'ExplanationParameterNode' }],
} as const;

export const ExplanationFigureSchema = {
  $id: 'ExplanationFigure',
  type: 'object',
  description: 'A dated figure (a parameter value) a rule read.',
  required: ['name', 'legal_id', 'key', 'value', 'in_force', 'citation'],
  properties: { name: str, legal_id: str, key: { type: ['integer', 'null'], description: 'The table row read (null for a single value).' }, value: {}, in_force: inForce, citation },
} as const;

export const ExplanationRuleNodeSchema = {
  $id: 'ExplanationRuleNode',
  type: 'object',
  required: ['kind', 'name', 'legal_id', 'entity', 'entity_id', 'value', 'formula', 'in_force', 'citation', 'figures', 'branches', 'comparisons', 'children'],
  properties: {
    kind: { const: 'rule' },
    name: str,
    legal_id: str,
    entity: str,
    entity_id: str,
    value: {},
    formula: { type: 'string', description: 'The formula of the version in force, as evaluated (a `match` reads as its `if` chain).' },
    in_force: inForce,
    citation,
    figures: { type: 'array', items: { $ref: 'ExplanationFigure' } },
    branches: {
      type: 'array',
      items: { type: 'object', required: ['condition', 'branch'], properties: { condition: { type: 'string', description: 'The condition that held, or `else`.' }, branch: int } },
    },
    comparisons: { type: 'array', items: comparison },
    children: { type: 'array', items: { $ref: 'ExplanationNode' }, description: 'The rules and inputs it read, in the order read.' },
  },
} as const;

export const ExplanationInputNodeSchema = {
  $id: 'ExplanationInputNode',
  type: 'object',
  required: ['kind', 'name', 'legal_id', 'entity', 'entity_id', 'value', 'status', 'citation'],
  properties: {
    kind: { const: 'input' },
    name: str,
    legal_id: nullableStr,
    entity: str,
    entity_id: str,
    value: {},
    status: { enum: ['given', 'assumed'] },
    field: { type: 'string', description: 'Where the household gave it (or gave it as null).' },
    reason: { enum: ['not_given', 'null'], description: 'Why an assumed input was assumed.' },
    citation: { ...citation, description: 'The sources of the rule that reads it.' },
  },
} as const;

export const ExplanationParameterNodeSchema = {
  $id: 'ExplanationParameterNode',
  type: 'object',
  required: ['kind', 'name', 'legal_id', 'key', 'value', 'in_force', 'citation', 'children'],
  properties: {
    kind: { const: 'parameter' },
    name: str,
    legal_id: str,
    key: { type: ['integer', 'null'] },
    value: {},
    in_force: inForce,
    citation,
    children: { type: 'array', items: { $ref: 'ExplanationInputNode' } },
  },
} as const;

export const DecidingTestSchema = {
  $id: 'DecidingTest',
  type: 'object',
  description: 'A test that decided a false, zero or undetermined output: a comparison with both sides, or a condition input.',
  required: ['rule', 'name', 'entity_id', 'test', 'holds', 'citation', 'text'],
  properties: {
    rule: { type: 'string', description: 'The legal id of the rule whose formula holds the test.' },
    name: str,
    entity_id: str,
    test: str,
    holds: { type: ['boolean', 'null'] },
    comparison,
    input: { type: 'object', required: ['name', 'value', 'status'], properties: { name: str, value: {}, status: { enum: ['given', 'assumed'] } } },
    citation,
    text: { type: 'string', description: 'The test in words, with both values and the citation.' },
  },
} as const;

export const CalculateResponseSchema = {
  $id: 'CalculateResponse',
  type: 'object',
  required: ['engine', 'runtime', 'program_id', 'jurisdiction', 'outputs', 'trace', 'warnings', 'assumptions'],
  properties: {
    engine: { const: 'rules' },
    runtime: { type: 'object', required: ['id', 'mode'], properties: { id: str, mode: { enum: ['fixture', 'compiled'] } } },
    program_id: str,
    jurisdiction: str,
    period: str,
    outputs: { type: 'object', additionalProperties: true },
    trace: { type: 'array', items: { $ref: 'TraceEntry' } },
    warnings: strings,
    assumptions: { type: 'array', items: { $ref: 'Assumption' }, description: 'Every fact the answer rests on that the household did not give, in the order first read (empty when it gives every input the outputs read).' },
    explanation: { $ref: 'Explanation' },
  },
} as const;

export const BatchRequestSchema = {
  $id: 'BatchRequest',
  type: 'object',
  required: ['requests'],
  properties: { requests: { type: 'array', minItems: 1, maxItems: 50, items: { $ref: 'CalculateRequest' } } },
} as const;

export const BatchResultSchema = {
  $id: 'BatchResult',
  oneOf: [
    { type: 'object', required: ['status', 'result'], properties: { status: { const: 'ok' }, result: { $ref: 'CalculateResponse' } } },
    {
      type: 'object',
      required: ['status', 'error'],
      properties: {
        status: { const: 'error' },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { enum: ['unsupported_program', 'invalid_household', 'runtime_error'] }, message: str, assumptions: { type: 'array', items: { $ref: 'Assumption' } } },
        },
      },
    },
  ],
} as const;

export const JobRecordSchema = {
  $id: 'JobRecord',
  type: 'object',
  required: ['id', 'status', 'created_at', 'total', 'completed', 'api_key_id'],
  properties: {
    id: str,
    status: jobStatus,
    created_at: dateTime,
    started_at: dateTime,
    finished_at: dateTime,
    total: int,
    completed: int,
    api_key_id: nullableStr,
    results: { type: 'array', items: { $ref: 'BatchResult' } },
    error: str,
  },
} as const;

export const ParityCaseSchema = {
  $id: 'ParityCase',
  type: 'object',
  required: ['id', 'program_id', 'jurisdiction', 'runtime_supported', 'axiom_request', 'expected_axiom_outputs'],
  properties: {
    id: str,
    program_id: str,
    jurisdiction: str,
    runtime_supported: { type: 'boolean' },
    axiom_request: { $ref: 'CalculateRequest' },
    expected_axiom_outputs: { type: 'object', additionalProperties: true },
    description: nullableStr,
    variables: strings,
    trace_variables: strings,
    notes: strings,
    external_comparisons: { type: 'array', items: { type: 'object' } },
    tolerance: { type: 'object' },
  },
} as const;

const comparisonItem = { type: 'object', required: ['variable'], properties: { variable: str, expected: {}, actual: {}, delta: { type: 'number' } } } as const;

export const ParityRunResultSchema = {
  $id: 'ParityRunResult',
  type: 'object',
  required: ['id', 'program_id', 'jurisdiction', 'status'],
  properties: {
    id: str,
    program_id: str,
    jurisdiction: str,
    status: { enum: ['matching', 'different', 'errored'] },
    description: nullableStr,
    outputs: { type: 'object' },
    expected_outputs: { type: 'object' },
    trace_outputs: { type: 'object' },
    calculation_trace: { type: 'array', items: { $ref: 'TraceEntry' } },
    notes: strings,
    comparison: {
      type: 'object',
      required: ['status', 'changed', 'missing', 'extra'],
      properties: { status: { enum: ['matching', 'different'] }, changed: { type: 'array', items: comparisonItem }, missing: { type: 'array', items: comparisonItem }, extra: { type: 'array', items: comparisonItem } },
    },
    runtime: { type: 'object', properties: { id: str, mode: str } },
    warnings: strings,
    assumptions: { type: 'array', items: { $ref: 'Assumption' }, description: 'The inputs the case does not give that its outputs read, at their package defaults (part of what its expected outputs rest on).' },
    error: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str } },
    external_status: {
      enum: ['matching', 'different', 'not_recorded', 'none'],
      description: 'Whether the values another engine recorded for this household agree with ours within each comparison\'s tolerance (`none`: the case has no external comparison). The expected outputs come from the law; where the external engine differs, the comparison notes say why.',
    },
    external_comparisons: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'engine', 'status', 'values', 'notes'],
        properties: {
          id: str,
          engine: str,
          engine_version: str,
          source: str,
          status: { enum: ['matching', 'different', 'not_recorded'] },
          values: {
            type: 'array',
            items: {
              type: 'object',
              required: ['axiom_variable', 'external_path', 'axiom_value', 'external_value', 'delta', 'agrees'],
              properties: { axiom_variable: str, external_path: str, axiom_value: {}, external_value: { type: ['number', 'null'] }, delta: { type: ['number', 'null'] }, agrees: { type: 'boolean' } },
            },
          },
          notes: strings,
        },
      },
    },
  },
} as const;

// The bodies the routes answer with, around the resources above.

export const ProgramsResponseSchema = {
  $id: 'ProgramsResponse',
  type: 'object',
  required: ['programs'],
  properties: { programs: { type: 'array', items: { $ref: 'ProgramSummary' } } },
} as const;

export const RuntimePackagesResponseSchema = {
  $id: 'RuntimePackagesResponse',
  type: 'object',
  required: ['packages'],
  properties: { packages: { type: 'array', items: { $ref: 'RuntimePackageSummary' } } },
} as const;

export const RuntimePackageResponseSchema = {
  $id: 'RuntimePackageResponse',
  type: 'object',
  required: ['package'],
  properties: { package: { $ref: 'RuntimePackageDetail' } },
} as const;

export const ProgramGraphResponseSchema = {
  $id: 'ProgramGraphResponse',
  type: 'object',
  required: ['graph'],
  properties: { graph: { $ref: 'ProgramGraph' } },
} as const;

export const ComposedGraphResponseSchema = {
  $id: 'ComposedGraphResponse',
  type: 'object',
  required: ['graph', 'files', 'truncated'],
  properties: { graph: { $ref: 'ProgramGraph' }, files: strings, truncated: { type: 'boolean' } },
} as const;

export const RuleResponseSchema = {
  $id: 'RuleResponse',
  type: 'object',
  required: ['rule'],
  properties: { rule: { $ref: 'RuleDetail' } },
} as const;

export const RuleSourcesResponseSchema = {
  $id: 'RuleSourcesResponse',
  type: 'object',
  required: ['rule', 'sources'],
  properties: { rule: { $ref: 'RuleSummary' }, sources: { type: 'array', items: { $ref: 'SourceReference' } } },
} as const;

export const RuleDependenciesResponseSchema = {
  $id: 'RuleDependenciesResponse',
  type: 'object',
  required: ['rule', 'dependencies', 'dependents'],
  properties: { rule: { $ref: 'RuleSummary' }, dependencies: strings, dependents: strings },
} as const;

export const ParityCasesResponseSchema = {
  $id: 'ParityCasesResponse',
  type: 'object',
  required: ['cases'],
  properties: { cases: { type: 'array', items: { $ref: 'ParityCase' } } },
} as const;

export const ParityRunResponseSchema = {
  $id: 'ParityRunResponse',
  type: 'object',
  required: ['summary', 'results', 'skipped_cases'],
  properties: {
    summary: {
      type: 'object',
      required: ['total', 'matching', 'different', 'errored', 'skipped', 'external'],
      properties: {
        total: { type: 'integer', description: 'cases that ran (skipped cases apart)' },
        matching: { type: 'integer' },
        different: { type: 'integer' },
        errored: { type: 'integer' },
        skipped: { type: 'integer' },
        external: {
          type: 'object',
          description: 'cases whose recorded external values agree, differ, or were not recorded',
          required: ['matching', 'different', 'not_recorded'],
          properties: { matching: { type: 'integer' }, different: { type: 'integer' }, not_recorded: { type: 'integer' } },
        },
      },
    },
    results: { type: 'array', items: { $ref: 'ParityRunResult' } },
    skipped_cases: {
      type: 'array',
      items: { type: 'object', required: ['id', 'description', 'program_id', 'jurisdiction', 'reason'], properties: { id: str, description: nullableStr, program_id: str, jurisdiction: str, reason: str } },
    },
  },
} as const;

export const BatchResponseSchema = {
  $id: 'BatchResponse',
  type: 'object',
  required: ['summary', 'results'],
  properties: {
    summary: { type: 'object', required: ['total', 'succeeded', 'failed'], properties: { total: int, succeeded: int, failed: int } },
    results: { type: 'array', items: { $ref: 'BatchResult' } },
  },
} as const;

export const JobAcceptedSchema = {
  $id: 'JobAccepted',
  type: 'object',
  required: ['job_id', 'status', 'total', 'status_url', 'durable'],
  properties: { job_id: str, status: jobStatus, total: int, status_url: str, durable: { type: 'boolean' } },
} as const;

export const MigrationRequestSchema = {
  $id: 'MigrationRequest',
  type: 'object',
  required: ['household'],
  properties: { household: { type: 'object' } },
} as const;

export const MigrationResponseSchema = {
  $id: 'MigrationResponse',
  type: 'object',
  required: ['status', 'message', 'result', 'sidecar'],
  properties: { status: { const: 'ok' }, message: nullableStr, result: { type: 'object' }, sidecar: { type: 'object' } },
} as const;

const API_SCHEMAS = [
  MetaSchema,
  ErrorEnvelopeSchema,
  HealthResponseSchema,
  DependencyHealthSchema,
  ReadyResponseSchema,
  VersionResponseSchema,
  CapabilitiesResponseSchema,
  SearchRequestSchema,
  SearchResultsSchema,
  TraceEntrySchema,
  AssumptionSchema,
  ExplanationSchema,
  ExplanationNodeSchema,
  ExplanationFigureSchema,
  ExplanationRuleNodeSchema,
  ExplanationInputNodeSchema,
  ExplanationParameterNodeSchema,
  DecidingTestSchema,
  CalculateResponseSchema,
  BatchRequestSchema,
  BatchResultSchema,
  JobRecordSchema,
  ParityCaseSchema,
  ParityRunResultSchema,
  ProgramsResponseSchema,
  RuntimePackagesResponseSchema,
  RuntimePackageResponseSchema,
  ProgramGraphResponseSchema,
  ComposedGraphResponseSchema,
  RuleResponseSchema,
  RuleSourcesResponseSchema,
  RuleDependenciesResponseSchema,
  ParityCasesResponseSchema,
  ParityRunResponseSchema,
  BatchResponseSchema,
  JobAcceptedSchema,
  MigrationRequestSchema,
  MigrationResponseSchema,
];

/** Every schema the API validates with and documents: compiled outputs, the API's, the admin routes'. */
export const SERVED_SCHEMAS = [...OUTPUT_SCHEMAS, ...API_SCHEMAS, ...ADMIN_SCHEMAS];

/** The validator every request schema is compiled with, holding every served schema. */
export const ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false });
addFormats.default(ajv);
for (const schema of SERVED_SCHEMAS) ajv.addSchema(schema);

/** The field an Ajv error is about (dotted, indexes in brackets) and what is wrong with it. */
function problemOf(e: ErrorObject): { field: string; problem: string } {
  let field = e.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.').replace(/^\./, '');
  let problem = e.message ?? 'is invalid';
  if (e.keyword === 'required') {
    field = field ? `${field}.${(e.params as { missingProperty: string }).missingProperty}` : (e.params as { missingProperty: string }).missingProperty;
    problem = 'is required';
  } else if (e.keyword === 'additionalProperties') {
    field = `${field ? `${field}.` : ''}${(e.params as { additionalProperty: string }).additionalProperty}`;
    problem = 'is not allowed';
  } else if (e.keyword === 'enum') {
    problem = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { field, problem };
}

/** `body.query: must NOT have fewer than 2 characters`; an entry of a batch is named by its
 *  position: `requests[2]: household is required`. */
export function describeValidation(errors: ErrorObject[] | null | undefined, root: string): string {
  const e = errors?.[0];
  if (!e) return `${root}: is invalid`;
  const { field, problem } = problemOf(e);
  const entry = /^requests\[(\d+)\]\.?(.*)$/.exec(field);
  if (entry) return `requests[${entry[1]}]: ${entry[2] ? `${entry[2]} ` : ''}${problem}`;
  if (!root) return field ? `${field} ${problem}` : problem;
  return `${root}${field ? `.${field}` : ''}: ${problem}`;
}

const calculateRequest = ajv.getSchema(CalculateRequestSchema.$id)!;

/** Validate one CalculateRequest: `requests[2]: household is required`. */
export function checkCalculateRequest(value: unknown, root: string): string | null {
  return calculateRequest(value) ? null : `${root}: ${describeValidation(calculateRequest.errors, '')}`;
}
