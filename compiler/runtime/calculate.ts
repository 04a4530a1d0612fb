import { type EngineEvaluation, type EngineName, startEvaluation } from '../engine/engine.js';
import type { Executable } from '../3-lower/ir.js';
import { EvaluationError } from '../engine/evaluate.js';
import { Day, Decimal, toJson, type Value } from '../values.js';
import type { CalculateRequest } from '../4-package/package-types.js';
import { type ExplainTarget, type Explanation, buildExplanation } from './explain/explanation.js';
import { QueryRecord } from './explain/record.js';
import { HouseholdError, type PreparedHousehold, prepareHousehold } from './household.js';
import type { LoadedPackage } from './loaded-package.js';

// One calculation: a household through a package, the requested outputs, and a trace that
// attributes every computed value to the rule and the legal sources that produced it.
// Outputs of the main entity are single values; outputs of another entity (a per-person rule)
// are objects keyed by that entity's ids.

export interface TraceEntry {
  rule_id: string;
  variable: string;
  value: unknown;
  sources: string[];
  entity: string;
}

/**
 * A fact the answer rests on that the household did not give: an input a requested output read
 * (absent, or given as null) and took its package default, or the period. `input`, `entity` and
 * `entity_id` are as the package detail names them, so the value can be sent back under
 * `household.entities[entity][entity_id][input]` (`field`); the period under `household.period`.
 */
export interface Assumption {
  input: string;
  legal_id: string | null;
  entity: string | null;
  entity_id: string | null;
  value: unknown;
  reason: 'not_given' | 'null' | 'invalid';
  field: string;
}

export interface CalculationResult {
  period: string;
  outputs: Record<string, unknown>;
  trace: TraceEntry[];
  warnings: string[];
  assumptions: Assumption[];
  explanation?: Explanation;
}

/** `assumptions: "refuse"` and the answer would rest on some: the household must give them first. */
export class AssumptionsRefused extends HouseholdError {
  constructor(readonly assumptions: Assumption[]) {
    super('household', `the answer depends on ${assumptions.length} ${assumptions.length === 1 ? 'fact' : 'facts'} the household does not give (assumptions are refused): ${assumptions.map(describeAssumption).join('; ')}; give them and ask again`);
  }
}

function describeAssumption(a: Assumption): string {
  if (a.input === 'period') return `period (${a.reason === 'invalid' ? 'not a YYYY-MM month' : 'not given'}; default ${a.value})`;
  return `${a.input} of ${a.entity} ${a.entity_id} (${a.reason === 'null' ? 'given as null; ' : ''}default ${JSON.stringify(a.value)})`;
}

/** A requested variable the package does not have: the request itself is wrong. */
export class OutputError extends Error {}

export type Target = { kind: 'rule' | 'param'; index: number };

/** What an output name (a rule or parameter name or id, or an output alias) calculates; none when the package has no such output. */
export function resolveOutput(loaded: LoadedPackage, name: string): Target | undefined {
  const exec = loaded.executable;
  const canonical = loaded.pkg.output_aliases[name] ?? name;
  const rule = exec.ruleByName.get(canonical) ?? exec.ruleById.get(canonical);
  if (rule !== undefined) return { kind: 'rule', index: rule };
  const param = exec.paramByName.get(canonical) ?? exec.paramById.get(canonical);
  return param !== undefined ? { kind: 'param', index: param } : undefined;
}

const month = (day: number) => {
  const d = new Date(day * 86_400_000);
  if (d.getUTCDate() > 1) d.setUTCMonth(d.getUTCMonth() + 1, 1);
  return d.toISOString().slice(0, 7);
};

/** The last day a package's figures cover, by package (parsed once: a date's parse was 2.5 % of a calculation). */
const coverageEnds = new WeakMap<LoadedPackage['pkg'], number | null>();

/** A period after the figures' coverage is answered on the newest figures, and says so. */
function coverageWarnings(pkg: LoadedPackage['pkg'], start: number): string[] {
  let through = coverageEnds.get(pkg);
  if (through === undefined) coverageEnds.set(pkg, (through = pkg.coverage ? (Day.parse(pkg.coverage.through)?.n ?? null) : null));
  if (through === null || start <= through) return [];
  return [
    `${new Day(start).toString().slice(0, 7)} is after the period this package's figures cover (through ${pkg.coverage.through}, ${pkg.coverage.basis}): the result uses those figures and is not authoritative for this period`,
  ];
}

