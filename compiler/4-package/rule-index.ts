import path from 'node:path';
import { referencedNames } from '../1-parse/formula/ast.js';
import type { ParsedModule, RuleDecl } from '../1-parse/module.js';
import { splitTarget } from '../2-resolve/source-tree.js';
import type { RootProvenance } from './provenance.js';
import { declaredId, resolveInClosure } from './closure-names.js';
import { deriveProgramId } from './program-id.js';

// The rule index: one RuleDetail per rule of a module, with its source references and
// dependencies (resolved by name in the module's import closure, as the engine does).
// Dependents are the inverse over the whole index; the workspace fills them in.

export interface RuleSummary {
  id: string;
  citation_path: string;
  name: string;
  jurisdiction: string;
  program_id: string;
  document_class: string;
  status: 'encoded' | 'source-linked' | 'planned';
  source_count: number;
}

export interface RuleDetail extends RuleSummary {
  summary: string;
  symbols: string[];
  dependencies: string[];
  dependents: string[];
  version: string;
  provenance: { rulespec_repo: string; rulespec_path: string; rulespec_branch: string; source_release: string };
}

export interface SourceReference {
  id: string;
  citation_path: string;
  label: string;
  url: string | null;
  quote: string | null;
  source_type: 'official' | 'derived' | 'repository';
}

export interface IndexedRule {
  rule: RuleDetail;
  sources: SourceReference[];
}

export interface ProgramSummary {
  id: string;
  name: string;
  jurisdiction: string;
  description: string;
  rule_count: number;
  status: 'available' | 'partial' | 'planned';
  status_reason: string;
}

const DOCUMENT_CLASS: Record<string, string> = { statutes: 'statute', regulations: 'regulation', policies: 'policy', legislation: 'legislation', programs: 'program' };

/** Programs a rule can belong to when no package includes its module: a path segment names it. */
const PROGRAM_WORDS = ['snap', 'tanf', 'medicaid', 'chip', 'wic', 'ssi', 'liheap', 'csfp', 'eitc', 'ctc', 'income-tax', 'income_tax', 'payroll', 'tariff'];

export interface PackageMembership {
  programId: string;
  /** A program spec's path in its jurisdiction (`snap` for `co-snap`); its first segment names
   *  the program's rules elsewhere. Composition modules' paths name no program. */
  programPath?: string;
  jurisdiction: string;
  modules: string[];
}


/** `us:statutes/7/2017/a#snap_allotment` → `us/statutes/7/2017/a/snap_allotment`. */
export function citationPathOf(id: string): string {
  const [target, fragment] = id.split('#');
  const parts = splitTarget(target);
  const base = parts ? `${parts.jurisdiction}/${parts.path}` : target;
  return fragment ? `${base}/${fragment}` : base;
}

/** The rule index of one module at a time (its rules, their sources and dependencies), for the
 *  program membership of these packages: what is shared between modules is worked out once. */
export function ruleIndexer(
  closureOf: (mod: ParsedModule) => ParsedModule[],
  packages: PackageMembership[],
  provenanceOf: (file: string) => RootProvenance & { relative: string },
): (mod: ParsedModule) => IndexedRule[] {
  const programOfModule = new Map<string, string>();
  for (const p of [...packages].sort((a, b) => (a.programId < b.programId ? -1 : 1))) {
    for (const m of p.modules) if (!programOfModule.has(m) && splitTarget(m)?.jurisdiction === p.jurisdiction) programOfModule.set(m, p.programId);
  }
  const words = [...new Set([...packages.flatMap((p) => (p.programPath ? [p.programPath.split('/')[0]] : [])), ...PROGRAM_WORDS])];
  const programOf = (mod: ParsedModule): string => {
    const own = programOfModule.get(mod.target);
    if (own) return own;
    const { jurisdiction = '', path: modulePath = '' } = splitTarget(mod.target) ?? {};
    const segments = modulePath.toLowerCase().split(/[/_.-]/);
    const word = words.find((w) => w.split(/[-_]/).every((part) => segments.includes(part)));
    // named as a package of that word would be (`snap` in us-mo → `mo-snap`), so a state's
    // SNAP rules outside the package's closure still list under its id
    return word ? deriveProgramId(jurisdiction, word) : 'general';
  };

  return (mod) => {
    const indexed: IndexedRule[] = [];
    const byId = new Map<string, IndexedRule>();
    const jurisdiction = splitTarget(mod.target)?.jurisdiction ?? '';
    const root = splitTarget(mod.target)?.path.split('/')[0] ?? '';
    const prov = provenanceOf(mod.file);
    const refsOf = new Map(mod.rules.map((rule) => [rule, referencesOf(rule)]));
    const names = resolveInClosure(closureOf(mod), new Set([...refsOf.values()].flatMap((refs) => [...refs])));
    const add = (rule: RuleDecl | undefined, name: string, status: RuleDetail['status'], summaryText: string) => {
      const id = rule ? declaredId(mod, rule) : `${mod.target}#${name}`;
      if (byId.has(id)) return;
      const refs = (rule && refsOf.get(rule)) ?? new Set<string>();
      const dependencies = [...refs].map((n) => names.get(n)?.id).filter((d): d is string => !!d && d !== id);
      const sources = sourcesOf(id, mod, rule, prov.relative);
      const detail: RuleDetail = {
        id,
        citation_path: citationPathOf(id),
        name,
        jurisdiction,
        program_id: programOf(mod),
        document_class: DOCUMENT_CLASS[root] ?? root,
        status,
        source_count: sources.length,
        summary: summaryText,
        symbols: [...new Set([name, ...refs])],
        dependencies: [...new Set(dependencies)],
        dependents: [],
        version: 'current',
        provenance: { rulespec_repo: prov.repo, rulespec_path: prov.relative, rulespec_branch: prov.branch, source_release: prov.commit ?? 'unversioned' },
      };
      const entry = { rule: detail, sources };
      indexed.push(entry);
      byId.set(id, entry);
    };
    for (const rule of mod.rules) {
      const status = rule.kind === 'source_relation' ? 'source-linked' : 'encoded';
      add(rule, rule.name, status, summaryOf(mod, rule));
    }
    for (const name of deferredOutputs(mod)) add(undefined, name, 'planned', `Planned: not yet encoded in ${mod.target}.${mod.meta.summary ? ` ${firstSentence(mod.meta.summary)}` : ''}`);
    return indexed;
  };
}

