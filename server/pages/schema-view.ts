import { esc, inlineMarkdown } from './html.js';

// JSON Schemas (2020-12, as served in the OpenAPI document) rendered as HTML: a one-line type
// label with component references linked to the Schemas section, and a property table that
// flattens nested objects and arrays of objects into dotted paths (`source.kind`, `rules[].id`).

export type Schema = Record<string, unknown>;

const COMPONENT = '#/components/schemas/';
const MAX_DEPTH = 6;

export const schemaAnchor = (name: string) => `schema-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const schemas = (v: unknown): Schema[] => (Array.isArray(v) ? v.filter(isSchema) : []);
const json = (v: unknown) => `<code>${esc(JSON.stringify(v))}</code>`;

function refLink(ref: string): string {
  if (!ref.startsWith(COMPONENT)) return `<code>${esc(ref)}</code>`;
  const name = ref.slice(COMPONENT.length);
  return `<a href="#${schemaAnchor(name)}"><code>${esc(name)}</code></a>`;
}

/** `string`, `string | null`, `array of RuleSummary`, `"ok"`, `"a" | "b"`, `[string, integer]`, … */
export function typeLabel(schema: Schema): string {
  if (typeof schema.$ref === 'string') return refLink(schema.$ref);
  if ('const' in schema) return json(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(json).join(' | ');
  const alternatives = schemas(schema.oneOf ?? schema.anyOf);
  if (alternatives.length) return `one of ${alternatives.map(typeLabel).join(' | ')}`;
  const bases = schemas(schema.allOf).map(typeLabel);
  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : [];
  const own = types.map((t) => {
    if (t !== 'array') return esc(t);
    const tuple = schemas(schema.prefixItems);
    if (tuple.length) return `[${tuple.map(typeLabel).join(', ')}]`;
    return isSchema(schema.items) ? `array of ${typeLabel(schema.items)}` : 'array';
  });
  const label = [...bases, ...(own.length ? [own.join(' | ')] : [])].join(' &amp; ');
  if (!label) return 'any';
  return typeof schema.format === 'string' ? `${label} <span class="muted">(${esc(schema.format)})</span>` : label;
}

const CONSTRAINTS: [string, string][] = [
  ['minLength', 'min length'],
  ['maxLength', 'max length'],
  ['minimum', 'minimum'],
  ['maximum', 'maximum'],
  ['minItems', 'min items'],
  ['maxItems', 'max items'],
  ['pattern', 'pattern'],
  ['default', 'default'],
];

/** Required keys of an object schema that have no declared property. */
function undeclaredKeys(schema: Schema): string | undefined {
  const declared = isSchema(schema.properties) ? Object.keys(schema.properties) : [];
  const keys = (Array.isArray(schema.required) ? schema.required.map(String) : []).filter((k) => !declared.includes(k));
  return keys.length ? keys.map((k) => `<code>${esc(k)}</code>`).join(', ') : undefined;
}

/** Constraints, the description, and required keys that have no declared property. */
function notes(schema: Schema): string {
  const out = CONSTRAINTS.filter(([k]) => k in schema).map(([k, label]) => `${label} ${json(schema[k])}`);
  if (schema.additionalProperties === false) out.push('no other properties');
  if (isSchema(schema.additionalProperties) && Object.keys(schema.additionalProperties).length) out.push(`each value: ${typeLabel(schema.additionalProperties)}`);
  const own = undeclaredKeys(schema);
  if (own) out.push(`has keys ${own}`);
  const items = isSchema(schema.items) ? undeclaredKeys(schema.items) : undefined;
  if (items) out.push(`each item has keys ${items}`);
  if (typeof schema.description === 'string') out.push(inlineMarkdown(schema.description));
  return out.join(' · ');
}

interface Row {
  path: string;
  schema: Schema;
  required: boolean;
}

/** The object whose properties continue a path: the schema itself, or an array's item. */
function nestedObject(schema: Schema): { schema: Schema; suffix: string } | undefined {
  if (isSchema(schema.properties)) return { schema, suffix: '.' };
  if (isSchema(schema.items) && isSchema(schema.items.properties)) return { schema: schema.items, suffix: '[].' };
  return undefined;
}

function collectRows(schema: Schema, prefix: string, depth: number, out: Row[]): void {
  if (!isSchema(schema.properties) || depth > MAX_DEPTH) return;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (!isSchema(sub)) continue;
    out.push({ path: prefix + name, schema: sub, required: required.includes(name) });
    const nested = nestedObject(sub);
    if (nested) collectRows(nested.schema, prefix + name + nested.suffix, depth + 1, out);
  }
}

function propertyTable(schema: Schema, prefix = ''): string {
  const rows: Row[] = [];
  collectRows(schema, prefix, 0, rows);
  if (!rows.length) return '';
  const body = rows
    .map((r) => {
      const depth = r.path.split(/\.|\[\]\./).length - 1;
      const name = `<code>${esc(r.path)}</code>`;
      return `<tr><td class="prop d${Math.min(depth, 4)}">${name}</td><td>${typeLabel(r.schema)}</td><td>${r.required ? '<span class="req">required</span>' : '<span class="muted">optional</span>'}</td><td>${notes(r.schema)}</td></tr>`;
    })
    .join('\n');
  return `<table class="props"><thead><tr><th>Property</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A schema: its type, what it extends, its alternatives, and its properties. */
export function schemaBlock(schema: Schema): string {
  const label = typeLabel(schema);
  const remarks = notes(schema);
  const plainObject = label === 'object' && !remarks && isSchema(schema.properties);
  const parts = plainObject ? [] : [`<p class="type">Type: ${label}${remarks ? ` <span class="muted">· ${remarks}</span>` : ''}</p>`];
  const bases = schemas(schema.allOf).filter((s) => typeof s.$ref === 'string');
  if (bases.length) parts.push(`<p>Also has every field of ${bases.map(typeLabel).join(', ')}.</p>`);
  schemas(schema.oneOf ?? schema.anyOf).forEach((alt, i) => {
    parts.push(`<p class="alt">Option ${i + 1}: ${typeLabel(alt)}</p>`, propertyTable(alt));
  });
  const nested = nestedObject(schema);
  if (nested) parts.push(propertyTable(nested.schema, nested.suffix === '.' ? '' : '[].'));
  return parts.join('\n');
}
