// JSON Schemas (2020-12) of the compiled output tree. The ones the Rules API serves
// (RuntimePackageDetail, ProgramGraph, RuleDetail, SourceReference, ProgramSummary) are the same
// objects the daemon's OpenAPI document uses: one source of truth.

// building blocks, shared with the API's schemas
export const str = { type: 'string' } as const;
export const nullableStr = { type: ['string', 'null'] } as const;
export const int = { type: 'integer', minimum: 0 } as const;
export const strings = { type: 'array', items: str } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;

export const CalculateRequestSchema = {
  $id: 'CalculateRequest',
  type: 'object',
  required: ['program_id', 'jurisdiction', 'household'],
  properties: {
    program_id: { type: 'string', minLength: 1, maxLength: 120 },
    jurisdiction: { type: 'string', minLength: 1, maxLength: 120 },
    household: {
      type: 'object',
      additionalProperties: true,
      description: 'Conventions: `entities` ({Entity: {id: {input: value}}}, ids from the package detail; the form of `sample_request`), `facts`, `people`, `spm_units`, `period` (YYYY-MM), `relations`. An unknown input is 400 `invalid_household`; an unknown top-level key is a warning.',
    },
    variables: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } },
    assumptions: {
      enum: ['allow', 'refuse'],
      description:
        'What to do when the answer would rest on a fact the household does not give (an input a requested output reads, absent or null, or the period). `allow` (the default): answer, listing each in the response\'s `assumptions` and one warning. `refuse`: answer 400 `invalid_household` whose `error.assumptions` lists them instead, so a client can ask for exactly those and try again.',
    },
    explain: { type: 'boolean', description: 'Add `explanation` (schema Explanation, `explanation_version` 1): for each output, the tree of what it was computed from and, for a false or zero value, the tests that decided it.' },
  },
} as const;

const packageInput = {
  type: 'object',
  required: ['name', 'dtype'],
  properties: {
    name: str,
    dtype: str,
    default: {},
    legal_id: str,
    unit: str,
    description: str,
    values: strings,
    required: { type: 'boolean' },
  },
} as const;

export const RuntimePackageSummarySchema = {
  $id: 'RuntimePackageSummary',
  type: 'object',
  required: ['program_id', 'jurisdiction', 'runtime_id', 'mode', 'status', 'default_outputs'],
  properties: {
    program_id: str,
    jurisdiction: str,
    runtime_id: str,
    mode: { enum: ['fixture', 'compiled'] },
    status: { enum: ['ready', 'unavailable'] },
    default_outputs: strings,
    output_count: int,
    entity_count: int,
    input_count: int,
  },
} as const;

export const RuntimePackageDetailSchema = {
  $id: 'RuntimePackageDetail',
  type: 'object',
  required: [...RuntimePackageSummarySchema.required, 'default_period', 'outputs', 'entities', 'output_aliases', 'household_aliases', 'sample_request'],
  properties: {
    ...RuntimePackageSummarySchema.properties,
    default_period: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' },
    coverage: {
      type: 'object',
      description: 'The periods the figures cover: calculations before `from` are refused; after `through` they use the newest figures and carry a warning (not authoritative). `basis` says where `through` comes from.',
      required: ['from', 'through', 'basis'],
      properties: { from: nullableStr, through: str, basis: str },
    },
    outputs: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name: str, legal_id: str, alias_for: str } },
    },
    entities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['entity', 'id_template', 'inputs'],
        properties: {
          entity: str,
          id_template: str,
          count: int,
          count_from: str,
          inputs: { type: 'array', items: packageInput },
          relations: { type: 'array', items: { type: 'object', required: ['name', 'tuple'], properties: { name: str, tuple: strings } } },
        },
      },
    },
    output_aliases: { type: 'object', additionalProperties: str },
    household_aliases: { type: 'object', additionalProperties: str },
    sample_request: { $ref: 'CalculateRequest' },
  },
} as const;