export interface CalculateOptions {
  /** Wall-clock limit, ms since the epoch. */
  deadline?: number;
  /** The compiled engine unless told otherwise; the interpreter is the reference it is tested and measured against. */
  engine?: EngineName;
  /** Record the trace (default true). */
  trace?: boolean;
  /** `refuse`: an answer that would rest on assumptions is an AssumptionsRefused error instead (default `allow`). */
  assumptions?: 'allow' | 'refuse';
  /** Add the explanation of every output (the engine reports what it reads and decides to a QueryRecord). */
  explain?: boolean;
}

export function calculate(loaded: LoadedPackage, request: Pick<CalculateRequest, 'household' | 'variables'>, options: CalculateOptions = {}): CalculationResult {
  const { pkg, executable: exec } = loaded;
  const variables = request.variables ?? pkg.default_outputs;
  const targets = variables.map((name, i) => {
    const t = resolveOutput(loaded, name);
    if (!t) throw new OutputError(`variables[${i}]: unknown output \`${name}\` for ${pkg.jurisdiction}/${pkg.program_id} (outputs: ${pkg.outputs.map((o) => o.name).join(', ')})`);
    return t;
  });
  const prepared = prepareHousehold(loaded, request.household);
  const record = options.explain ? new QueryRecord() : undefined;
  const evaluation = startEvaluation(options.engine ?? 'compiled', exec, prepared.dataset, prepared.period, { trace: options.trace ?? true, deadline: options.deadline, observer: record });
  let read: { outputs: Record<string, unknown>; explained: ExplainTarget[] };
  try {
    read = readOutputs(exec, prepared, evaluation, variables, targets);
  } catch (err) {
    if (!(err instanceof EvaluationError)) throw err;
    const { missingInput, notInEffect } = err.detail;
    if (missingInput) {
      const neededBy = err.chain[err.chain.length - 1] ?? 'the calculation';
      throw new HouseholdError(prepared.fieldOf(missingInput.slot, missingInput.entity), `required input \`${missingInput.slot}\` is missing (needed by ${neededBy})`);
    }
    if (notInEffect) {
      const from = notInEffect.nextEffective;
      throw new HouseholdError(
        'household.period',
        `the package has no rules in effect for ${prepared.periodLabel}${from !== undefined ? `; they take effect from ${new Day(from)}` : ''} (${err.message})`,
        from !== undefined ? month(from) : undefined,
      );
    }
    throw err;
  }
  const assumptions = assumptionsOf(loaded, prepared);
  if (options.assumptions === 'refuse' && assumptions.length) throw new AssumptionsRefused(assumptions);
  const trace = (evaluation.trace ?? []).map((step): TraceEntry => {
    const rule = exec.rules[step.rule];
    return { rule_id: rule.id, variable: rule.name, value: evaluation.json(step.result, rule.judgment), sources: pkg.rule_info[step.rule]?.sources ?? [], entity: step.entity };
  });
  const warnings = [...prepared.warnings, ...assumptionWarning(assumptions, prepared.mainId), ...coverageWarnings(pkg, prepared.period.start)];
  return { period: prepared.periodLabel, outputs: read.outputs, trace, warnings, assumptions, ...(record ? { explanation: buildExplanation(loaded, record, prepared, read.explained, (v, judgment) => evaluation.json(v, judgment)) } : {}) };
}

/**
 * The requested outputs from an evaluation (`targets` resolved from `variables`): a main-entity
 * rule's value, a rule of another entity keyed by entity id, a parameter's cell for the
 * household; and what each output is, for its explanation.
 */
export function readOutputs(exec: Executable, prepared: PreparedHousehold, evaluation: Pick<EngineEvaluation, 'rule' | 'json' | 'input' | 'parameter'>, variables: string[], targets: Target[]): { outputs: Record<string, unknown>; explained: ExplainTarget[] } {
  const outputs: Record<string, unknown> = {};
  const explained: ExplainTarget[] = [];
  targets.forEach((t, i) => {
    if (t.kind === 'rule') {
      const rule = exec.rules[t.index];
      const ids = prepared.instancesOf(rule.entity);
      const values = ids.map((id) => evaluation.json(evaluation.rule(t.index, id), rule.judgment));
      outputs[variables[i]] = ids.length === 1 && ids[0] === prepared.mainId ? values[0] : Object.fromEntries(ids.map((id, k) => [id, values[k]]));
      explained.push({ output: variables[i], kind: 'rule', index: t.index, ids });
    } else {
      const param = exec.parameters[t.index];
      let key = 0;
      if (param.indexedBy) {
        const k = evaluation.input(param.indexedBy, prepared.mainId);
        key = k instanceof Decimal ? k.toNumber() : 0;
      }
      outputs[variables[i]] = toJson(evaluation.parameter(t.index, key));
      explained.push({ output: variables[i], kind: 'param', index: t.index, key });
    }
  });
  return { outputs, explained };
}

