import type { EntityGroup } from './wire.js';

// A mapping table says, as data, how an external engine's variables feed one runtime package:
// which package input each external input variable feeds and how values combine, which
// package output or input answers each external output variable, and why the variables it
// deliberately leaves unused are left unused. The migration endpoint, `rules validate` and the
// migration ledger all read the same tables.

export type Combine =
  /** amounts: monthly values added up (a person's variable feeding a household input: over the unit's members) */
  | 'sum'
  /** a yes/no input: yes when any value is above 0 */
  | 'any_positive'
  /** a yes/no input: yes when every member of the unit has a value above 0 */
  | 'all_members_positive'
  /** a count: one for each mapped variable (of this input) above 0 */
  | 'count_positive'
  /** a yes/no input: yes when any value is true */
  | 'flag'
  /** the entity's own value, as it is (a person's age) */
  | 'value'
  /** an enumerated value translated through `values` (else `otherwise`) */
  | 'map';

export interface InputMapping {
  variable: string;
  entity: Extract<EntityGroup, 'people' | 'spm_units' | 'households'>;
  /** The package input it feeds. */
  input: string;
  combine: Combine;
  /** Aggregates that, when given on the same entity, replace this component (the external engine's `adds`). */
  replaced_by?: string[];
  values?: Record<string, string>;
  /** For `map`: the value of a key `values` does not list, when the key ends with `suffix`. */
  otherwise?: { suffix: string; value: string };
  /**
   * Not a variable of the external engine: the package input's own name, accepted on the wire
   * because the external engine has no variable that carries the fact (the sidecar lists each
   * value read this way in `own_inputs`).
   */
  own?: true;
  note?: string;
}

export interface OutputMapping {
  variable: string;
  entity: 'spm_units';
  /** The package output (a rule) or, with `from: input`, the package input that answers it. */
  name: string;
  from?: 'input';
  kind: 'amount' | 'count' | 'flag';
  note?: string;
}

export interface UnusedVariable {
  variable: string;
  entity: EntityGroup;
  reason: string;
}

export interface MappingTable {
  engine: string;
  engine_version: string;
  jurisdiction: string;
  program_id: string;
  /** The external state code this table serves. */
  state: string;
  inputs: InputMapping[];
  outputs: OutputMapping[];
  unused: UnusedVariable[];
}
