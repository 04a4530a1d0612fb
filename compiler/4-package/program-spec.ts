import { readFileSync } from 'node:fs';
import { loadModuleYaml } from '../1-parse/yaml.js';
import { RuleSpecError } from '../diagnostics.js';
import { deriveProgramId, programIdProblem } from './program-id.js';

// Program specs: `programs/<jurisdiction>/<program>/<period>.yaml` or
// `<jurisdiction>/programs/<program>/<period>.yaml` (2-resolve/corpus-layout.ts) declare an executable
// program: which modules are in scope, which outputs it serves, and small synthesized rules
// (transformations) that bridge them.

export interface Transformation {
  pattern: string;
  [key: string]: unknown;
}

export interface ProgramSpec {
  file: string;
  /** `us-co/snap`: jurisdiction, then the program's path (which may contain slashes). */
  program: string;
  jurisdiction: string;
  /** `snap`, `payroll/oasdi-wage-tax`: the program's path within its jurisdiction. */
  programPath: string;
  /** The served id, a URL slug: `id:` when the spec names one, else derived (see program-id.ts). */
  programId: string;
  /** Where the id comes from, to point at it when it collides. */
  idPath: (string | number)[];
  /** `2026-01` (a bare year `2026` is read as its January). */
  period: string;
  /** `valid_through: YYYY-MM`: the last month the program's figures are known to apply. */
  validThrough?: string;
  outputs: string[];
  /** Module targets in scope, with the YAML path of each entry. */
  scope: { target: string; path: (string | number)[] }[];
  transformations: { spec: Transformation; path: (string | number)[] }[];
  acknowledgedIncomplete: string[];
  autoGateOutputs: string[];
  outputAliases: Record<string, string>;
  name?: string;
  description?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string' || typeof x === 'number').map(String) : []);

/** The spec in `file`, placed in `folderJurisdiction` by the folder it is in (none: by its own `program:`). */
export function readProgramSpec(file: string, folderJurisdiction?: string): ProgramSpec {
  const doc = loadModuleYaml(readFileSync(file, 'utf8'), file);
  const fail = (message: string, path: (string | number)[] = []): never => {
    throw new RuleSpecError('invalid_module', message, { location: { file, path } });
  };
  if (!isObj(doc)) fail('a program spec must be a YAML mapping');
  const spec = doc as Record<string, unknown>;
  const program = typeof spec.program === 'string' ? spec.program : fail('a program spec needs `program: <jurisdiction>/<program>`', ['program']);
  const slash = program.indexOf('/');
  if (slash <= 0 || slash === program.length - 1) fail(`\`program: ${program}\` must be <jurisdiction>/<program>, e.g. us-co/snap`, ['program']);
  const jurisdiction = program.slice(0, slash);
  if (folderJurisdiction !== undefined && jurisdiction !== folderJurisdiction) fail(`\`program: ${program}\` names the jurisdiction ${jurisdiction}, but the spec is in the folder of ${folderJurisdiction}`, ['program']);
  const rawPeriod = String(spec.period ?? '');
  const period = /^\d{4}$/.test(rawPeriod) ? `${rawPeriod}-01` : rawPeriod;
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period)) fail(`\`period\` must be YYYY-MM (or YYYY), got ${JSON.stringify(spec.period)}`, ['period']);
  const validThrough = spec.valid_through === undefined ? undefined : String(spec.valid_through);
  if (validThrough !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(validThrough)) fail(`\`valid_through\` must be YYYY-MM, got ${JSON.stringify(spec.valid_through)}`, ['valid_through']);
  if (validThrough !== undefined && validThrough < period) fail(`\`valid_through: ${validThrough}\` is before the program's period ${period}`, ['valid_through']);
  const outputs = strings(spec.outputs);
  if (outputs.length === 0) fail('a program spec needs a non-empty `outputs:` list of rule names', ['outputs']);

  const scope: ProgramSpec['scope'] = [];
  if (spec.scope !== undefined && !isObj(spec.scope)) fail('`scope:` must map `federal:`/`state:` to lists of module paths', ['scope']);
  for (const [key, list] of Object.entries((spec.scope ?? {}) as Record<string, unknown>)) {
    // federal → the country (`us` for us-co, `uk` for uk-ashford), state → the program's
    // jurisdiction, any other key is a literal prefix
    const prefix = key === 'federal' ? jurisdiction.split('-')[0] : key === 'state' ? jurisdiction : key;
    strings(list).forEach((p, i) => scope.push({ target: p.includes(':') ? p : `${prefix}:${p}`, path: ['scope', key, i] }));
  }
  const transformations = (Array.isArray(spec.transformations) ? spec.transformations : []).map((t, i) => {
    if (!isObj(t) || typeof t.pattern !== 'string') fail('each transformation needs a `pattern:`', ['transformations', i]);
    return { spec: t as Transformation, path: ['transformations', i] };
  });
  if (scope.length === 0 && transformations.length === 0) fail('a program spec needs a `scope:` (modules) or `transformations:`', ['scope']);
  const programPath = program.slice(slash + 1);
  if (spec.id !== undefined && typeof spec.id !== 'string') fail('`id:` must be a program id such as co-snap', ['id']);
  const programId = typeof spec.id === 'string' ? spec.id : deriveProgramId(jurisdiction, programPath);
  const idProblem = programIdProblem(programId);
  if (idProblem) fail(spec.id === undefined ? `${idProblem}, derived from \`program: ${program}\`; name one with \`id:\`` : idProblem, [spec.id === undefined ? 'program' : 'id']);
  const aliases = isObj(spec.output_aliases) ? Object.fromEntries(Object.entries(spec.output_aliases).map(([k, v]) => [k, String(v)])) : {};
  return {
    file,
    program,
    jurisdiction,
    programPath,
    programId,
    idPath: [spec.id === undefined ? 'program' : 'id'],
    period,
    validThrough,
    outputs,
    scope,
    transformations,
    acknowledgedIncomplete: strings(spec.acknowledged_incomplete),
    autoGateOutputs: strings(spec.auto_gate_outputs),
    outputAliases: aliases,
    name: typeof spec.name === 'string' ? spec.name : undefined,
    description: typeof spec.description === 'string' ? spec.description : undefined,
  };
}
