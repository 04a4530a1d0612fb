import type { PackageInput } from '../../compiler/4-package/package-types.js';
import type { CalculateRequest, PackageDetail } from './source.js';
import { isMoney, valueKind } from '../../compiler/dtypes.js';

// A package's sample household as an editable form: one field per (entity instance, input), in
// the order the package detail lists entities and inputs, each edited the way its dtype allows.
// A field may be cleared (value undefined): the household then does not give it, and the answer
// assumes its default wherever it is read.

export type FieldKind = 'boolean' | 'choice' | 'number' | 'text';

export interface FormField {
  entity: string;
  id: string;
  input: PackageInput;
  kind: FieldKind;
  /** undefined: not given. */
  value: unknown;
}

export interface HouseholdForm {
  jurisdiction: string;
  programId: string;
  period: string;
  fields: FormField[];
}

export function fieldKind(input: PackageInput): FieldKind {
  const kind = valueKind(input.dtype);
  if (kind === 'boolean') return 'boolean';
  if (kind === 'text' || kind === 'date') return input.values?.length ? 'choice' : 'text';
  return 'number';
}

type EntitiesForm = Record<string, Record<string, Record<string, unknown>>>;

/** The form of a package's `sample_request` (the `entities` form: every entity by id, every input present). */
export function sampleForm(detail: PackageDetail): HouseholdForm {
  const household = detail.sample_request.household as { period?: string; entities?: EntitiesForm };
  const fields: FormField[] = [];
  for (const entity of detail.entities) {
    for (const [id, values] of Object.entries(household.entities?.[entity.entity] ?? {})) {
      for (const input of entity.inputs) fields.push({ entity: entity.entity, id, input, kind: fieldKind(input), value: values[input.name] ?? input.default });
    }
  }
  return { jurisdiction: detail.jurisdiction, programId: detail.program_id, period: household.period ?? detail.default_period, fields };
}

/** The `POST /v1/calculate` request of the form as it stands (with its explanation); a cleared field is left out, its instance kept. */
export function formRequest(form: HouseholdForm): CalculateRequest {
  const entities: EntitiesForm = {};
  for (const f of form.fields) {
    const given = ((entities[f.entity] ??= {})[f.id] ??= {});
    if (f.value !== undefined) given[f.input.name] = f.value;
  }
  return { program_id: form.programId, jurisdiction: form.jurisdiction, household: { period: form.period, entities }, explain: true };
}

/** The key an assumption and a field share: `<entity id>.<input>`. */
export const fieldKey = (id: string, input: string) => `${id}.${input}`;

export function withValue(form: HouseholdForm, index: number, value: unknown): HouseholdForm {
  return { ...form, fields: form.fields.map((f, i) => (i === index ? { ...f, value } : f)) };
}

/** A boolean's other value, an enum's next value; undefined for fields that are typed in. */
export function nextValue(field: FormField): unknown {
  if (field.kind === 'boolean') return field.value !== true;
  if (field.kind === 'choice') {
    const values = field.input.values!;
    return values[(values.indexOf(String(field.value)) + 1) % values.length];
  }
  return undefined;
}

/** How much `+`/`-` change a number: a dollar amount by 100, anything else by 1. */
export function stepOf(field: FormField): number {
  return valueKind(field.input.dtype) !== 'whole' && isMoney(field.input.dtype, field.input.unit) ? 100 : 1;
}

/** Typed text as the field's value, or the reason it is not one. */
export function parseTyped(field: FormField, text: string): { value: unknown } | { error: string } {
  if (field.kind !== 'number') return { value: text };
  const trimmed = text.trim();
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(trimmed)) return { error: `${field.input.name} is ${field.input.dtype}: "${text}" is not a number` };
  return { value: Number(trimmed) };
}

export function formatValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
