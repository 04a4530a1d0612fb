import type { ModuleCoverage } from './provisions.js';

// Adding up coverage: the counts of several workers for one module, and a module's, a
// jurisdiction's or a run's totals of each kind. `lines` is how lcov sees the same counts: every
// source line holding a rule, a version or a branch, covered when one of them was hit.

export const KINDS = ['rules', 'branches', 'dated_values', 'non_trivial', 'lines'] as const;
export type Kind = (typeof KINDS)[number];

/** How each kind is named to people and in `--coverage-threshold` (`dated-values` also reads `dated_values`). */
export const KIND_LABELS: Record<Kind, string> = { rules: 'rules', branches: 'branches', dated_values: 'dated values', non_trivial: 'non-trivial', lines: 'lines' };

export interface Tally {
  covered: number;
  total: number;
}

export type CoverageSummary = Record<Kind, Tally>;

/** Covered share in percent; a kind with nothing to cover is complete. */
export const percent = (t: Tally): number => (t.total === 0 ? 100 : (100 * t.covered) / t.total);

export const emptySummary = (): CoverageSummary => ({ rules: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, dated_values: { covered: 0, total: 0 }, non_trivial: { covered: 0, total: 0 }, lines: { covered: 0, total: 0 } });

export function addSummary(into: CoverageSummary, more: CoverageSummary): CoverageSummary {
  for (const k of KINDS) {
    into[k].covered += more[k].covered;
    into[k].total += more[k].total;
  }
  return into;
}

/** Each source line with counts on it, and its hits: the most any of them has. */
export function lineHits(m: ModuleCoverage): Map<number, number> {
  const lines = new Map<number, number>();
  const note = (line: number, hits: number) => lines.set(line, Math.max(lines.get(line) ?? 0, hits));
  for (const r of m.rules) note(r.line, r.hits);
  for (const v of m.versions) note(v.line, v.hits);
  for (const b of m.branches) for (const a of b.arms) note(a.line, a.hits);
  return new Map([...lines].sort((a, b) => a[0] - b[0]));
}

/** `lines`: the module's lineHits, when they are at hand. */
export function moduleSummary(m: ModuleCoverage, lineMap = lineHits(m)): CoverageSummary {
  const tally = <T>(items: T[], covered: (t: T) => boolean): Tally => ({ covered: items.filter(covered).length, total: items.length });
  const derived = m.rules.filter((r) => r.kind === 'derived');
  const lines = [...lineMap.values()];
  return {
    rules: tally(m.rules, (r) => r.hits > 0),
    branches: tally(m.branches.flatMap((b) => b.arms), (a) => a.hits > 0),
    dated_values: tally(m.versions.filter((v) => v.kind === 'parameter'), (v) => v.hits > 0),
    non_trivial: tally(derived, (r) => r.nonTrivial > 0),
    lines: tally(lines, (h) => h > 0),
  };
}

/** The jurisdiction of a module: its target's (`us-co:statutes/…` → `us-co`). */
export const jurisdictionOf = (m: ModuleCoverage): string => m.target.slice(0, m.target.indexOf(':'));

/** Whether two records list the same things at the same lines. */
function sameShape(a: ModuleCoverage, b: ModuleCoverage): boolean {
  const same = <T extends { line: number }>(x: T[], y: T[]) => x.length === y.length && x.every((item, i) => item.line === y[i].line);
  return same(a.rules, b.rules) && same(a.versions, b.versions) && same(a.branches, b.branches) && a.branches.every((br, i) => same(br.arms, b.branches[i].arms));
}

/**
 * One record per module file, the counts of every part added up (into the first part of each
 * file), sorted by file. Parts of one file read from the same text list the same things in the
 * same order; a part that lists others (the file changed while the run read it) is left out, and
 * its file named in `changed`.
 */
export function mergeCoverage(parts: ModuleCoverage[], changed: string[] = []): ModuleCoverage[] {
  const byFile = new Map<string, ModuleCoverage>();
  for (const part of parts) {
    const into = byFile.get(part.file);
    if (!into) {
      byFile.set(part.file, part);
      continue;
    }
    if (!sameShape(part, into)) {
      if (!changed.includes(part.file)) changed.push(part.file);
      continue;
    }
    part.rules.forEach((r, i) => {
      into.rules[i].hits += r.hits;
      into.rules[i].nonTrivial += r.nonTrivial;
    });
    part.versions.forEach((v, i) => (into.versions[i].hits += v.hits));
    part.branches.forEach((b, i) => b.arms.forEach((a, j) => (into.branches[i].arms[j].hits += a.hits)));
  }
  return [...byFile.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

export interface CoverageReport {
  modules: ModuleCoverage[];
  /** Files that changed while the run read them: their counts are those of one reading only. */
  changed: string[];
  total: CoverageSummary;
  /** Totals per jurisdiction, in name order. */
  jurisdictions: [string, CoverageSummary][];
  /** Each module's totals, as `modules`. */
  perModule: CoverageSummary[];
  /** Each module's lines with their hits (lineHits), as `modules`. */
  lines: Map<number, number>[];
}

export function coverageReport(parts: ModuleCoverage[]): CoverageReport {
  const changed: string[] = [];
  const modules = mergeCoverage(parts, changed);
  const lines = modules.map(lineHits);
  const perModule = modules.map((m, i) => moduleSummary(m, lines[i]));
  const total = emptySummary();
  const byJurisdiction = new Map<string, CoverageSummary>();
  modules.forEach((m, i) => {
    addSummary(total, perModule[i]);
    const j = jurisdictionOf(m);
    addSummary(byJurisdiction.get(j) ?? byJurisdiction.set(j, emptySummary()).get(j)!, perModule[i]);
  });
  return { modules, changed, total, perModule, lines, jurisdictions: [...byJurisdiction].sort((a, b) => (a[0] < b[0] ? -1 : 1)) };
}
