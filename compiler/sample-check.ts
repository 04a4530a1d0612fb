import type { Program } from './3-lower/ir.js';
import { guess } from './4-package/runtime-package.js';
import type { RuntimePackage } from './4-package/package-types.js';
import { EvaluationError } from './engine/evaluate.js';
import { calculate } from './runtime/calculate.js';
import { HouseholdError } from './runtime/household.js';
import { LoadedPackage } from './runtime/loaded-package.js';

// A package's sample request is verified by running it, which needs the runtime: the
// orchestrator does it after packaging (phase 4 builds the sample, it does not run it). A sample
// that does not compute is repaired where the error says how (the period, an input the sample
// left out, a table key the table has); what cannot be repaired becomes a note of the package.

/** Run `pkg.sample_request` until it computes, repairing it in place; a note when it cannot. */
export function verifySampleRequest(program: Program, pkg: RuntimePackage): void {
  const request = pkg.sample_request;
  const household = request.household as { period: string; entities: Record<string, Record<string, Record<string, unknown>>> };
  const { entities } = household;
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity)!;
  const person = pkg.entities.find((e) => e.entity === pkg.person_entity);
  const loaded = new LoadedPackage(pkg, program);
  const tried = new Set<string>();
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      // only whether it runs matters, and how it fails: the interpreter (held to the compiled
      // engine's values and errors by the differential test) reads only what the sample reaches,
      // where the compiled engine would first lower every rule of the program to closures
      calculate(loaded, request, { trace: false, engine: 'interpreter' });
      return;
    } catch (err) {
      const fix = repair(err);
      const attemptKey = fix && JSON.stringify(fix);
      if (fix && !tried.has(attemptKey!)) {
        tried.add(attemptKey!);
        if (fix.entity === undefined) household.period = String(fix.value);
        // a person's input: every person gets the same fix
        else if (fix.entity === person?.entity && fix.id !== main.id_template) for (const values of Object.values(entities[fix.entity])) values[fix.input] = fix.value;
        else ((entities[fix.entity] ??= {})[fix.id] ??= {})[fix.input] = fix.value;
        continue;
      }
      pkg.notes.push(`the sample request does not compute: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
  }

  /** What to change: an entity instance's input (entity undefined: the period). */
  function repair(err: unknown): { entity?: string; id: string; input: string; value: unknown } | undefined {
    if (err instanceof HouseholdError && err.field === 'household.period') return err.hint === undefined ? undefined : { id: '', input: 'period', value: err.hint };
    // an input read for an instance the sample did not give it to (an input of another entity
    // read at the main entity, a member read through a second relation)
    const missing = err instanceof HouseholdError ? /^household\.entities\.([^.]+)\.([^.]+)\.([^.]+)$/.exec(err.field) : null;
    if (missing && /required input `/.test(err instanceof Error ? err.message : '')) {
      const input = pkg.entities.find((e) => e.entity === missing[1])?.inputs.find((i) => i.name === missing[3]);
      if (input) return { entity: missing[1], id: missing[2], input: input.name, value: input.default ?? guess(input, pkg.default_period) };
    }
    // a table without a cell for the chosen key: use a key the table has
    if (err instanceof EvaluationError && err.detail.missingKey) {
      const param = program.parameters[err.detail.missingKey.parameter];
      const slot = param.indexedBy;
      const keys = [...(param.versions[param.versions.length - 1]?.cells.keys() ?? [])].filter((k) => k > 0);
      const entity = slot ? pkg.entities.find((e) => e.inputs.some((i) => i.name === slot)) : undefined;
      if (slot && keys.length && entity) return { entity: entity.entity, id: entity === person ? '' : main.id_template, input: slot, value: Math.min(...keys) };
    }
    return undefined;
  }
}
