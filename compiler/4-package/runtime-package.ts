import { createHash } from 'node:crypto';
import type { Program } from '../3-lower/ir.js';
import { RuleSpecError } from '../diagnostics.js';
import { calculate } from '../runtime/calculate.js';
import { HouseholdError } from '../runtime/household.js';
import { LoadedPackage } from '../runtime/loaded-package.js';
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

/** A ready-to-run request: declared examples, then required inputs filled in until the
 *  default outputs compute (verified here, at compile time). */
function sampleRequest(program: Program, pkg: RuntimePackage): CalculateRequest {
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity)!;
  const person = pkg.entities.find((e) => e.entity === pkg.person_entity);
  const facts: Record<string, unknown> = {};
  for (const input of main.inputs) {
    const example = declaredInput(program, input.name)?.example;
    if (example !== undefined) facts[input.name] = example;
  }
  const size = main.inputs.find((i) => i.name === main.inputs.find((x) => x.name.endsWith('_size'))?.name);
  const peopleCount = Math.max(1, Math.min(8, Number(size && facts[size.name] !== undefined ? facts[size.name] : 1)));
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
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      calculate(loaded, request);
      return request;
    } catch (err) {
      const missing = err instanceof HouseholdError ? /required input `([^`]+)`/.exec(err.message)?.[1] : undefined;
      const input = missing && main.inputs.find((i) => i.name === missing);
      if (missing && input && !(missing in facts)) {
        facts[missing] = guess(input, pkg.default_period);
        continue;
      }
      const personInput = missing && person?.inputs.find((i) => i.name === missing);
      if (personInput && household.people) {
        for (const attrs of Object.values(household.people as Record<string, Record<string, unknown>>)) attrs[missing!] ??= guess(personInput, pkg.default_period);
        continue;
      }
      pkg.notes.push(`the sample request does not compute: ${err instanceof Error ? err.message : String(err)}`);
      return request;
    }
  }
  return request;
}