/** What a citation needs of a rule or parameter: its sources, unit and period (by index in the executable). */
const ruleInfo = { type: 'object', required: ['sources'], properties: { sources: strings, unit: str, period: str } } as const;

/** A stored runtime package: the API detail plus what executes it. */
export const RuntimePackageFileSchema = {
  $id: 'RuntimePackageFile',
  allOf: [{ $ref: 'RuntimePackageDetail' }],
  type: 'object',
  required: ['format_version', 'name', 'description', 'source', 'main_entity', 'executable', 'rule_info', 'notes', 'acknowledged_incomplete'],
  properties: {
    format_version: { const: 1 },
    name: str,
    description: str,
    notes: strings,
    acknowledged_incomplete: strings,
    main_entity: str,
    person_entity: nullableStr,
    source: {
      type: 'object',
      required: ['kind', 'file', 'target', 'modules'],
      properties: { kind: { enum: ['program_spec', 'composition_module'] }, file: str, target: str, modules: strings },
    },
    executable: {
      type: 'object',
      required: ['rules', 'parameters', 'relations', 'inputSlots', 'paramById'],
      properties: {
        rules: { type: 'array', items: { type: 'object', required: ['index', 'id', 'name', 'entity', 'judgment', 'versions'] } },
        parameters: { type: 'array', items: { type: 'object', required: ['index', 'id', 'name', 'versions'] } },
        relations: { type: 'array', items: { type: 'object', required: ['index', 'id', 'name', 'kind'] } },
        inputSlots: strings,
        paramById: { type: 'array', items: { type: 'array', prefixItems: [str, int], minItems: 2, maxItems: 2 } },
      },
    },
    rule_info: { type: 'array', items: ruleInfo },
    parameter_info: { type: 'array', items: ruleInfo },
  },
} as const;

export const ProgramGraphSchema = {
  $id: 'ProgramGraph',
  type: 'object',
  required: ['rules', 'inputs', 'relations', 'ownOutputs', 'terminalOutputs'],
  properties: {
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['legalId', 'name', 'fileLegalId', 'kind', 'entity', 'dtype', 'period', 'unit', 'source', 'sourceUrl', 'ruleDeps', 'inputDeps', 'relationDeps', 'formula'],
        properties: {
          legalId: str,
          name: str,
          fileLegalId: str,
          kind: { enum: ['derived', 'parameter'] },
          entity: nullableStr,
          dtype: nullableStr,
          period: nullableStr,
          unit: nullableStr,
          source: nullableStr,
          sourceUrl: nullableStr,
          ruleDeps: strings,
          inputDeps: strings,
          relationDeps: strings,
          formula: nullableStr,
        },
      },
    },
    inputs: {
      type: 'array',
      items: { type: 'object', required: ['legalId', 'name', 'fileLegalId', 'entity'], properties: { legalId: str, name: str, fileLegalId: str, entity: str, relationLegalId: str } },
    },
    relations: {
      type: 'array',
      items: { type: 'object', required: ['legalId', 'name', 'fileLegalId', 'memberInputIds'], properties: { legalId: str, name: str, fileLegalId: str, memberInputIds: strings } },
    },
    ownOutputs: strings,
    terminalOutputs: strings,
  },
} as const;

export const RuleSummarySchema = {
  $id: 'RuleSummary',
  type: 'object',
  required: ['id', 'citation_path', 'name', 'jurisdiction', 'program_id', 'document_class', 'status', 'source_count'],
  properties: {
    id: str,
    citation_path: str,
    name: str,
    jurisdiction: str,
    program_id: str,
    document_class: str,
    status: { enum: ['encoded', 'source-linked', 'planned'] },
    source_count: int,
  },
} as const;

