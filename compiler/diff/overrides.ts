import type { ExecParameter, Executable } from '../3-lower/ir.js';
import { valueKind } from '../dtypes.js';
import { LoadedPackage } from '../runtime/loaded-package.js';
import { Day, Decimal, type Value } from '../values.js';

// `rules diff --set LEGAL_ID=VALUE`: a parameter's value changed for the reform without editing a
// file, so a proposal can be tried before it is encoded. The value replaces the parameter's value
// in every dated version, so it is the value in force for whatever period a household is
// calculated for (a period before the parameter's first version still has none). A table takes
// one cell at a time: `LEGAL_ID[KEY]=VALUE`. The change is made on a copy of the package's
// executable; the package the baseline uses is never touched.

/** A --set that does not name a parameter or gives a value it cannot hold. */
export class OverrideError extends Error {
  override name = 'OverrideError';
}

export interface ParameterOverride {
  /** As written: `LEGAL_ID=VALUE` or `LEGAL_ID[KEY]=VALUE`. */
  text: string;
  /** The parameter named (a legal id or a name). */
  parameter: string;
  key: number | null;
  value: string;
}

const FORM = /^([^=[\]]+?)(?:\[\s*(-?\d+)\s*\])?=(.*)$/s;

/** `LEGAL_ID=VALUE` or `LEGAL_ID[KEY]=VALUE`, read but not yet checked against a program. */
export function parseOverride(text: string): ParameterOverride {
  const m = FORM.exec(text.trim());
  if (!m || !m[1].trim() || m[3].trim() === '') throw new OverrideError(`--set ${text}: write LEGAL_ID=VALUE (or LEGAL_ID[KEY]=VALUE for a cell of a table)`);
  return { text, parameter: m[1].trim(), key: m[2] === undefined ? null : Number(m[2]), value: m[3].trim() };
}

function parameterOf(exec: Executable, o: ParameterOverride): ExecParameter {
  const index = exec.paramById.get(o.parameter) ?? exec.paramByName.get(o.parameter);
  if (index !== undefined) return exec.parameters[index];
  if (exec.ruleById.has(o.parameter) || exec.ruleByName.has(o.parameter)) throw new OverrideError(`--set ${o.text}: \`${o.parameter}\` is a derived rule (a formula), not a parameter; --set changes a parameter's value`);
  throw new OverrideError(`--set ${o.text}: no parameter \`${o.parameter}\` in the program (name it by its legal id, e.g. ${exec.parameters[0]?.id ?? 'module#name'}, or its name)`);
}

/** The text of a --set value as a value of the parameter's dtype. */
function valueOf(param: ExecParameter, o: ParameterOverride): Value {
  const fail = (what: string): never => {
    throw new OverrideError(`--set ${o.text}: \`${param.name}\` holds ${what} (dtype ${param.dtype ?? 'number'}), not ${JSON.stringify(o.value)}`);
  };
  switch (valueKind(param.dtype ?? undefined)) {
    case 'boolean':
    case 'judgment':
      return o.value === 'true' ? true : o.value === 'false' ? false : fail('true or false');
    case 'text':
      return o.value.replace(/^"(.*)"$/s, '$1');
    case 'date':
      return Day.parse(o.value) ?? fail('a date (YYYY-MM-DD)');
    case 'whole':
      return /^-?\d+$/.test(o.value) ? new Decimal(o.value) : fail('a whole number');
    default:
      return /^-?(\d+\.?\d*|\.\d+)$/.test(o.value) ? new Decimal(o.value) : fail('a number');
  }
}

/** Check overrides against a program: each names a parameter, a cell its table has, a value it can hold. */
export function checkOverrides(exec: Executable, overrides: ParameterOverride[]): void {
  for (const o of overrides) {
    const param = parameterOf(exec, o);
    const keys = new Set(param.versions.flatMap((v) => [...v.cells.keys()]));
    const table = param.indexedBy !== null || [...keys].some((k) => k !== 0);
    if (table && o.key === null) throw new OverrideError(`--set ${o.text}: \`${param.name}\` is a table${param.indexedBy ? ` keyed by ${param.indexedBy}` : ''} (keys ${[...keys].sort((a, b) => a - b).join(', ')}); set one cell: ${o.parameter}[KEY]=VALUE`);
    if (!table && o.key !== null) throw new OverrideError(`--set ${o.text}: \`${param.name}\` is a single value, not a table; write ${o.parameter}=VALUE`);
    valueOf(param, o);
  }
}

/** A copy of the package whose executable has the overrides applied (the package given is unchanged). */
export function withOverrides(loaded: LoadedPackage, overrides: ParameterOverride[]): LoadedPackage {
  if (!overrides.length) return loaded;
  const exec = loaded.executable;
  checkOverrides(exec, overrides);
  const parameters = [...exec.parameters];
  for (const o of overrides) {
    const param = parameterOf(exec, o);
    const value = valueOf(param, o);
    const current = parameters[param.index];
    parameters[param.index] = { ...current, versions: current.versions.map((v) => ({ ...v, cells: new Map(v.cells).set(o.key ?? 0, value) })) };
  }
  return new LoadedPackage(loaded.pkg, { ...exec, parameters });
}