export function referencesOf(rule: RuleDecl): Set<string> {
  const refs = new Set<string>();
  for (const v of rule.versions) if (v.formula) referencedNames(v.formula.expr, refs);
  if (rule.indexedBy) refs.add(rule.indexedBy);
  if (rule.derivedRelation) refs.add(rule.derivedRelation.sourceRelation.split('#relation.').pop()!);
  for (const key of ['target', 'value'] as const) {
    const ref = rule.sourceRelation?.[key];
    if (ref?.includes('#')) refs.add(ref.split('#').pop()!);
  }
  refs.delete('period_start');
  refs.delete('period_end');
  return refs;
}

const sentences = new Map<string, string>();

function firstSentence(text: string): string {
  let first = sentences.get(text);
  if (first === undefined) {
    first = computeFirstSentence(text);
    sentences.set(text, first);
  }
  return first;
}

function computeFirstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  return end > 0 ? flat.slice(0, end + 1) : flat;
}

function summaryOf(mod: ParsedModule, rule: RuleDecl): string {
  const own = rule.description ?? rule.label;
  const kind = rule.kind.replace('_', ' ');
  const parts = [own ?? `${rule.name.replace(/_/g, ' ')} (${kind}${rule.entity ? ` on ${rule.entity}` : ''}${rule.dtype ? `, ${rule.dtype}` : ''}).`];
  if (rule.source) parts.push(`Source: ${rule.source}.`);
  if (mod.meta.summary && !own) parts.push(firstSentence(mod.meta.summary));
  return parts.join(' ');
}

function deferredOutputs(mod: ParsedModule): string[] {
  return mod.meta.deferredOutputs.filter((n) => /^[a-z_][a-z0-9_]*$/.test(n));
}

function sourcesOf(id: string, mod: ParsedModule, rule: RuleDecl | undefined, relative: string): SourceReference[] {
  const sources: SourceReference[] = [];
  const citation = mod.meta.citationPaths[0] ?? citationPathOf(mod.target);
  if (rule?.source || rule?.sourceUrl) {
    sources.push({ id: `${id}@source`, citation_path: citation, label: rule.source ?? rule.sourceUrl!, url: rule.sourceUrl ?? null, quote: rule.quotes[0]?.excerpt ?? null, source_type: 'official' });
  }
  for (const [i, q] of (rule?.quotes ?? []).entries()) {
    if (i === 0 && sources.length) continue;
    sources.push({ id: `${id}@quote-${i + 1}`, citation_path: q.citationPath ?? citation, label: q.citationPath ?? rule?.source ?? citation, url: null, quote: q.excerpt, source_type: 'derived' });
  }
  sources.push({ id: `${id}@encoding`, citation_path: citationPathOf(id), label: `RuleSpec encoding ${relative.split(path.sep).join('/')}`, url: null, quote: null, source_type: 'repository' });
  return sources;
}

/** The text `POST /v1/search` matches tokens against. */
export function searchText(rule: RuleDetail): string {
  return [rule.id, rule.citation_path, rule.name, rule.summary, ...rule.symbols].join('\n').toLowerCase();
}
