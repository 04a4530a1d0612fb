import { type ParameterOverride, parseOverride, withOverrides } from './overrides.js';
import { type DiffSide, ProgramSide } from './program-side.js';
import { rulesChange, type RulesChange } from './rule-changes.js';
import { valueKind } from '../dtypes.js';
import { resolveOutput } from '../runtime/calculate.js';
import type { LoadedPackage } from '../runtime/loaded-package.js';

// Everything a diff settles before the first household: the two sides (the reform with its
// --set overrides applied to a copy), what changed in the rules, the outputs compared, which of
// them is the amount (gaining/losing, totals, histogram) and which the eligibility (newly
// eligible/ineligible), and the columns each household carries (weight, --by).

/** A diff that cannot run as asked (an output one side lacks, a bad --set, …): a usage error. */
export class DiffError extends Error {
  override name = 'DiffError';
}

export interface PlanOptions {
  /** Outputs to compare (default: the default outputs both sides have). */
  variables?: string[];
  /** Parameter overrides for the reform: `LEGAL_ID=VALUE` or `LEGAL_ID[KEY]=VALUE`. */
  set?: string[];
  /** The numeric output whose change is summarised (default: the first numeric output compared). */
  amount?: string;
  /** The condition output whose flips count as newly eligible/ineligible (default: the first condition compared). */
  eligibility?: string;
  /** Where each household's weight is (a CSV column or a household's top-level key). */
  weight?: string;
  /** Columns (or inputs of the main entity) to break the summary down by. */
  by?: string[];
}

export interface DiffPlan {
  base: ProgramSide;
  reform: ProgramSide;
  overrides: ParameterOverride[];
  rules: RulesChange;
  variables: string[];
  amount: string | null;
  eligibility: string | null;
  weight: string | null;
  by: string[];
  /** The --by columns that name inputs of the main entity, by column, as their input names. */
  byInputs: Record<string, string>;
  /** Things the reader should know (outputs left out because one side lacks them, …). */
  notes: string[];
}

export const asSide = (s: LoadedPackage | DiffSide): DiffSide => ('package' in s ? s : { package: s });

type Kind = 'number' | 'condition' | 'other';

/** What an output of a side holds: a number of the main entity, a condition of it, or anything else (text, a per-person output). */
function outputKind(side: ProgramSide, name: string): Kind {
  const target = resolveOutput(side.loaded, name);
  if (!target) return 'other';
  if (target.kind === 'param') {
    const p = side.exec.parameters[target.index];
    return valueKind(p.dtype ?? undefined) === 'number' || valueKind(p.dtype ?? undefined) === 'whole' ? 'number' : 'other';
  }
  const rule = side.exec.rules[target.index];
  if (rule.entity !== side.loaded.pkg.main_entity) return 'other';
  if (rule.judgment) return 'condition';
  const kind = valueKind(rule.dtype ?? undefined);
  return kind === 'number' || kind === 'whole' ? 'number' : 'other';
}

export function planDiff(baseline: LoadedPackage | DiffSide, reform: LoadedPackage | DiffSide, options: PlanOptions = {}): DiffPlan {
  const baseSide = asSide(baseline);
  const reformSide = asSide(reform);
  let overrides: ParameterOverride[];
  let reformPackage: LoadedPackage;
  try {
    overrides = (options.set ?? []).map(parseOverride);
    reformPackage = withOverrides(reformSide.package, overrides);
  } catch (err) {
    throw new DiffError((err as Error).message);
  }
  const base = new ProgramSide(baseSide);
  const setLabel = overrides.length ? ` with ${overrides.map((o) => `--set ${o.text}`).join(' ')}` : '';
  const rside = new ProgramSide({ ...reformSide, package: reformPackage, label: `${new ProgramSide(reformSide).label}${setLabel}` });
  const [bp, rp] = [base.loaded.pkg, rside.loaded.pkg];
  if (bp.jurisdiction !== rp.jurisdiction || bp.program_id !== rp.program_id) throw new DiffError(`the baseline is ${bp.jurisdiction}/${bp.program_id} and the reform ${rp.jurisdiction}/${rp.program_id}: a diff compares one program`);

  const notes: string[] = [];
  let variables: string[];
  if (options.variables?.length) {
    for (const name of options.variables) {
      const missing = [resolveOutput(base.loaded, name) ? '' : 'the baseline', resolveOutput(rside.loaded, name) ? '' : 'the reform'].filter(Boolean);
      if (missing.length) throw new DiffError(`--var ${name}: not an output of ${missing.join(' nor ')} (outputs: ${(missing[0] === 'the baseline' ? bp : rp).outputs.map((o) => o.name).join(', ')})`);
    }
    variables = options.variables;
  } else {
    const both = [...new Set([...bp.default_outputs, ...rp.default_outputs])];
    variables = both.filter((name) => resolveOutput(base.loaded, name) && resolveOutput(rside.loaded, name));
    const left = both.filter((name) => !variables.includes(name));
    if (left.length) notes.push(`not compared (an output of one side only): ${left.join(', ')}`);
  }

  const pick = (flag: string, given: string | undefined, kind: Kind): string | null => {
    if (given === undefined) return variables.find((v) => outputKind(base, v) === kind && outputKind(rside, v) === kind) ?? null;
    if (!variables.includes(given)) throw new DiffError(`${flag} ${given}: not one of the outputs compared (${variables.join(', ')})`);
    if (outputKind(base, given) !== kind || outputKind(rside, given) !== kind) throw new DiffError(`${flag} ${given}: not ${kind === 'number' ? 'a number' : 'a condition'} of the ${bp.main_entity} on both sides`);
    return given;
  };
  const amount = pick('--amount', options.amount, 'number');
  const eligibility = pick('--eligibility', options.eligibility, 'condition');

  const by = options.by ?? [];
  const byInputs: Record<string, string> = {};
  for (const column of by) {
    const input = base.loaded.resolveInput(bp.main_entity, column) ?? rside.loaded.resolveInput(rp.main_entity, column);
    if (input) byInputs[column] = input.name;
  }
  if (options.weight !== undefined && by.includes(options.weight)) throw new DiffError(`--weight ${options.weight} is also a --by column`);
  return { base, reform: rside, overrides, rules: rulesChange(base, rside), variables, amount, eligibility, weight: options.weight ?? null, by, byInputs, notes };
}

/** A household's weight from its column or key: a non-negative number, else an error message. */
export function weightOf(raw: unknown, column: string): number | string {
  if (raw === undefined || raw === null || raw === '') return `no weight (--weight ${column})`;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) return `weight ${JSON.stringify(raw)} (--weight ${column}) is not a non-negative number`;
  return n;
}

/** A household's --by values: its own column or key when it has one, else the input as the baseline read it. */
export function byValues(plan: DiffPlan, tags: Record<string, unknown>, inputs: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const column of plan.by) {
    const raw = tags[column] ?? inputs[plan.byInputs[column]];
    out[column] = raw === undefined || raw === null || raw === '' ? '(none)' : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
  }
  return out;
}