/** The period, if the household did not give a valid one, then every input the calculation read at its default (the dataset lists them), in the order first read. */
export function assumptionsOf(loaded: LoadedPackage, prepared: PreparedHousehold): Assumption[] {
  const assumptions: Assumption[] = [];
  if (prepared.periodAssumed) {
    assumptions.push({ input: 'period', legal_id: null, entity: null, entity_id: null, value: prepared.periodLabel, reason: prepared.periodAssumed.reason, field: 'household.period' });
  }
  for (const { slot, entity } of prepared.dataset.defaultsRead) {
    const origin = prepared.origin(slot, entity);
    if (origin.given) continue; // a given value not for the whole period
    assumptions.push(assumedInput(loaded, prepared, prepared.entityOf(slot, entity), slot, entity, origin.reason));
  }
  return assumptions;
}

/** What an assumed input is, per package, entity, input and entity id: the same for every household,
 *  so each is made once and shared (frozen: an answer's reader cannot change the next one's). */
type AssumedBySlot = Map<string, Map<string, Map<string, Assumption>>>; // input, then entity id, then label
interface AssumedInputs {
  byReason: [notGiven: AssumedBySlot, givenNull: AssumedBySlot];
  size: number;
}
const assumedInputs = new WeakMap<LoadedPackage, AssumedInputs>();
/** Entity ids are the clients' own (a person's id may be new in every household): past this many, an
 *  assumption is made for its answer alone, so a daemon's memory does not grow with its clients' ids. */
const ASSUMPTIONS_KEPT = 50_000;

function assumedInput(loaded: LoadedPackage, prepared: PreparedHousehold, label: string, slot: string, entity: string, reason: 'not_given' | 'null'): Assumption {
  let kept = assumedInputs.get(loaded);
  if (!kept) assumedInputs.set(loaded, (kept = { byReason: [new Map(), new Map()], size: 0 }));
  // nested maps: no key string built per lookup
  const bySlot = kept.byReason[reason === 'null' ? 1 : 0];
  let byEntity = bySlot.get(slot);
  if (!byEntity) bySlot.set(slot, (byEntity = new Map()));
  let byLabel = byEntity.get(entity);
  if (!byLabel) byEntity.set(entity, (byLabel = new Map()));
  let assumption = byLabel.get(label);
  if (!assumption) {
    const value = prepared.dataset.input(slot, entity, prepared.period);
    assumption = Object.freeze({ input: slot, legal_id: loaded.resolveInput(label, slot)?.legal_id ?? null, entity: label, entity_id: entity, value: value === undefined ? null : toJson(value), reason, field: `household.entities.${label}.${entity}.${slot}` });
    if (kept.size < ASSUMPTIONS_KEPT) {
      byLabel.set(label, assumption);
      kept.size++;
    } else if (!byLabel.size) byEntity.delete(entity); // nothing kept for this id
  }
  return assumption;
}

/** How the warning lists an assumption (shared assumptions, so each is written once; mainId is the package's). */
const listings = new WeakMap<Assumption, string>();

/** One warning naming every input assumed (the period has its own), for clients that read only `warnings`. */
function assumptionWarning(assumptions: Assumption[], mainId: string): string[] {
  const inputs = assumptions.filter((a) => a.input !== 'period');
  if (!inputs.length) return [];
  const listed = inputs.map((a) => {
    let text = listings.get(a);
    if (text === undefined) listings.set(a, (text = `${a.input}${a.entity_id === mainId ? '' : ` (${a.entity} ${a.entity_id})`} = ${JSON.stringify(a.value)}${a.reason === 'null' ? ' (given as null)' : ''}`));
    return text;
  });
  return [`assumed ${inputs.length} ${inputs.length === 1 ? 'input' : 'inputs'} the household does not give, at the package defaults: ${listed.join(', ')}; each is in \`assumptions\`, and giving it makes the answer rest on facts`];
}
