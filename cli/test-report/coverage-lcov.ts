import type { ModuleCoverage } from '../../compiler/companion-tests/coverage/provisions.js';
import type { CoverageReport } from '../../compiler/companion-tests/coverage/summary.js';

// `--coverage-reporter lcov` (lcov.info), the tracefile format of LCOV's geninfo(1), which
// genhtml, Codecov-style services and editors' coverage gutters read. Over the YAML modules:
// FN/FNDA a rule or parameter at its first line, with how often it was evaluated; BRDA each
// branch arm at its own line (block = the conditional, `-` when it never ran); DA each line
// that holds a rule, a version or a branch arm. Paths are absolute, so any tool finds the files.

function record(m: ModuleCoverage, lines: Map<number, number>): string {
  const out = ['TN:', `SF:${m.file}`];
  // a function is named once per file: a name declared twice gets its line (and a comma, which
  // ends a name in FN records, would cut it)
  const named = new Map<string, number>();
  for (const r of m.rules) named.set(r.name, (named.get(r.name) ?? 0) + 1);
  const name = (r: ModuleCoverage['rules'][number]) => (named.get(r.name)! > 1 ? `${r.name}@${r.line}` : r.name).replace(/[,\s]/g, '_');
  for (const r of m.rules) out.push(`FN:${r.line},${name(r)}`);
  for (const r of m.rules) out.push(`FNDA:${r.hits},${name(r)}`);
  out.push(`FNF:${m.rules.length}`, `FNH:${m.rules.filter((r) => r.hits > 0).length}`);
  let branches = 0;
  let taken = 0;
  m.branches.forEach((b, block) => {
    const ran = b.arms.some((a) => a.hits > 0);
    b.arms.forEach((a, arm) => out.push(`BRDA:${a.line},${block},${arm},${ran ? a.hits : '-'}`));
    branches += b.arms.length;
    taken += b.arms.filter((a) => a.hits > 0).length;
  });
  out.push(`BRF:${branches}`, `BRH:${taken}`);
  for (const [line, hits] of lines) out.push(`DA:${line},${hits}`);
  out.push(`LF:${lines.size}`, `LH:${[...lines.values()].filter((h) => h > 0).length}`, 'end_of_record');
  return out.join('\n');
}

export function lcovReport(report: CoverageReport): string {
  return report.modules.map((m, i) => record(m, report.lines[i])).join('\n') + '\n';
}
