import { readsOf } from '../engine/reads.js';
import type { ProgramSide } from './program-side.js';

// Which of the reform's rules compute what the baseline's do for every household: the same legal
// id, the same definition (every dated version), and everything they read the same too, all the
// way down: parameters with the same values, relations defined alike, rules shared in turn, and
// inputs read through the same household adapter. Their baseline values are reused for the
// reform (the compiled engine's Seed), so a diff evaluates only what the change can reach.

/** The household adapter's part of a package: equal ones read any household into the same inputs. */
export function adapterForm(side: ProgramSide): string {
  const pkg = side.loaded.pkg;
  return JSON.stringify({
    entities: pkg.entities.map((e) => ({ ...e, inputs: e.inputs.map(({ description: _d, ...input }) => input) })),
    aliases: pkg.household_aliases,
    main: pkg.main_entity,
    person: pkg.person_entity,
    period: pkg.default_period,
    relations: side.exec.relations.map((r) => [r.id, r.name]),
  });
}

/** Whether both sides read a household into the same inputs (a prepared household can serve both). */
export const sameAdapter = (base: ProgramSide, reform: ProgramSide): boolean => adapterForm(base) === adapterForm(reform);

/** For each reform rule, the baseline rule that computes the same value for every household, or -1. */
export function sharedRules(base: ProgramSide, reform: ProgramSide): Int32Array {
  const r = reform.exec;
  const b = base.exec;
  const shared = new Int32Array(r.rules.length).fill(-1);
  if (!sameAdapter(base, reform)) return shared;
  const baseParams = new Map(b.parameters.map((p) => [p.id, p.index]));
  const state = new Int8Array(r.rules.length); // 0 unknown, 1 visiting, 2 decided
  const paramSame = (index: number) => {
    const other = baseParams.get(r.parameters[index].id);
    return other !== undefined && base.paramForm(other) === reform.paramForm(index);
  };
  const relationSame = (index: number) => {
    const other = b.relationById.get(r.relations[index].id);
    return other !== undefined && base.relationForm(other) === reform.relationForm(index);
  };
  const decide = (index: number): boolean => {
    if (state[index] === 2) return shared[index] >= 0;
    if (state[index] === 1) return false; // a cycle the compiler would have refused
    state[index] = 1;
    const rule = r.rules[index];
    const other = b.ruleById.get(rule.id);
    let same = other !== undefined && base.ruleForm(other) === reform.ruleForm(index);
    for (const version of same ? rule.versions : []) {
      const reads = readsOf(r, version.expr);
      same = [...reads.params].every(paramSame) && [...reads.relations].every(relationSame) && [...reads.rules, ...reads.memberRules].every(decide);
      if (!same) break;
    }
    state[index] = 2;
    if (same) shared[index] = other!;
    return same;
  };
  for (let i = 0; i < r.rules.length; i++) decide(i);
  return shared;
}
