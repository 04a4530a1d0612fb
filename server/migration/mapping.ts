import type { EntityGroup } from './wire.js';

// A mapping table says, as data, how an external engine's variables feed the runtime packages
// of one encoding corpus: which package input each external input variable feeds (by the
// input's legal id, `<module>#input.<name>`, so a table follows the corpus rather than one
// package) and how values combine, which package rule or input answers each external output
// variable, and why the variables it deliberately leaves unused are left unused. A corpus has
// one federal table, read for every state's package, and a table per state that adds only
// that state's own inputs and rules. The migration endpoint, `rules validate` and the
// migration ledger all read the same tables.

export type Combine =
  /** amounts: monthly values added up (a person's variable feeding a household input: over the unit's members) */
  | 'sum'
  /** a yes/no input: yes when any value is above 0 */
  | 'any_positive'
  /** a yes/no input: yes when any value is at least `threshold` */
  | 'at_least'
  /** a yes/no input: yes when every member of the unit has a value above 0 */
  | 'all_members_positive'
  /** a count: one for each mapped variable (of this input) above 0 */
  | 'count_positive'
  /** a yes/no input: yes when at least `threshold` of the mapped variables (of this input) are above 0 */
  | 'count_at_least'
  /** a yes/no input: yes when any value is true (or, with `as`, the input is set to `as`) */
  | 'flag'
  /** a yes/no input: yes when the value is false (a sanction flag feeding a compliance input) */
  | 'not'
  /** the entity's own value, as it is (a person's age) */
  | 'value'
  /** an enumerated value translated through `values` (else `otherwise`) */
  | 'map';

/** A test on the entity a row reads, from its own variables: holds when any of them does. */
export interface Condition {
  variable: string;
  above?: number;
  at_least?: number;
  equals?: unknown;
}

export interface InputMapping {
  variable: string;
  entity: Extract<EntityGroup, 'people' | 'spm_units' | 'households'>;
  /**
   * The package input it feeds: its legal id (`us:regulations/7-cfr/273/10#input.snap_gross_monthly_earned_income`),
   * which any package whose modules read that input resolves; or, in a table of one package, its name.
   */
  input: string;
  combine: Combine;
  /** Aggregates that, when given on the same entity, replace this component (the external engine's `adds`). */
  replaced_by?: string[];
  values?: Record<string, unknown>;
  /** For `map`: the value of a key `values` does not list (only a key ending with `suffix`, when given). */
  otherwise?: { suffix?: string; value: unknown };
  /** For `sum`: the input is a weekly amount (a yearly value divided by 52, a monthly one times 12/52), not a monthly one. */
  per?: 'week';
  /** For `at_least` and `count_at_least`. */
  threshold?: number;
  /** For `flag`: the value the input takes when the flag is true (default true). */
  as?: unknown;
  /** Only the people (or the unit) for whom one of these holds count: an elderly or disabled member's medical costs. */
  when?: Condition[];
  /**
   * The external engine's own value for the variable when a household does not give it (its
   * default): the input is fed from it, and the sidecar lists the input among the assumed ones
   * with that default. The engine computes the same household on that value.
   */
  engine_default?: unknown;
  /**
   * In a state's table: the federal table's input this row takes the variable from instead (a
   * state that excludes child support paid from income rather than deducting it).
   */
  instead_of?: string;
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
  /**
   * The package rule that answers it, by legal id or name; a name is the rule of that name the
   * package holds (a program binds federal names with its own rules). With `from: input`, or
   * when the package has no such rule but has an input of that name, the value the table fed it.
   */
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

/**
 * A package input the table gives every household because the external engine's model holds
 * it without a variable that carries it (California issues its broad-based categorical
 * eligibility notice to every applicant; the external engine applies that eligibility to every
 * household). The sidecar lists each in `assumed_inputs` with the reason.
 */
export interface Presumption {
  /** The package input's legal id. */
  input: string;
  value: unknown;
  reason: string;
}

/** The version of an encoding corpus a table was written against. */
export interface CorpusVersion {
  /** The corpus's repository (`SNAPSHOT.yaml`'s `source`), or `bundled` for this project's own encodings. */
  repo: string;
  commit: string | null;
}

export interface MappingTable {
  /** How the table is named in warnings, the sidecar and the ledger (`rulespec-us federal`, `rulespec-us GA`). */
  name: string;
  engine: string;
  engine_version: string;
  corpus: CorpusVersion;
  /** `federal`: read for every state's package; else the external state code whose package it adds to. */
  scope: 'federal' | string;
  inputs: InputMapping[];
  presumed?: Presumption[];
  /**
   * Members the household size the table gives does not count: those for whom this flag of
   * theirs is true (a package that takes the size as given, not computed from its members).
   */
  size_excludes?: { variable: string; reason: string };
  outputs: OutputMapping[];
  unused: UnusedVariable[];
}

/** The tables of one encoding corpus: the federal one, and a table per state it knows. */
export interface TableFamily {
  name: string;
  corpus: CorpusVersion;
  federal: MappingTable;
  states: MappingTable[];
}
