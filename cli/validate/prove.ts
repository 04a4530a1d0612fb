import type { WireHousehold } from '../../server/migration/wire.js';
import type { ReferenceCase } from '../../server/migration/reference.js';
import type { Departure, Values } from './departures.js';
import type { Difference, Finding } from './findings.js';
import type { Runner } from './runner.js';

export type { Difference } from './findings.js';

// The counterfactual proof of one household's differences. The departures a difference may
// come from (those whose counterfactual changes this household and that move a differing
// variable) are applied alone and together: the household is changed and calculated again,
// then any external formula is recomputed from our values. The difference is explained only
// when some set of them lands within the tolerance on every compared variable; the smallest
// such set proves it. Otherwise it is unexplained, with what still differs.

export interface Attempt {
  departures: string[];
  /** What still differs with these counterfactuals applied (empty: it lands). */
  differences: Difference[];
  /** Variables the counterfactual moved that its departure does not declare (single departures only). */
  undeclared?: string[];
  /** The counterfactual household could not be calculated. */
  error?: string;
}

export interface Proof {
  /** `finding`: no departure explains it, and it starts in a rule of the served corpus (`finding`); `unexplained` says why not (`diagnosis`). */
  class: 'explained' | 'finding' | 'unexplained';
  /** Departures whose counterfactual changes this household and which move a differing variable. */
  attributed: string[];
  /** The fewest attributed departures whose counterfactual lands on every compared variable (empty when unexplained). */
  proved_by: string[];
  /** Each attributed departure alone, then all together, then other combinations until one lands. */
  attempts: Attempt[];
  finding?: Finding;
  diagnosis?: string;
}

export interface ProofContext {
  departures: Departure[];
  runner: Runner;
  /** The compared variables, in the tables' order. */
  variables: string[];
  period: string;
  differencesOf(values: Values, expected: Record<string, unknown>): Difference[];
}

/** Every non-empty subset of `items` of `size` elements, in order. */
function subsets<T>(items: T[], size: number): T[][] {
  if (size === 0) return [[]];
  return items.flatMap((first, i) => subsets(items.slice(i + 1), size - 1).map((rest) => [first, ...rest]));
}

export async function prove(c: ReferenceCase, values: Values, differences: Difference[], ctx: ProofContext): Promise<Proof> {
  const month = ctx.period;
  const differing = new Set(differences.map((d) => d.variable));
  const concerns = (d: Departure): boolean => {
    if (d.counterfactual.via === 'recompute') return d.counterfactual.apply(values, c.situation, month) !== undefined;
    return d.counterfactual.apply(structuredClone(c.situation), month);
  };
  const moves = (d: Departure) => d.variables.some((v) => differing.has(v));
  const changing = ctx.departures.filter((d) => moves(d) && d.counterfactual.via === 'household' && concerns(d));
  // a formula applies to the values the household departures lead to, not only to ours
  const attributed = ctx.departures.filter((d) => moves(d) && (changing.includes(d) || (d.counterfactual.via === 'recompute' && (changing.length > 0 || concerns(d)))));
  if (!attributed.length) return { class: 'unexplained', attributed: [], proved_by: [], attempts: [] };

  // households calculated again, by the household-changing departures applied
  const runs = new Map<string, Promise<{ situation: WireHousehold; values?: Values; error?: string }>>();
  const calculated = (changing: Departure[]) => {
    const key = changing.map((d) => d.id).join('\u0000');
    if (!runs.has(key)) {
      const situation = structuredClone(c.situation);
      for (const d of changing) if (d.counterfactual.via === 'household') d.counterfactual.apply(situation, month);
      runs.set(
        key,
        changing.length
          ? ctx.runner.run(c, ctx.variables, month, situation).then((o) => ({ situation, values: o.error ? undefined : o.values, error: o.error }))
          : Promise.resolve({ situation, values }),
      );
    }
    return runs.get(key)!;
  };
  const attempt = async (set: Departure[]): Promise<Attempt> => {
    const run = await calculated(set.filter((d) => d.counterfactual.via === 'household'));
    const ids = set.map((d) => d.id);
    if (!run.values) return { departures: ids, differences, error: run.error ?? 'not calculated' };
    let after = run.values;
    for (const d of set) if (d.counterfactual.via === 'recompute') after = d.counterfactual.apply(after, run.situation, month) ?? after;
    const residual = ctx.differencesOf(after, c.expected);
    const result: Attempt = { departures: ids, differences: residual };
    if (set.length === 1) {
      const moved = ctx.variables.filter((v) => v in after && JSON.stringify(after[v]) !== JSON.stringify(values[v]));
      const undeclared = moved.filter((v) => !set[0].variables.includes(v));
      if (undeclared.length) result.undeclared = undeclared;
    }
    return result;
  };

  const attempts: Attempt[] = [];
  const tried = new Set<string>();
  const tryAll = async (sets: Departure[][]) => {
    for (const set of sets) {
      const key = set.map((d) => d.id).join('\u0000');
      if (tried.has(key)) continue;
      tried.add(key);
      attempts.push(await attempt(set));
    }
  };
  await tryAll([...attributed.map((d) => [d]), attributed]);
  for (let size = 2; size < attributed.length && !attempts.some(lands); size++) await tryAll(subsets(attributed, size));
  let proof = attempts.filter(lands).sort((a, b) => a.departures.length - b.departures.length)[0]?.departures;
  // a departure the proof lands without is not part of it
  for (let i = 0; proof && proof.length > 1 && i < proof.length; ) {
    const without = attributed.filter((d) => proof!.includes(d.id) && d.id !== proof![i]);
    const result = await attempt(without);
    if (!tried.has(without.map((d) => d.id).join('\u0000'))) attempts.push(result);
    tried.add(without.map((d) => d.id).join('\u0000'));
    if (lands(result)) proof = result.departures;
    else i++;
  }
  return { class: proof ? 'explained' : 'unexplained', attributed: attributed.map((d) => d.id), proved_by: proof ?? [], attempts };
}

const lands = (a: Attempt) => !a.error && a.differences.length === 0;
