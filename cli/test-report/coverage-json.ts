import { type CoverageReport, type CoverageSummary, KINDS, percent } from '../../compiler/companion-tests/coverage/summary.js';
import { displayPath } from '../output.js';

// `--coverage-reporter json` (coverage.json): every module, rule, version, branch arm and dated
// value with its hit count and `file:line`; and the totals `rules test --json` carries.

/** Each kind's covered count, total and percent (two decimals). */
export function summaryJson(s: CoverageSummary): Record<string, { covered: number; total: number; percent: number }> {
  return Object.fromEntries(KINDS.map((k) => [k, { ...s[k], percent: Math.round(percent(s[k]) * 100) / 100 }]));
}

/** The run's totals and each jurisdiction's. */
export function totalsJson(report: CoverageReport) {
  return { summary: summaryJson(report.total), jurisdictions: Object.fromEntries(report.jurisdictions.map(([j, s]) => [j, summaryJson(s)])) };
}

export function coverageJson(report: CoverageReport): unknown {
  return {
    ...totalsJson(report),
    modules: report.modules.map((m, i) => {
      const file = displayPath(m.file);
      const at = (line: number) => `${file}:${line}`;
      return {
        file,
        target: m.target,
        summary: summaryJson(report.perModule[i]),
        rules: m.rules.map((r) => ({ name: r.name, kind: r.kind, location: at(r.line), hits: r.hits, ...(r.kind === 'derived' ? { non_trivial_hits: r.nonTrivial } : {}) })),
        dated_values: m.versions.filter((v) => v.kind === 'parameter').map((v) => ({ rule: v.rule, effective_from: v.from, location: at(v.line), hits: v.hits })),
        rule_versions: m.versions.filter((v) => v.kind === 'derived').map((v) => ({ rule: v.rule, effective_from: v.from, location: at(v.line), hits: v.hits })),
        branches: m.branches.map((b) => ({ rule: b.rule, kind: b.kind, location: at(b.line), arms: b.arms.map((a) => ({ label: a.label, location: at(a.line), hits: a.hits })) })),
      };
    }),
  };
}
