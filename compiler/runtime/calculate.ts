import { type EngineName, startEvaluation } from '../engine/engine.js';
import { EvaluationError } from '../engine/evaluate.js';
import { Day, Decimal, toJson } from '../values.js';
import type { CalculateRequest } from '../4-package/package-types.js';
import { HouseholdError, prepareHousehold } from './household.js';
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

export interface CalculationResult {
  period: string;
  outputs: Record<string, unknown>;
  trace: TraceEntry[];
  warnings: string[];
}

/** A requested variable the package does not have: the request itself is wrong. */
export class OutputError extends Error {}

type Target = { kind: 'rule' | 'param'; index: number };

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

/** A period after the figures' coverage is answered on the newest figures, and says so. */
function coverageWarnings(pkg: LoadedPackage['pkg'], start: number): string[] {
  const through = pkg.coverage && Day.parse(pkg.coverage.through);
  if (!through || start <= through.n) return [];
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
  const evaluation = startEvaluation(options.engine ?? 'compiled', exec, prepared.dataset, prepared.period, { trace: options.trace ?? true, deadline: options.deadline });
  const outputs: Record<string, unknown> = {};
  try {
    targets.forEach((t, i) => {
      if (t.kind === 'rule') {
        const rule = exec.rules[t.index];
        const ids = prepared.instancesOf(rule.entity);
        const values = ids.map((id) => evaluation.json(evaluation.rule(t.index, id), rule.judgment));
        outputs[variables[i]] = ids.length === 1 && ids[0] === prepared.mainId ? values[0] : Object.fromEntries(ids.map((id, k) => [id, values[k]]));
      } else {
        const param = exec.parameters[t.index];
        let key = 0;
        if (param.indexedBy) {
          const k = evaluation.input(param.indexedBy, prepared.mainId);
          key = k instanceof Decimal ? k.toNumber() : 0;
        }
        outputs[variables[i]] = toJson(evaluation.parameter(t.index, key));
      }
    });
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
  const trace = (evaluation.trace ?? []).map((step): TraceEntry => {
    const rule = exec.rules[step.rule];
    return { rule_id: rule.id, variable: rule.name, value: evaluation.json(step.result, rule.judgment), sources: pkg.rule_info[step.rule]?.sources ?? [], entity: step.entity };
  });
  return { period: prepared.periodLabel, outputs, trace, warnings: [...prepared.warnings, ...coverageWarnings(pkg, prepared.period.start)] };
}
