import type { Event } from 'js-yaml';
import type { Expr } from './formula/ast.js';
import { parseFormula, FormulaSyntaxError } from './formula/parser.js';
import { DeclarationLines } from './module-lines.js';
import { loadModuleYaml } from './yaml.js';
import { RuleSpecError } from '../diagnostics.js';

// Phase 1: one RuleSpec v1 file → a ParsedModule. Only what evaluation, graphs and the rule
// index need is kept; `module:` metadata is descriptive and never rejected.

export const RULE_KINDS = ['parameter', 'derived', 'data_relation', 'derived_relation', 'source_relation'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export interface Formula {
  text: string;
  expr: Expr;
  /** YAML path of the formula scalar, to point at errors inside it. */
  path: (string | number)[];
  /** Where it lies, when the module was read with lines (module-lines.ts: FormulaLines). */
  line?: number;
  breaks?: number[];
}

export interface VersionDecl {
  from: string | null;
  to: string | null;
  formula?: Formula;
  /** Table cells (integer key → raw YAML value). */
  values?: Map<number, unknown>;
  path: (string | number)[];
  /** Source lines, when the module was read with lines: the version, its `effective_from`, each table row (in the order of `values`). */
  line?: number;
  fromLine?: number;
  rowLines?: number[];
}

export interface RelationDecl {
  arity: number;
  arguments: string[];
}

export interface DerivedRelationDecl extends RelationDecl {
  sourceRelation: string;
  currentSlot: number;
  relatedSlot: number;
  entity?: string;
  memberRelation?: string;
  slotEntities: string[];
}

export interface SourceRelationDecl {
  type: string;
  target?: string;
  value?: string;
}

export interface RuleDecl {
  name: string;
  kind: RuleKind;
  entity?: string;
  dtype?: string;
  period?: string;
  unit?: string;
  source?: string;
  sourceUrl?: string;
  label?: string;
  description?: string;
  indexedBy?: string;
  rounding?: string;
  versions: VersionDecl[];
  dataRelation?: RelationDecl;
  derivedRelation?: DerivedRelationDecl;
  sourceRelation?: SourceRelationDecl;
  /** Quoted source text supporting the rule (`metadata.proof.atoms[].source`). */
  quotes: { citationPath?: string; excerpt: string }[];
  path: (string | number)[];
  /** Its first line, when the module was read with lines. */
  line?: number;
}

export interface ImportDecl {
  target: string;
  path: (string | number)[];
}

export interface ModuleMeta {
  summary?: string;
  kind?: string;
  status?: string;
  citationPaths: string[];
  /** Outputs the encoder postponed (names, sometimes with notes). */
  deferredOutputs: string[];
}

/** A top-level `inputs:` entry: describes an input the module's formulas read (the engine
 *  ignores these; runtime packages use them for dtypes, defaults, aliases and examples). */
export interface DeclaredInput {
  name: string;
  entity?: string;
  dtype?: string;
  unit?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  aliases: string[];
}

export interface ParsedModule {
  target: string;
  file: string;
  imports: ImportDecl[];
  rules: RuleDecl[];
  /** Declared units: name → minor units (currencies) or null (non-currency). */
  units: Map<string, number | null>;
  meta: ModuleMeta;
  declaredInputs: Map<string, DeclaredInput>;
  /** Problems found while parsing; the module cannot be compiled while any exists. */
  errors: RuleSpecError[];
  /** sha256 of the source text (set by the source tree that read it). */
  hash?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Scalars may be written as YAML strings, booleans or numbers; all mean their text. */
function text(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return undefined;
}

/** `lines`: also note the source line of each rule, version, table row and formula (for coverage). */
export function parseModuleText(source: string, file: string, target: string, options: { lines?: boolean } = {}): ParsedModule {
  let doc: unknown;
  let events: Event[] | undefined;
  try {
    doc = loadModuleYaml(source, file, options.lines ? (e) => (events = e) : undefined);
  } catch (err) {
    return { ...emptyModule(target, file), errors: [err as RuleSpecError] };
  }
  const mod = readModuleDocument(doc, file, target);
  if (events) attachLines(mod, new DeclarationLines(source, events));
  return mod;
}

/** Set `line` on each rule and version, `fromLine` and `rowLines` on versions, `lines` on formulas. */
function attachLines(mod: ParsedModule, lines: DeclarationLines): void {
  for (const rule of mod.rules) {
    rule.line = lines.line(rule.path);
    for (const version of rule.versions) {
      version.line = lines.line(version.path);
      version.fromLine = lines.line([...version.path, 'effective_from']) ?? lines.line([...version.path, 'from']);
      const formula = version.formula && lines.formula(version.formula.path, version.formula.text);
      if (formula) Object.assign(version.formula!, formula);
      if (version.values) version.rowLines = [...version.values.keys()].map((key) => lines.line([...version.path, 'values', key]) ?? version.line ?? 0);
    }
  }
}

function emptyModule(target: string, file: string): ParsedModule {
  return { target, file, imports: [], rules: [], units: new Map(), meta: { citationPaths: [], deferredOutputs: [] }, declaredInputs: new Map(), errors: [] };
}

/** Read an already-loaded RuleSpec document (also used for synthesized program compositions). */
export function readModuleDocument(doc: unknown, file: string, target: string): ParsedModule {
  const mod = emptyModule(target, file);
  const fail: Fail = (code, message, path, at) =>
    mod.errors.push(new RuleSpecError(code, message, { location: { file, path, ...at } }));

  if (!isObj(doc)) {
    fail('invalid_module', 'a RuleSpec module must be a YAML mapping', []);
    return mod;
  }
  if (doc.format !== 'rulespec/v1') {
    fail('invalid_module', `\`format: rulespec/v1\` is required (found ${doc.format === undefined ? 'none' : JSON.stringify(doc.format)})`, doc.format === undefined ? [] : ['format']);
  }
  for (const key of ['schema', 'extends', 'relations']) {
    if (key in doc) fail('invalid_module', `top-level \`${key}:\` is not part of RuleSpec v1${key === 'relations' ? ' (relations are rules)' : ''}`, [key]);
  }
  readMeta(doc.module, mod.meta);
  readUnits(doc.units, mod.units);
  readDeclaredInputs(doc.inputs, mod.declaredInputs);

  const imports = doc.imports ?? [];
  if (!Array.isArray(imports)) fail('invalid_module', '`imports:` must be a list of module targets', ['imports']);
  else
    imports.forEach((entry, i) => {
      const raw = text(entry);
      if (raw === undefined) return; // null entries are tolerated
      const target = raw.split('#')[0].trim();
      if (!target.includes(':')) fail('unresolved_import', `import \`${raw}\` is not an absolute target (jurisdiction:root/path)`, ['imports', i]);
      else mod.imports.push({ target, path: ['imports', i] });
    });

  const rules = doc.rules ?? [];
  if (!Array.isArray(rules)) {
    fail('invalid_module', '`rules:` must be a list', ['rules']);
    return mod;
  }
  rules.forEach((raw, i) => {
    const rule = readRule(raw, ['rules', i], fail);
    if (rule) mod.rules.push(rule);
  });
  return mod;
}

function readDeclaredInputs(block: unknown, into: Map<string, DeclaredInput>): void {
  if (!Array.isArray(block)) return;
  for (const entry of block) {
    if (!isObj(entry) || !text(entry.name)) continue;
    into.set(text(entry.name)!, {
      name: text(entry.name)!,
      entity: text(entry.entity),
      dtype: text(entry.dtype),
      unit: text(entry.unit),
      description: text(entry.description),
      default: entry.default,
      example: entry.example,
      aliases: Array.isArray(entry.aliases) ? entry.aliases.map((a) => text(a)).filter((a): a is string => !!a) : [],
    });
  }
}

function readMeta(block: unknown, meta: ModuleMeta): void {
  if (!isObj(block)) return;
  meta.summary = text(block.summary);
  meta.kind = text(block.kind);
  meta.status = text(block.status);
  if (Array.isArray(block.deferred_outputs)) {
    for (const d of block.deferred_outputs) {
      const name = isObj(d) ? text(d.name) ?? text(d.output) : text(d);
      if (name) meta.deferredOutputs.push(name);
    }
  }
  const sv = block.source_verification;
  if (isObj(sv)) {
    const one = text(sv.corpus_citation_path);
    if (one) meta.citationPaths.push(one);
    if (Array.isArray(sv.corpus_citation_paths)) for (const p of sv.corpus_citation_paths) if (text(p)) meta.citationPaths.push(text(p)!);
  }
}

const CURRENCY_MINOR_UNITS: Record<string, number> = {
  USD: 2, GBP: 2, EUR: 2, GHS: 2, GHp: 0, NGN: 2, UGX: 0, ZMW: 2, ETB: 2, RWF: 0, TZS: 2, DKK: 2,
};
const PLAIN_UNITS = ['count', 'person', 'ratio', 'status'];

/** The units every program knows; a module may declare more under `units:`. */
export function builtinUnits(): Map<string, number | null> {
  const m = new Map<string, number | null>();
  for (const [k, v] of Object.entries(CURRENCY_MINOR_UNITS)) m.set(k, v);
  for (const k of PLAIN_UNITS) m.set(k, null);
  return m;
}

function readUnits(block: unknown, units: Map<string, number | null>): void {
  const entries: [string, unknown][] = Array.isArray(block)
    ? block.filter(isObj).map((u) => [text(u.name) ?? '', u])
    : isObj(block)
      ? Object.entries(block)
      : [];
  for (const [name, spec] of entries) {
    if (!name) continue;
    const minor = isObj(spec) ? Number(spec.minor_units ?? spec.minor ?? NaN) : NaN;
    const currency = isObj(spec) && (spec.kind === 'currency' || Number.isInteger(minor));
    units.set(name, currency ? (Number.isInteger(minor) ? minor : 2) : null);
  }
}

function readQuotes(metadata: unknown): RuleDecl['quotes'] {
  const atoms = isObj(metadata) && isObj(metadata.proof) && Array.isArray(metadata.proof.atoms) ? metadata.proof.atoms : [];
  const quotes: RuleDecl['quotes'] = [];
  for (const atom of atoms) {
    const source = isObj(atom) && isObj(atom.source) ? atom.source : undefined;
    const excerpt = source ? text(source.excerpt) : undefined;
    if (excerpt && !quotes.some((q) => q.excerpt === excerpt)) quotes.push({ citationPath: text(source!.corpus_citation_path), excerpt });
  }
  return quotes;
}

type Fail = (code: RuleSpecError['code'], message: string, path: (string | number)[], at?: { offset: number; scalar: string }) => void;

function readRule(raw: unknown, path: (string | number)[], fail: Fail): RuleDecl | undefined {
  if (!isObj(raw)) {
    fail('invalid_rule', 'each rule must be a mapping', path);
    return undefined;
  }
  const name = text(raw.name);
  if (!name) {
    fail('invalid_rule', 'rule is missing `name:`', path);
    return undefined;
  }
  const kind = text(raw.kind);
  if (!kind) {
    fail('unknown_rule_kind', `rule \`${name}\` is missing \`kind:\` (one of ${RULE_KINDS.join(', ')})`, path);
    return undefined;
  }
  if (!(RULE_KINDS as readonly string[]).includes(kind)) {
    fail('unknown_rule_kind', `rule \`${name}\` has unknown kind \`${kind}\` (expected one of ${RULE_KINDS.join(', ')})`, [...path, 'kind']);
    return undefined;
  }
  const firstSource = Array.isArray(raw.sources) ? raw.sources.find(isObj) : undefined;
  const rule: RuleDecl = {
    name,
    kind: kind as RuleKind,
    entity: text(raw.entity),
    dtype: text(raw.dtype),
    period: text(raw.period),
    unit: text(raw.unit),
    source: text(raw.source) ?? (firstSource ? text(firstSource.citation) ?? text(firstSource.source) : undefined),
    sourceUrl: text(raw.source_url) ?? (firstSource ? text(firstSource.url) : undefined),
    label: text(raw.label),
    description: text(raw.description),
    indexedBy: text(raw.indexed_by),
    rounding: text(raw.rounding),
    versions: [],
    quotes: readQuotes(raw.metadata),
    path,
  };

  if (rule.kind === 'source_relation') return readSourceRelation(raw, rule, fail);
  if (rule.kind === 'data_relation' || rule.kind === 'derived_relation') {
    if (!readRelation(raw, rule, fail)) return undefined;
    if (rule.kind === 'data_relation') return rule;
  }
  readVersions(raw, rule, fail);
  return rule;
}

/** A source relation: its `source_relation:` block, and none of a computed rule's keys. */
function readSourceRelation(raw: Obj, rule: RuleDecl, fail: Fail): RuleDecl | undefined {
  const { name, path } = rule;
  const sr = raw.source_relation;
  if (!isObj(sr)) {
    fail('invalid_rule', `source relation \`${name}\` needs a \`source_relation:\` mapping`, path);
    return undefined;
  }
  for (const key of ['versions', 'formula', 'entity', 'dtype', 'period', 'unit', 'indexed_by', 'default', 'arity']) {
    if (key in raw) fail('invalid_rule', `source relation \`${name}\` must not carry \`${key}:\``, [...path, key]);
  }
  rule.sourceRelation = { type: text(sr.type) ?? '', target: text(sr.target), value: text(sr.value) };
  return rule;
}

/** A data or derived relation's block (arity, arguments; a derived one's source and slots); false when it cannot be read. */
function readRelation(raw: Obj, rule: RuleDecl, fail: Fail): boolean {
  const { name, path } = rule;
  const kind = rule.kind as 'data_relation' | 'derived_relation';
  if ('arity' in raw) fail('invalid_rule', `relation \`${name}\`: put \`arity\` inside \`${kind}:\`, not on the rule`, [...path, 'arity']);
  const block = raw[kind];
  if (!isObj(block) || !Number.isInteger(Number(block.arity))) {
    fail('invalid_rule', `relation \`${name}\` needs \`${kind}: {arity: N}\``, path);
    return false;
  }
  const args = Array.isArray(block.arguments)
    ? block.arguments.map((a) => (isObj(a) ? text(a.entity) ?? text(a.name) ?? '' : text(a) ?? ''))
    : [];
  const decl: RelationDecl = { arity: Number(block.arity), arguments: args };
  if (kind === 'data_relation') {
    rule.dataRelation = decl;
    return true;
  }
  const source = text(block.source_relation);
  if (!source) {
    fail('invalid_rule', `derived relation \`${name}\` needs \`source_relation:\``, [...path, kind]);
    return false;
  }
  rule.derivedRelation = {
    ...decl,
    sourceRelation: source,
    currentSlot: block.current_slot === undefined ? 1 : Number(block.current_slot),
    relatedSlot: block.related_slot === undefined ? 0 : Number(block.related_slot),
    entity: text(block.entity),
    memberRelation: text(block.member_relation),
    slotEntities: Array.isArray(block.slot_entities) ? block.slot_entities.map((s) => text(s) ?? '') : args,
  };
  return true;
}

/** The rule's versions (`versions:`, or a single version written on the rule itself): a table's integer-keyed values or a parsed formula. */
function readVersions(raw: Obj, rule: RuleDecl, fail: Fail): void {
  const { name, path } = rule;
  const versions: [Obj, (string | number)[]][] = Array.isArray(raw.versions)
    ? raw.versions.map((v, j) => [v as Obj, [...path, 'versions', j]])
    : 'formula' in raw || 'values' in raw
      ? [[raw, path]]
      : [];
  for (const [v, vpath] of versions) {
    if (!isObj(v)) {
      fail('invalid_rule', `rule \`${name}\`: each version must be a mapping`, vpath);
      continue;
    }
    const version: VersionDecl = {
      from: text(v.effective_from ?? v.from) ?? null,
      to: text(v.effective_to ?? v.to) ?? null,
      path: vpath,
    };
    if (isObj(v.values)) {
      version.values = new Map();
      for (const [key, cell] of Object.entries(v.values)) {
        if (!/^-?\d+$/.test(key.trim())) {
          fail('invalid_rule', `rule \`${name}\`: table keys must be integers (found \`${key}\`)`, [...vpath, 'values', key]);
          continue;
        }
        version.values.set(Number(key), cell);
      }
    } else if (v.formula !== undefined && v.formula !== null) {
      const ftext = text(v.formula);
      const fpath = [...vpath, 'formula'];
      if (ftext === undefined) {
        fail('invalid_rule', `rule \`${name}\`: \`formula\` must be a string`, fpath);
        continue;
      }
      try {
        version.formula = { text: ftext, expr: parseFormula(ftext), path: fpath };
      } catch (err) {
        if (!(err instanceof FormulaSyntaxError)) throw err;
        fail('formula_syntax', `rule \`${name}\`: ${err.message}`, fpath, { offset: err.pos, scalar: ftext });
        continue;
      }
    }
    rule.versions.push(version);
  }
}

/**
 * The targets a module's text imports, read without parsing it: the entries of its top-level
 * `imports:` list, in block or flow style. A hint for parsing modules ahead (what a module really
 * imports is what its parse says): an entry it misses is parsed when the build reaches it.
 */
export function importHints(text: string): string[] {
  const head = /^imports:[ \t]*(\[[^\]\n]*\])?[ \t]*(?:#.*)?$/m.exec(text);
  if (!head) return [];
  const entries: string[] = [];
  if (head[1]) entries.push(...head[1].slice(1, -1).split(','));
  else {
    // the block list's items, up to the next line that is neither an item, a blank nor a comment
    for (let at = text.indexOf('\n', head.index) + 1; at > 0 && at < text.length; ) {
      const end = text.indexOf('\n', at);
      const line = text.slice(at, end < 0 ? text.length : end);
      const item = /^[ \t]*-[ \t]+(.+)$/.exec(line);
      if (item) entries.push(item[1]);
      else if (line.trim() !== '' && !line.trimStart().startsWith('#')) break;
      at = end + 1;
    }
  }
  // a quoted entry ends at its quote, a plain one at a comment; either may name a rule after `#`
  const target = (entry: string) => (/^\s*(['"])(.*?)\1/.exec(entry)?.[2] ?? entry).split('#')[0].trim();
  return entries.map(target).filter((t) => t.includes(':'));
}

