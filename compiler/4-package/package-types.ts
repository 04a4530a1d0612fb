import type { Coverage } from './coverage.js';
import type { ExecutableJson } from './serialize.js';

// The compiled output's documents. Field names that the Rules API serves are snake_case as in
// its specification; the ProgramGraph is camelCase as the specification spells it.

export const OUTPUT_FORMAT_VERSION = 1;

export interface PackageInput {
  name: string;
  dtype: string;
  default?: unknown;
  /** Where formulas read it: `<module>#input.<name>`. */
  legal_id: string;
  unit?: string;
  description?: string;
  /** Known text values (from declarations or the literals formulas compare it with). */
  values?: string[];
  required: boolean;
}

export interface PackageEntity {
  entity: string;
  id_template: string;
  count?: number;
  count_from?: string;
  inputs: PackageInput[];
  relations?: { name: string; tuple: string[] }[];
}

export interface PackageOutput {
  name: string;
  legal_id?: string;
  alias_for?: string;
}

export interface CalculateRequest {
  program_id: string;
  jurisdiction: string;
  household: Record<string, unknown>;
  variables?: string[];
  assumptions?: 'allow' | 'refuse';
  explain?: boolean;
}

/** What the trace needs to attribute a value to law: per rule of the executable, by index. */
export interface RuleInfo {
  sources: string[];
  unit?: string;
  period?: string;
}

export interface RuntimePackage {
  format_version: number;
  program_id: string;
  jurisdiction: string;
  runtime_id: string;
  mode: 'compiled';
  status: 'ready' | 'unavailable';
  name: string;
  description: string;
  default_outputs: string[];
  output_count: number;
  entity_count: number;
  input_count: number;
  default_period: string;
  /** The periods its figures cover (coverage.ts). */
  coverage: Coverage;
  outputs: PackageOutput[];
  entities: PackageEntity[];
  output_aliases: Record<string, string>;
  household_aliases: Record<string, string>;
  sample_request: CalculateRequest;
  /** Where the program came from: a program spec file or a composition module. */
  source: { kind: 'program_spec' | 'composition_module'; file: string; target: string; modules: string[] };
  /** Outputs the encoders acknowledge as incomplete. */
  acknowledged_incomplete: string[];
  notes: string[];
  /** The main (queried) entity and the member entity that `people` populate. */
  main_entity: string;
  person_entity: string | null;
  executable: ExecutableJson;
  rule_info: RuleInfo[];
  /** The same, per parameter of the executable (absent from packages compiled before it was recorded). */
  parameter_info?: RuleInfo[];
}

export interface GraphRule {
  legalId: string;
  name: string;
  fileLegalId: string;
  kind: 'derived' | 'parameter';
  entity: string | null;
  dtype: string | null;
  period: string | null;
  unit: string | null;
  source: string | null;
  sourceUrl: string | null;
  ruleDeps: string[];
  inputDeps: string[];
  relationDeps: string[];
  formula: string | null;
}

export interface ProgramGraph {
  rules: GraphRule[];
  inputs: { legalId: string; name: string; fileLegalId: string; entity: string; relationLegalId?: string }[];
  relations: { legalId: string; name: string; fileLegalId: string; memberInputIds: string[] }[];
  ownOutputs: string[];
  terminalOutputs: string[];
}
