import { createHash } from 'node:crypto';
import type { Program } from '../3-lower/ir.js';
import { RuleSpecError } from '../diagnostics.js';
import { calculate } from '../runtime/calculate.js';
import { HouseholdError } from '../runtime/household.js';
import { EvaluationError } from '../engine/evaluate.js';
import { LoadedPackage } from '../runtime/loaded-package.js';
import { packageCoverage } from './coverage.js';
import { catalogueInputs, declaredInput, householdAliases } from './inputs.js';
import { OUTPUT_FORMAT_VERSION, type CalculateRequest, type PackageEntity, type RuntimePackage } from './package-types.js';
import { executableToJson } from './serialize.js';

// Phase 4: a compiled program becomes a runtime package: everything the daemon needs to list,
// describe and execute it, with no YAML at run time.

export interface PackageSpec {
  jurisdiction: string;
  programId: string;
  name: string;
  description: string;
  period: string; // YYYY-MM
  /** The last month the program's figures are known to apply (`valid_through` in a program spec). */
  validThrough?: string;
  outputs: string[];
  outputAliases: Record<string, string>;
  acknowledgedIncomplete: string[];
  source: RuntimePackage['source'];
  /** Where the outputs are listed, to point at an unknown one. */
  outputsLocation?: { file: string; path: (string | number)[] };
  /** A hash of everything the package is built from (spec and module sources). */
  contentHash: string;
  notes?: string[];
}

export function buildRuntimePackage(program: Program, spec: PackageSpec): RuntimePackage {
  const outputs = spec.outputs.map((name, i) => {
    const rule = program.ruleByName.get(name);
    const param = program.paramByName.get(name);
    const id = rule !== undefined ? program.rules[rule].id : param !== undefined ? program.parameters[param].id : undefined;
    if (!id) {
      throw new RuleSpecError('invalid_module', `output \`${name}\` is not declared by any module in the program's scope`, {
        location: spec.outputsLocation ? { file: spec.outputsLocation.file, path: [...spec.outputsLocation.path, i] } : undefined,
      });
    }
    return { name, legal_id: id };
  });
  const firstRule = spec.outputs.map((n) => program.ruleByName.get(n)).find((r) => r !== undefined);
  const { entities, mainEntity, personEntity } = catalogueInputs(program, firstRule !== undefined ? program.rules[firstRule].entity : 'Household');

  // output aliases: declared ones, plus each output without the program's prefix
  const outputAliases: Record<string, string> = { ...spec.outputAliases };
  const prefix = `${spec.programId.split('/').pop()!.replace(/-/g, '_')}_`;
  for (const { name } of outputs) {
    const short = name.slice(prefix.length);
    if (name.startsWith(prefix) && short && !spec.outputs.includes(short) && !(short in outputAliases)) outputAliases[short] = name;
  }
  const executable = executableToJson(program);
  const runtimeHash = createHash('sha256').update(`${OUTPUT_FORMAT_VERSION}:${spec.contentHash}`).digest('hex').slice(0, 12);

  const pkg: RuntimePackage = {
    format_version: OUTPUT_FORMAT_VERSION,
    program_id: spec.programId,
    jurisdiction: spec.jurisdiction,
    runtime_id: `${spec.jurisdiction}/${spec.programId}@${runtimeHash}`,
    mode: 'compiled',
    status: 'ready',
    name: spec.name,
    description: spec.description,
    default_outputs: spec.outputs,
    output_count: outputs.length,
    entity_count: entities.length,
    input_count: entities.reduce((n, e) => n + e.inputs.length, 0),
    default_period: spec.period,
    coverage: packageCoverage(program, spec.period, spec.validThrough),
    outputs: [...outputs, ...Object.entries(outputAliases).map(([alias, canonical]) => ({ name: alias, legal_id: outputs.find((o) => o.name === canonical)?.legal_id, alias_for: canonical }))],
    entities,
    output_aliases: outputAliases,
    household_aliases: householdAliases(program, entities, spec.programId),
    sample_request: { program_id: spec.programId, jurisdiction: spec.jurisdiction, household: {} },
    source: spec.source,
    acknowledged_incomplete: spec.acknowledgedIncomplete,
    notes: [...(spec.notes ?? [])],
    main_entity: mainEntity,
    person_entity: personEntity,
    executable,
    rule_info: program.rules.map((r) => ({
      sources: [r.decl.source, r.decl.sourceUrl].filter((s): s is string => !!s),
      ...(r.decl.unit ? { unit: r.decl.unit } : {}),
      ...(r.decl.period ? { period: r.decl.period } : {}),
    })),
  };
  pkg.sample_request = sampleRequest(program, pkg);
  return pkg;
}

