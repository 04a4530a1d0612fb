import { createHash } from 'node:crypto';
import type { Program } from '../3-lower/ir.js';
import { RuleSpecError } from '../diagnostics.js';
import { packageCoverage } from './coverage.js';
import { aliasPrefix, catalogueInputs, declaredInput, householdAliases } from './inputs.js';
import { OUTPUT_FORMAT_VERSION, type CalculateRequest, type PackageEntity, type RuntimePackage } from './package-types.js';
import { type ExecutableJson, executableToJson } from './serialize.js';
import { isSizeInput, valueKind } from '../dtypes.js';

// Phase 4: a compiled program becomes a runtime package: everything the daemon needs to list,
// describe and execute it, with no YAML at run time.

export interface PackageSpec {
  jurisdiction: string;
  /** The served id, a URL slug (`co-snap`). */
  programId: string;
  /** The program's path in its jurisdiction (`snap`): its last segment is the prefix aliases drop. */
  programPath: string;
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
  const prefix = aliasPrefix(spec.programPath);
  for (const { name } of outputs) {
    const short = name.slice(prefix.length);
    if (name.startsWith(prefix) && short && !spec.outputs.includes(short) && !(short in outputAliases)) outputAliases[short] = name;
  }
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
    household_aliases: householdAliases(program, entities, aliasPrefix(spec.programPath)),
    sample_request: { program_id: spec.programId, jurisdiction: spec.jurisdiction, household: {} },
    source: spec.source,
    acknowledged_incomplete: spec.acknowledgedIncomplete,
    notes: [...(spec.notes ?? [])],
    main_entity: mainEntity,
    person_entity: personEntity,
    executable: undefined as unknown as ExecutableJson, // made when first read (below)
    rule_info: program.rules.map((r) => ({
      sources: declSources(r.decl),
      ...(r.decl.unit ? { unit: r.decl.unit } : {}),
      ...(r.decl.period ? { period: r.decl.period } : {}),
    })),
    parameter_info: program.parameters.map((p) => ({ sources: declSources(p.decl), ...(p.decl.unit ? { unit: p.decl.unit } : {}) })),
  };
  pkg.sample_request = sampleRequest(program, pkg);
  lazyExecutable(pkg, program);
  return pkg;
}

/**
 * `pkg.executable`, the JSON form of the program (a deep copy of its rules' expressions, with
 * decimals and dates tagged), made when first read: a one-shot compile reads it only to write the
 * package, so the copy lives for that write alone instead of through the package's sample run and
 * graph, long enough to reach V8's old generation as garbage (for the US corpus, a copy of every
 * program's expressions). Once read it is a plain property, in its place among the package's keys
 * (a frozen package keeps the accessor, and makes the copy at each read).
 */
function lazyExecutable(pkg: RuntimePackage, program: Program): void {
  const settle = (value: ExecutableJson) => {
    if (Object.getOwnPropertyDescriptor(pkg, 'executable')?.configurable) Object.defineProperty(pkg, 'executable', { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(pkg, 'executable', { get: () => settle(executableToJson(program)), set: settle, enumerable: true, configurable: true });
}

/** A rule's or parameter's legal sources: its citation and the citation's URL. */
const declSources = (decl: { source?: string; sourceUrl?: string }): string[] => [decl.source, decl.sourceUrl].filter((s): s is string => !!s);

/** A guess for an input nobody gave an example for. */
export function guess(input: PackageEntity['inputs'][number], period: string): unknown {
  if (input.values?.length) return input.values[0];
  const kind = valueKind(input.dtype);
  if (isSizeInput(input.name) && kind !== 'boolean') return 1;
  switch (kind) {
    case 'boolean':
      return false;
    case 'text':
      return 'unknown';
    case 'date':
      return `${period}-01`;
    case 'whole':
      return 1;
    default:
      return 0;
  }
}

/** A ready-to-run request a client can fill in: `household.entities`, every entity by the id
 *  the package detail gives, every input present (declared example, else default, else a
 *  guess); the orchestrator then runs it and repairs table keys and periods until the default
 *  outputs compute (compiler/sample-check.ts). The main entity and the members of its relations
 *  (the person entity) are instantiated; other entities are reached through rules, not through
 *  the household. */
function sampleRequest(program: Program, pkg: RuntimePackage): CalculateRequest {
  const main = pkg.entities.find((e) => e.entity === pkg.main_entity)!;
  const person = pkg.entities.find((e) => e.entity === pkg.person_entity);
  const exampleOf = (input: PackageEntity['inputs'][number], index: number): unknown => {
    const example = declaredInput(program, input.name)?.example;
    if (example !== undefined) return Array.isArray(example) ? example[index % example.length] : example;
    return input.default !== undefined ? input.default : guess(input, pkg.default_period);
  };
  const mainValues = Object.fromEntries(main.inputs.map((input) => [input.name, exampleOf(input, 0)]));
  const size = person?.count_from !== undefined ? Number(mainValues[person.count_from]) : NaN;
  const memberIds = person ? Array.from({ length: Math.max(1, Math.min(8, Number.isInteger(size) ? size : 1)) }, (_, i) => person.id_template.replace('{index}', String(i + 1))) : [];
  // each entity at the ids of its id_template: the main entity's one id, or the members'
  const entities: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const e of pkg.entities) {
    const ids = e.id_template === main.id_template ? [main.id_template] : person && e.id_template === person.id_template ? memberIds : [];
    if (ids.length) entities[e.entity] = Object.fromEntries(ids.map((id, i) => [id, e === main ? mainValues : Object.fromEntries(e.inputs.map((input) => [input.name, exampleOf(input, i)]))]));
  }
  return { program_id: pkg.program_id, jurisdiction: pkg.jurisdiction, household: { period: pkg.default_period, entities }, variables: pkg.default_outputs };
}
