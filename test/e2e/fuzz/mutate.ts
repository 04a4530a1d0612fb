import fc from 'fast-check';

// Mutations of real inputs, as fast-check arbitraries (so a failing input shrinks to fewer and
// smaller edits): edits of a text at character level, and edits of a parsed document (a YAML
// module, a test file, a JSON household) at the level of its keys and values.

/** Pieces that mean something to YAML, to the formula language or to our readers. */
const FRAGMENTS = [
  ':', ': ', '- ', '\n', '\n  ', '  ', '\t', '{', '}', '[', ']', ',', '"', "'", '#', '&a ', '*a', '<<: *a', '!!str ', '!!int ', '!!binary ', '|', '>-',
  '? ', '%YAML 1.2\n---\n', '---\n', '...\n', '~', 'null', 'true', 'yes', 'off', '.inf', '-.nan', '0x1F', '0o17', '1e400', '-1', '0.5', '99999999999999999999999',
  '2026-13-45', '2026-02-29', '\u0000', '\ufeff', '\u2028', '\ud83d\ude00', '\ud800', 'é', '\\', '\\u', '(', ')', '((', '==', '=>', ' and ', ' or ', 'not ', 'if ', ' else ',
  'elif ', 'match ', '_ => ', 'max(', 'min(', 'floor(', 'sum(', 'len(', 'count_where(', '.', '[0]', '"""', 'formula: ', 'versions:\n  - ', 'rules:\n  - ', 'imports: ',
  'format: rulespec/v1\n', 'kind: derived', 'kind: parameter', 'kind: data_relation', 'values: {0: 1}', 'effective_from: 2026-01-01', 'period: 2026-01', 'input: {}',
  'output: {}', 'us:statutes/7/2017/a', 'entity: Person', 'dtype: Money', 'dtype: Judgment',
];

export const fragment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('(', ')', '-', 'not ', '[', '{', '- ', '  '), minLength: 50, maxLength: 3000 }) },
);

export interface TextEdit {
  op: 'delete' | 'insert' | 'replace' | 'duplicate-line' | 'delete-line' | 'swap-lines' | 'indent' | 'dedent' | 'copy-span';
  at: number;
  length: number;
  other: number;
  text: string;
}

const textEdit: fc.Arbitrary<TextEdit> = fc.record({
  op: fc.constantFrom('delete', 'insert', 'replace', 'duplicate-line', 'delete-line', 'swap-lines', 'indent', 'dedent', 'copy-span'),
  at: fc.nat(),
  length: fc.nat({ max: 40 }),
  other: fc.nat(),
  text: fragment,
});

/** Apply one edit: positions are taken modulo the text, so any edit applies to any text. */
export function applyEdit(text: string, edit: TextEdit): string {
  const at = text.length ? edit.at % (text.length + 1) : 0;
  const end = Math.min(text.length, at + edit.length);
  const lines = text.split('\n');
  const line = lines.length ? edit.at % lines.length : 0;
  const otherLine = lines.length ? edit.other % lines.length : 0;
  switch (edit.op) {
    case 'delete':
      return text.slice(0, at) + text.slice(end);
    case 'insert':
      return text.slice(0, at) + edit.text + text.slice(at);
    case 'replace':
      return text.slice(0, at) + edit.text + text.slice(end);
    case 'duplicate-line':
      lines.splice(line, 0, lines[line] ?? '');
      return lines.join('\n');
    case 'delete-line':
      lines.splice(line, 1);
      return lines.join('\n');
    case 'swap-lines':
      [lines[line], lines[otherLine]] = [lines[otherLine]!, lines[line]!];
      return lines.join('\n');
    case 'indent':
      lines[line] = '  ' + (lines[line] ?? '');
      return lines.join('\n');
    case 'dedent':
      lines[line] = (lines[line] ?? '').replace(/^ {1,2}/, '');
      return lines.join('\n');
    case 'copy-span': {
      const from = text.length ? edit.other % text.length : 0;
      return text.slice(0, at) + text.slice(from, from + edit.length) + text.slice(at);
    }
  }
}

/** A text with 1 to 4 character-level edits. */
export const editedText = (text: string): fc.Arbitrary<string> =>
  fc.array(textEdit, { minLength: 1, maxLength: 4 }).map((edits) => edits.reduce(applyEdit, text));