export const RuleDetailSchema = {
  $id: 'RuleDetail',
  type: 'object',
  required: [...RuleSummarySchema.required, 'summary', 'symbols', 'dependencies', 'dependents', 'version', 'provenance'],
  properties: {
    ...RuleSummarySchema.properties,
    summary: str,
    symbols: strings,
    dependencies: strings,
    dependents: strings,
    version: str,
    provenance: {
      type: 'object',
      required: ['rulespec_repo', 'rulespec_path', 'rulespec_branch', 'source_release'],
      properties: { rulespec_repo: str, rulespec_path: str, rulespec_branch: str, source_release: str },
    },
  },
} as const;

export const SourceReferenceSchema = {
  $id: 'SourceReference',
  type: 'object',
  required: ['id', 'citation_path', 'label', 'url', 'quote', 'source_type'],
  properties: { id: str, citation_path: str, label: str, url: nullableStr, quote: nullableStr, source_type: { enum: ['official', 'derived', 'repository'] } },
} as const;

export const ProgramSummarySchema = {
  $id: 'ProgramSummary',
  type: 'object',
  required: ['id', 'name', 'jurisdiction', 'description', 'rule_count', 'status'],
  properties: { id: str, name: str, jurisdiction: str, description: str, rule_count: int, status: { enum: ['available', 'partial', 'planned'] }, status_reason: str },
} as const;

export const IndexShardSchema = {
  $id: 'IndexShard',
  type: 'array',
  items: {
    type: 'object',
    required: ['rule', 'sources'],
    properties: { rule: { $ref: 'RuleDetail' }, sources: { type: 'array', items: { $ref: 'SourceReference' } } },
  },
} as const;

export const ProgramListSchema = { $id: 'ProgramList', type: 'array', items: { $ref: 'ProgramSummary' } } as const;

export const ManifestSchema = {
  $id: 'Manifest',
  type: 'object',
  required: ['format_version', 'compiler', 'compiled_at', 'duration_ms', 'roots', 'programs_dirs', 'source_hash', 'packages', 'failures', 'warnings', 'module_errors', 'index'],
  properties: {
    format_version: { const: 1 },
    compiler: { type: 'object', required: ['name', 'version'], properties: { name: { const: 'rules' }, version: str } },
    compiled_at: { type: 'string', format: 'date-time' },
    duration_ms: int,
    roots: { type: 'array', items: { type: 'object', required: ['path', 'repo', 'branch', 'commit'], properties: { path: str, repo: str, branch: str, commit: nullableStr } } },
    programs_dirs: strings,
    source_hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    packages: {
      type: 'array',
      items: {
        allOf: [{ $ref: 'RuntimePackageSummary' }],
        type: 'object',
        required: ['name', 'package', 'graph', 'sha256', 'module_count'],
        properties: { name: str, package: str, graph: str, sha256: str, module_count: int },
      },
    },
    failures: {
      type: 'array',
      items: { type: 'object', required: ['program', 'jurisdiction', 'program_id', 'file', 'error'], properties: { program: str, jurisdiction: str, program_id: str, file: str, error: str } },
    },
    warnings: { type: 'array', items: { type: 'object', required: ['path', 'reason'], properties: { path: str, reason: str } } },
    module_errors: { type: 'array', items: { type: 'object', required: ['file', 'error'], properties: { file: str, error: str } } },
    index: {
      type: 'object',
      required: ['module_count', 'rule_count', 'shards', 'programs'],
      properties: {
        module_count: int,
        rule_count: int,
        programs: str,
        shards: { type: 'array', items: { type: 'object', required: ['module', 'file', 'rules'], properties: { module: str, file: str, rules: int } } },
      },
    },
    retained: strings,
  },
} as const;

/** Every schema, for registering with a validator in one go. */
export const OUTPUT_SCHEMAS = [
  CalculateRequestSchema,
  RuntimePackageSummarySchema,
  RuntimePackageDetailSchema,
  RuntimePackageFileSchema,
  ProgramGraphSchema,
  RuleSummarySchema,
  RuleDetailSchema,
  SourceReferenceSchema,
  ProgramSummarySchema,
  IndexShardSchema,
  ProgramListSchema,
  ManifestSchema,
];