/** A guess for an input nobody gave an example for. */
function guess(input: PackageEntity['inputs'][number], period: string): unknown {
  if (input.values?.length) return input.values[0];
  if (input.name.endsWith('_size')) return 1;
  switch (input.dtype) {
    case 'Boolean':
      return false;
    case 'Text':
      return 'unknown';
    case 'Date':
      return `${period}-01`;
    case 'Integer':
      return 1;
    default:
      return 0;
  }
}

/** Set `value` at a household field path such as `household.people.person-1.age`
 *  (`*` as the person id sets it for every person). */
function setField(household: Record<string, unknown>, field: string, value: unknown): boolean {
  const parts = field.split('.');
  if (parts[0] !== 'household' || parts.length < 2) return false;
  let node: Record<string, unknown> = household;
  for (const key of parts.slice(1, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
  return true;
}

/** A ready-to-run request: declared examples, then required inputs filled in (and table keys
 *  chosen) until the default outputs compute, verified here at compile time. */
function sampleRequest(program: Program, pkg: RuntimePackage): CalculateRequest {
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity)!;
  const person = pkg.entities.find((e) => e.entity === pkg.person_entity);
  const facts: Record<string, unknown> = {};
  for (const input of main.inputs) {
    const example = declaredInput(program, input.name)?.example;
    if (example !== undefined) facts[input.name] = example;
  }
  const sizeInput = main.inputs.find((x) => x.name.endsWith('_size'));
  const peopleCount = Math.max(1, Math.min(8, Number(sizeInput && facts[sizeInput.name] !== undefined ? facts[sizeInput.name] : 1)));
  const household: Record<string, unknown> = { period: pkg.default_period, facts };
  if (person) {
    const people: Record<string, Record<string, unknown>> = {};
    for (let i = 1; i <= peopleCount; i++) {
      const attrs: Record<string, unknown> = {};
      for (const input of person.inputs) {
        const example = declaredInput(program, input.name)?.example;
        if (example !== undefined) attrs[input.name] = Array.isArray(example) ? example[(i - 1) % example.length] : example;
      }
      people[`${person.id_template.replace('{index}', String(i))}`] = attrs;
    }
    household.people = people;
  }
  const request: CalculateRequest = { program_id: pkg.program_id, jurisdiction: pkg.jurisdiction, household, variables: pkg.default_outputs };
  const loaded = new LoadedPackage(pkg, program);
  const inputOf = (name: string) => pkg.entities.flatMap((e) => e.inputs).find((i) => i.name === name);
  const tried = new Set<string>();
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      calculate(loaded, request);
      return request;
    } catch (err) {
      const fix = repair(err);
      const attemptKey = fix && `${fix.field}=${JSON.stringify(fix.value)}`;
      if (fix && !tried.has(attemptKey!)) {
        tried.add(attemptKey!);
        if (fix.field.startsWith('household.people.') && household.people && fix.field.split('.').length === 4) {
          for (const attrs of Object.values(household.people as Record<string, Record<string, unknown>>)) attrs[fix.field.split('.').pop()!] = fix.value;
          continue;
        }
        if (setField(household, fix.field, fix.value)) continue;
      }
      pkg.notes.push(`the sample request does not compute: ${err instanceof Error ? err.message : String(err)}`);
      return request;
    }
  }
  return request;

  function repair(err: unknown): { field: string; value: unknown } | undefined {
    if (err instanceof HouseholdError && err.field === 'household.period') return err.hint === undefined ? undefined : { field: 'household.period', value: err.hint };
    if (err instanceof HouseholdError) {
      const missing = /required input `([^`]+)`/.exec(err.message)?.[1];
      const input = missing ? inputOf(missing) : undefined;
      return input ? { field: err.field, value: guess(input, pkg.default_period) } : undefined;
    }
    // a table without a cell for the guessed key: use a key the table has
    if (err instanceof EvaluationError && err.detail.missingKey) {
      const param = program.parameters[err.detail.missingKey.parameter];
      const slot = param.indexedBy;
      const keys = [...(param.versions[param.versions.length - 1]?.cells.keys() ?? [])].filter((k) => k > 0);
      const entity = slot ? pkg.entities.find((e) => e.inputs.some((i) => i.name === slot)) : undefined;
      if (slot && keys.length && entity) {
        const field = entity === main ? `household.facts.${slot}` : `household.entities.${entity.entity}.${main.id_template}.${slot}`;
        return { field, value: Math.min(...keys) };
      }
    }
    return undefined;
  }
}