/** JSON and YAML values a reader meets on a bad day. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, -1, 1, 0.1, 1e15, 1e16, -1e300, 2 ** 53, 100, 101, '', ' ', '0', '1.5', '-3', '1e5', 'NaN', 'Infinity', 'true', 'null', '2026-01', '2026-13', '2026-01-01', 'x'.repeat(10_000)),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.constant([]), { minLength: 1, maxLength: 3 }),
);

type Path = (string | number)[];

/** Every path to a node of a document (the root too), depth first, at most `limit`. */
export function pathsOf(doc: unknown, limit = 5000): Path[] {
  const out: Path[] = [];
  const visit = (node: unknown, path: Path) => {
    if (out.length >= limit) return;
    out.push(path);
    if (Array.isArray(node)) node.forEach((v, i) => visit(v, [...path, i]));
    else if (node && typeof node === 'object' && !(node instanceof Date)) for (const [k, v] of Object.entries(node)) visit(v, [...path, k]);
  };
  visit(doc, []);
  return out;
}

export interface NodeEdit {
  op: 'delete' | 'replace' | 'retype' | 'duplicate' | 'rename' | 'transplant' | 'wrap';
  path: number;
  other: number;
  value: unknown;
  key: string;
}

/** The keys our readers look for, so renames and additions land where they matter. */
export const KEYS = [
  'format', 'module', 'imports', 'rules', 'units', 'inputs', 'name', 'kind', 'entity', 'dtype', 'period', 'unit', 'formula', 'versions', 'values', 'effective_from',
  'effective_to', 'from', 'to', 'source', 'indexed_by', 'data_relation', 'derived_relation', 'source_relation', 'arity', 'arguments', 'default', 'aliases', 'input',
  'output', 'cases', 'tables', 'relations', 'period_kind', 'start', 'end', 'id', 'entity_id', 'people', 'facts', 'entities', 'spm_units', 'household', 'variables',
  'program_id', 'jurisdiction', '<<', 'as_of', '__proto__', 'constructor', 'toString',
];

export const nodeEdit = (values: fc.Arbitrary<unknown> = oddValue): fc.Arbitrary<NodeEdit> =>
  fc.record({
    op: fc.constantFrom('delete', 'replace', 'retype', 'duplicate', 'rename', 'transplant', 'wrap'),
    path: fc.nat(),
    other: fc.nat(),
    value: values,
    key: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
  });

/** An own property even for `__proto__` (plain assignment would set the prototype instead). */
const setKey = (obj: Record<string | number, unknown>, key: string | number, value: unknown) =>
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });

const get = (doc: unknown, path: Path): unknown => path.reduce<unknown>((node, seg) => (node as Record<string | number, unknown>)?.[seg], doc);

function retype(v: unknown): unknown {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return Number.isNaN(Number(v)) ? [v] : Number(v);
  if (typeof v === 'boolean') return v ? 'yes' : 0;
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i), x]));
  if (v && typeof v === 'object') return Object.values(v);
  return 'null';
}

/** Apply one edit to a copy of `doc` (the root itself is replaced only by `replace` and `wrap`). */
export function applyNodeEdit(doc: unknown, edit: NodeEdit): unknown {
  const root = { doc: structuredClone(doc) };
  const paths = pathsOf(root.doc).map((p) => ['doc', ...p]);
  const path = paths[edit.path % paths.length]!;
  const parent = get(root, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  const node = parent[last];
  switch (edit.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else if (last !== 'doc') delete parent[last];
      break;
    case 'replace':
      parent[last] = edit.value;
      break;
    case 'retype':
      parent[last] = retype(node);
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(Number(last), 0, structuredClone(node));
      else if (last !== 'doc') setKey(parent, edit.key, structuredClone(node));
      break;
    case 'rename':
      if (!Array.isArray(parent) && last !== 'doc') {
        delete parent[last];
        setKey(parent, edit.key, node);
      }
      break;
    case 'transplant':
      parent[last] = structuredClone(get(root, paths[edit.other % paths.length]!));
      break;
    case 'wrap':
      parent[last] = edit.other % 2 ? [node] : { [edit.key]: node };
      break;
  }
  return root.doc;
}

/** A document with 1 to 3 structural edits. */
export const editedDocument = (doc: unknown, values?: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.array(nodeEdit(values), { minLength: 1, maxLength: 3 }).map((edits) => edits.reduce(applyNodeEdit, doc));
