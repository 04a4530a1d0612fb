import { Evaluation, EvaluationError } from '../engine/evaluate.js';
import { Decimal, toJson, type Value } from '../engine/values.js';
import type { CalculateRequest } from '../4-package/package-types.js';
import { HouseholdError, prepareHousehold } from './household.js';
import type { LoadedPackage } from './loaded-package.js';

// One calculation: a household through a package, the requested outputs, and a trace that
// attributes every computed value to the rule and the legal sources that produced it.

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

function resolveOutput(loaded: LoadedPackage, name: string): Target | undefined {
  const exec = loaded.executable;
  const canonical = loaded.pkg.output_aliases[name] ?? name;
  const byId = (id: string): Target | undefined => {
    const r = exec.ruleById.get(id);
    if (r !== undefined) return { kind: 'rule', index: r };
    const p = exec.paramById.get(id);
    return p !== undefined ? { kind: 'param', index: p } : undefined;
  };
  const rule = exec.ruleByName.get(canonical);
  if (rule !== undefined) return { kind: 'rule', index: rule };
  const param = exec.paramByName.get(canonical);
  if (param !== undefined) return { kind: 'param', index: param };
  return byId(canonical);
}

function jsonValue(v: Value | string, judgment: boolean): unknown {
  if (judgment) return v === 'holds' ? true : v === 'not_holds' ? false : null;
  return toJson(v as Value);
}

export function calculate(loaded: LoadedPackage, request: Pick<CalculateRequest, 'household' | 'variables'>): CalculationResult {
  const { pkg, executable: exec } = loaded;
  const variables = request.variables ?? pkg.default_outputs;
  const targets = variables.map((name, i) => {
    const t = resolveOutput(loaded, name);
    if (!t) throw new OutputError(`variables[${i}]: unknown output \`${name}\` for ${pkg.jurisdiction}/${pkg.program_id} (outputs: ${pkg.outputs.map((o) => o.name).join(', ')})`);
    return t;
  });
  const prepared = prepareHousehold(loaded, request.household);
  const evaluation = new Evaluation(exec, prepared.dataset, prepared.period, { trace: true });
  const outputs: Record<string, unknown> = {};
  try {
    targets.forEach((t, i) => {
      if (t.kind === 'rule') {
        outputs[variables[i]] = jsonValue(evaluation.rule(t.index, prepared.mainId) as Value, exec.rules[t.index].judgment);
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
    if (err instanceof EvaluationError && err.missingInput) {
      throw new HouseholdError(prepared.fieldOf(err.missingInput.slot, err.missingInput.entity), `required input \`${err.missingInput.slot}\` is missing (needed by ${err.chain[err.chain.length - 1] ?? 'the calculation'})`);
    }
    throw err;
  }
  const trace = (evaluation.trace ?? []).map((step): TraceEntry => {
    const rule = exec.rules[step.rule];
    return { rule_id: rule.id, variable: rule.name, value: jsonValue(step.result as Value, rule.judgment), sources: pkg.rule_info[step.rule]?.sources ?? [], entity: step.entity };
  });
  return { period: prepared.periodLabel, outputs, trace, warnings: prepared.warnings };
}
